// Checks the bundled demo corpus (sample-sessions/) with plain JSON parsing,
// independently of the browser's own reader.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = join(ROOT, 'sample-sessions');
const DAMAGED = 'migrate-eslint-flat-config.jsonl';
const LIVE = 'add-retry-metrics.jsonl';
const REASONS = ['completed', 'aborted', 'error', 'max-tokens', 'disposed', 'rejected', 'interrupted'];

interface Header {
  type: string;
  version: number;
  id: string;
  createdAt: number;
  cwd?: string;
  parentSession?: string;
  seedLength?: number;
}

interface Event {
  type: string;
  seq: number;
  time: number;
  data: Record<string, any>;
  surfaceOp?: unknown;
  sourceEventSeqs?: number[];
}

interface Loaded {
  file: string;
  raw: string;
  header: Header;
  /** complete event lines (each was followed by "\n"), raw text */
  lines: string[];
  /** parsed events; undefined where a line is not valid JSON */
  events: (Event | undefined)[];
  /** final piece without "\n", if any */
  tail: string | undefined;
}

function tryParse(line: string): Event | undefined {
  try {
    return JSON.parse(line) as Event;
  } catch {
    return undefined;
  }
}

function load(file: string): Loaded {
  const raw = readFileSync(join(DIR, file), 'utf8');
  const pieces = raw.split('\n');
  const last = pieces.pop()!;
  const header = JSON.parse(pieces[0]) as Header;
  const lines = pieces.slice(1);
  return { file, raw, header, lines, events: lines.map(tryParse), tail: last === '' ? undefined : last };
}

/** keep [A-Za-z0-9._-]; every other UTF-16 code unit -> ~XXXX; "." and ".." escaped. */
function encodeId(id: string): string {
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    out += /[A-Za-z0-9._-]/.test(id[i]) ? id[i] : '~' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const corpus = files.map(load);
const byId = new Map(corpus.map((s) => [s.header.id, s]));
const get = (file: string) => corpus.find((s) => s.file === file)!;
const valid = (s: Loaded) => s.events.filter((e): e is Event => e !== undefined);
const lastTurnEnd = (s: Loaded) => valid(s).filter((e) => e.type === 'turn/end').at(-1);

describe('sample-sessions corpus', () => {
  it('is small: 12-16 session files, well under 200 KB in total', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
    expect(files.length).toBeLessThanOrEqual(16);
    const total = corpus.reduce((n, s) => n + Buffer.byteLength(s.raw), 0);
    expect(total).toBeLessThan(200_000);
  });

  it('has v0 headers, unique ids, and file names that are the encoded ids', () => {
    for (const s of corpus) {
      expect(s.header.type, s.file).toBe('session');
      expect(s.header.version, s.file).toBe(0);
      expect(typeof s.header.createdAt, s.file).toBe('number');
      for (const v of Object.values(s.header)) expect(v, s.file).not.toBeNull();
      if (s.header.seedLength !== undefined) expect(s.header.parentSession, s.file).toBeDefined();
      expect(s.file).toBe(encodeId(s.header.id) + '.jsonl');
    }
    expect(byId.size).toBe(corpus.length);
    // at least one id needs escaping
    expect(files.some((f) => f.includes('~'))).toBe(true);
  });

  it('every file except the damaged one parses fully, ends with "\\n" and has contiguous seqs from 0', () => {
    for (const s of corpus) {
      if (s.file === DAMAGED) continue;
      expect(s.tail, s.file).toBeUndefined();
      s.events.forEach((e, i) => {
        expect(e, `${s.file} line ${i + 2}`).toBeDefined();
        expect(e!.seq, `${s.file} line ${i + 2}`).toBe(i);
        expect(typeof e!.type).toBe('string');
        expect(typeof e!.time).toBe('number');
        expect(e!.time).toBeGreaterThanOrEqual(s.header.parentSession && s.header.seedLength ? 0 : s.header.createdAt);
        expect(typeof e!.data).toBe('object');
      });
    }
  });

  it('the damaged file has a welded/garbage line in the middle and a torn tail', () => {
    const s = get(DAMAGED);
    const bad = s.events.map((e, i) => (e === undefined ? i : -1)).filter((i) => i >= 0);
    expect(bad.length).toBe(1);
    expect(bad[0]).toBeGreaterThan(0);
    expect(bad[0]).toBeLessThan(s.lines.length - 1);
    expect(s.lines[bad[0]]).toContain('{"type":'); // a second object welded on
    expect(s.tail).toBeDefined();
    expect(s.tail!.startsWith('{"type":')).toBe(true);
    expect(tryParse(s.tail!)).toBeUndefined();
    expect(s.raw.endsWith('\n')).toBe(false);
  });

  it("each fork child's first seedLength event lines equal its parent's, byte for byte, ending at a turn/end", () => {
    const forks = corpus.filter((s) => s.header.seedLength !== undefined);
    expect(forks.length).toBeGreaterThanOrEqual(4);
    let orphans = 0;
    for (const child of forks) {
      const n = child.header.seedLength!;
      expect(Number.isInteger(n) && n > 0, child.file).toBe(true);
      expect(child.lines.length, child.file).toBeGreaterThan(n); // own turns after the seed
      expect(child.events[n - 1]?.type, child.file).toBe('turn/end');
      expect(child.events[n]?.type, child.file).toBe('turn/start');
      expect(child.events[n]!.time, child.file).toBeGreaterThanOrEqual(child.header.createdAt);
      const parent = byId.get(child.header.parentSession!);
      if (!parent) {
        orphans += 1;
        continue;
      }
      expect(parent.lines.length, child.file).toBeGreaterThanOrEqual(n);
      for (let i = 0; i < n; i++) {
        expect(child.lines[i], `${child.file} seed line ${i}`).toBe(parent.lines[i]);
      }
      expect(child.header.cwd).toBe(parent.header.cwd);
      expect(child.header.createdAt).toBeGreaterThan(parent.events[n - 1]!.time);
    }
    expect(orphans).toBe(1);
  });

  it('has forks of the root at different boundaries and a fork of a fork', () => {
    const forks = corpus.filter((s) => s.header.seedLength !== undefined && byId.has(s.header.parentSession!));
    const isFork = (s: Loaded | undefined) => s?.header.seedLength !== undefined;
    const grandchildren = forks.filter((s) => isFork(byId.get(s.header.parentSession!)));
    expect(grandchildren.length).toBeGreaterThanOrEqual(1);
    const roots = new Map<string, Set<number>>();
    for (const f of forks) {
      const p = f.header.parentSession!;
      if (!roots.has(p)) roots.set(p, new Set());
      roots.get(p)!.add(f.header.seedLength!);
    }
    expect([...roots.values()].some((cuts) => cuts.size >= 2)).toBe(true);
  });

  it('has a spawned subagent: parentSession present in the corpus, no seedLength', () => {
    const spawned = corpus.filter((s) => s.header.parentSession !== undefined && s.header.seedLength === undefined);
    expect(spawned.length).toBeGreaterThanOrEqual(1);
    for (const s of spawned) {
      const parent = byId.get(s.header.parentSession!);
      expect(parent, s.file).toBeDefined();
      const calls = valid(parent!).filter((e) => e.type === 'tool/call' && e.data.name === 'subagent');
      expect(calls.length, s.file).toBeGreaterThanOrEqual(1);
      expect(valid(s)[0].type).toBe('turn/start');
    }
  });

  it.each(REASONS)('some session ends with turn/end reason %s as its last turn/end', (kind) => {
    const hits = corpus.filter((s) => lastTurnEnd(s)?.data.reason?.kind === kind);
    expect(hits.length).toBeGreaterThanOrEqual(1);
  });

  it('uses the v0 reason shapes', () => {
    const ends = corpus.flatMap((s) => valid(s).filter((e) => e.type === 'turn/end'));
    const error = ends.find((e) => e.data.reason.kind === 'error')!;
    expect(typeof error.data.reason.step).toBe('number');
    expect(typeof error.data.reason.message).toBe('string');
    expect(typeof error.data.reason.code).toBe('string');
    const aborted = ends.find((e) => e.data.reason.kind === 'aborted')!;
    expect(aborted.data.reason.reason).toBe('session/cancel');
  });

  it('the rejected turn has prompt/blocked and no steps', () => {
    const s = corpus.find((x) => lastTurnEnd(x)?.data.reason.kind === 'rejected')!;
    const evs = valid(s);
    const start = evs.map((e) => e.type).lastIndexOf('turn/start');
    const turn = evs.slice(start);
    expect(turn.some((e) => e.type === 'prompt/blocked')).toBe(true);
    expect(turn.some((e) => e.type.startsWith('step/'))).toBe(false);
  });

  it('the interrupted turn was closed by crash repair: error tool/result, step/end, turn/end', () => {
    const s = corpus.find((x) => lastTurnEnd(x)?.data.reason.kind === 'interrupted')!;
    const tail = valid(s).slice(-3);
    expect(tail.map((e) => e.type)).toEqual(['tool/result', 'step/end', 'turn/end']);
    expect(tail[0].data.isError).toBe(true);
    expect(valid(s).at(-4)!.type).toBe('tool/call');
  });

  it('the live session is inside an open turn and its last event is a tool/call', () => {
    const evs = valid(get(LIVE));
    expect(evs.at(-1)!.type).toBe('tool/call');
    const types = evs.map((e) => e.type);
    expect(types.lastIndexOf('turn/start')).toBeGreaterThan(types.lastIndexOf('turn/end'));
  });

  it('has an empty (header-only) session', () => {
    const empty = corpus.filter((s) => s.lines.length === 0 && s.tail === undefined);
    expect(empty.length).toBe(1);
    expect(empty[0].raw.split('\n').length).toBe(2);
  });

  it('has todo/write, context/message, steering/message and error tool results', () => {
    const all = corpus.flatMap(valid);
    expect(all.some((e) => e.type === 'todo/write')).toBe(true);
    expect(all.some((e) => e.type === 'context/message')).toBe(true);
    expect(all.some((e) => e.type === 'steering/message')).toBe(true);
    expect(all.some((e) => e.type === 'tool/result' && e.data.isError === true)).toBe(true);
    expect(all.filter((e) => e.type === 'user/message').every((e) => e.surfaceOp === 'append')).toBe(true);
    for (const e of all.filter((x) => x.type === 'tool/call')) {
      expect(() => JSON.parse(e.data.arguments)).not.toThrow();
    }
  });

  it('streams a handful of chunks per message, not hundreds', () => {
    for (const e of corpus.flatMap(valid).filter((x) => x.type === 'assistant/message')) {
      expect(e.sourceEventSeqs!.length).toBeLessThanOrEqual(20);
    }
  });

  it('answers every tool/call with a tool/result before its turn ends (except the open tails)', () => {
    for (const s of corpus) {
      const open = new Set<string>();
      for (const e of valid(s)) {
        if (e.type === 'tool/call') open.add(e.data.callId);
        if (e.type === 'tool/result') {
          expect(open.has(e.data.callId), `${s.file} seq ${e.seq}`).toBe(true);
          open.delete(e.data.callId);
        }
        if (e.type === 'turn/end') expect([...open], `${s.file} seq ${e.seq}`).toEqual([]);
      }
    }
  });

  it('README lists every file', () => {
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    for (const f of files) expect(readme).toContain(f);
  });

  it('is reproduced byte for byte by scripts/make-samples.mjs', () => {
    const out = mkdtempSync(join(tmpdir(), 'dsh-samples-'));
    try {
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'make-samples.mjs'), out], { stdio: 'pipe' });
      const made = readdirSync(out).sort();
      expect(made).toEqual(readdirSync(DIR).sort());
      for (const f of made) {
        expect(readFileSync(join(out, f), 'utf8'), f).toBe(readFileSync(join(DIR, f), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
