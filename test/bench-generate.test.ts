import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, generateCorpus, type CorpusInfo } from '../bench/generate.js';
import { floorCp, floorParseFile, floorReadParse, measure, summarize } from '../bench/floors.js';

// Independent re-implementation of the file-name id encoding (docs/formats.md,
// "Files on disk").
function enc(id: string): string {
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i];
    out += /[A-Za-z0-9._-]/.test(ch) ? ch : '~' + id.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

interface Ev {
  type: string;
  seq: number;
  data: any;
}
interface Parsed {
  file: string;
  rel: string;
  header: any;
  lines: string[]; // event lines (header excluded), without "\n"
  /** for each line, the number of events through that line */
  cum: number[];
  events: Ev[];
  packed: boolean;
}

function parseFile(file: string, root: string): Parsed {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n'), `${file} ends with \\n`).toBe(true);
  const all = text.slice(0, -1).split('\n');
  const header = JSON.parse(all[0]);
  const lines = all.slice(1);
  const events: Ev[] = [];
  const cum: number[] = [];
  let packed = false;
  for (const line of lines) {
    const o = JSON.parse(line);
    if (o.type === 'text-chunks' || o.type === 'reasoning-chunks' || o.type === 'tool-call-chunks') {
      packed = true;
      const members: unknown[] = o.type === 'tool-call-chunks' ? o.data.args : o.data.texts;
      expect(Array.isArray(members) && members.length > 0).toBe(true);
      expect(o.data.dt.length).toBe(members.length - 1);
      expect(typeof o.time0).toBe('number');
      for (let i = 0; i < members.length; i++) {
        events.push({ type: o.type === 'tool-call-chunks' ? 'assistant/chunk' : 'assistant/chunk', seq: o.seq0 + i, data: o.data });
      }
    } else {
      expect(typeof o.time).toBe('number');
      events.push({ type: o.type, seq: o.seq, data: o.data });
    }
    cum.push(events.length);
  }
  return { file, rel: relative(root, file), header, lines, cum, events, packed };
}

function treeHash(dir: string): string {
  const h = createHash('sha256');
  for (const f of walk(dir).map((p) => relative(dir, p)).sort()) {
    h.update(f + '\0');
    h.update(readFileSync(join(dir, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

describe('bench corpus generator (quick preset)', () => {
  let root: string;
  let dirA: string;
  let dirB: string;
  let info: CorpusInfo;
  let parsed: Parsed[];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'dsh-bench-gen-'));
    dirA = join(root, 'a');
    dirB = join(root, 'b');
    info = generateCorpus(dirA, PRESETS.quick);
    parsed = walk(dirA)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => parseFile(f, dirA));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reports what it wrote', () => {
    expect(info.dir).toBe(dirA);
    expect(info.files).toBe(parsed.length);
    expect(info.sessions).toBe(PRESETS.quick.sessions + 1);
    expect(info.events).toBe(parsed.reduce((n, p) => n + p.events.length, 0));
    expect(info.bytes).toBe(parsed.reduce((n, p) => n + statSync(p.file).size, 0));
    expect(info.bytes).toBeGreaterThan(1_000_000);
    expect(info.bytes).toBeLessThan(6_000_000);
    expect(info.bigEvents).toBe(5_000);
    const big = parsed.find((p) => p.file === info.bigFile);
    expect(big).toBeDefined();
    expect(big!.events.length).toBe(5_000);
    expect(big!.events[big!.events.length - 1].type).toBe('turn/end');
  });

  it('uses the harness layouts and id encoding', () => {
    const ids = new Set<string>();
    let v0 = 0;
    let rc8 = 0;
    for (const p of parsed) {
      const h = p.header;
      expect(h.type).toBe('session');
      expect(h.version).toBe(0);
      expect(typeof h.id).toBe('string');
      expect(typeof h.createdAt).toBe('number');
      for (const k of Object.keys(h)) expect(h[k], `${p.rel} key ${k}`).not.toBeNull();
      expect(ids.has(h.id), `duplicate id ${h.id}`).toBe(false);
      ids.add(h.id);
      const parts = p.rel.split(sep);
      if (parts.length === 3) {
        rc8++;
        expect(parts[0]).toMatch(/^--.+--$/);
        expect(parts[1]).toBe(enc(h.id));
        expect(parts[2]).toBe('session.jsonl');
        expect(typeof h.cwd).toBe('string');
      } else {
        v0++;
        expect(parts.length).toBe(2);
        expect(p.packed, `${p.rel}: packed rows only in rc8 layout`).toBe(false);
        const expectDir = h.cwd === undefined ? '_no-cwd' : 'cwd-' + createHash('sha256').update(h.cwd).digest('hex').slice(0, 12);
        expect(parts[0]).toBe(expectDir);
        expect(parts[1]).toBe(enc(h.id) + '.jsonl');
      }
    }
    expect(v0).toBeGreaterThan(0);
    expect(rc8).toBeGreaterThan(0);
    expect(parsed.some((p) => p.packed)).toBe(true);
    // some unusual ids exercise the encoding
    expect(parsed.some((p) => enc(p.header.id) !== p.header.id)).toBe(true);
  });

  it('has contiguous seqs from 0 in every file (packed rows expanded)', () => {
    for (const p of parsed) {
      p.events.forEach((e, i) => expect(e.seq, `${p.rel} event ${i}`).toBe(i));
    }
  });

  it('has well-formed turns; open sessions end on tool/call', () => {
    const reasons = new Set<string>();
    let open = 0;
    for (const p of parsed) {
      const evs = p.events;
      const seedLength: number = p.header.seedLength ?? 0;
      let openTurn: number | null = null;
      let lastTurn = 0;
      const pending = new Set<string>();
      for (const e of evs) {
        if (e.type === 'turn/start') {
          expect(openTurn, `${p.rel}: nested turn at ${e.seq}`).toBeNull();
          expect(e.data.turn).toBe(lastTurn + 1);
          openTurn = lastTurn = e.data.turn;
        } else if (e.type === 'turn/end') {
          expect(openTurn).toBe(e.data.turn);
          expect(pending.size, `${p.rel}: unanswered tool call at turn end ${e.seq}`).toBe(0);
          if (e.seq >= seedLength) reasons.add(e.data.reason.kind);
          openTurn = null;
        } else if (e.type === 'tool/call') {
          expect(openTurn).not.toBeNull();
          pending.add(e.data.callId);
        } else if (e.type === 'tool/result') {
          const id = e.data.callId ?? e.data.message.source.callId;
          expect(pending.delete(id), `${p.rel}: result without call ${id}`).toBe(true);
        } else if (e.type.startsWith('step/') || e.type === 'assistant/chunk' || e.type === 'assistant/message') {
          expect(openTurn, `${p.rel}: ${e.type} outside a turn at ${e.seq}`).not.toBeNull();
        }
      }
      if (openTurn !== null) {
        open++;
        expect(evs[evs.length - 1].type).toBe('tool/call');
      } else if (evs.length > 0) {
        expect(evs[evs.length - 1].type).toBe('turn/end');
      }
    }
    expect(open).toBeGreaterThan(0);
    expect(reasons.has('completed')).toBe(true);
    expect(reasons.size).toBeGreaterThanOrEqual(3);
  });

  it('fork children carry true seeds; spawned children have no seed', () => {
    const byId = new Map(parsed.map((p) => [p.header.id as string, p]));
    let forks = 0;
    let spawns = 0;
    for (const c of parsed) {
      const h = c.header;
      if (h.parentSession === undefined) {
        expect(h.seedLength).toBeUndefined();
        continue;
      }
      const parent = byId.get(h.parentSession);
      expect(parent, `${c.rel}: parent ${h.parentSession} exists`).toBeDefined();
      if (h.seedLength === undefined) {
        spawns++;
        expect(c.events[0].seq).toBe(0);
        continue;
      }
      forks++;
      const n: number = h.seedLength;
      expect(n).toBeGreaterThan(0);
      // the seed lines are exactly the lines covering the first n events
      const k = c.cum.indexOf(n);
      expect(k, `${c.rel}: a line ends exactly at event ${n}`).toBeGreaterThanOrEqual(0);
      expect(parent!.cum[k]).toBe(n);
      expect(c.lines.slice(0, k + 1)).toEqual(parent!.lines.slice(0, k + 1));
      expect(c.events[n - 1].type).toBe('turn/end');
      expect(h.cwd).toBe(parent!.header.cwd);
      const isRc8 = c.rel.split(sep).length === 3;
      expect(parent!.rel.split(sep).length === 3).toBe(isRc8);
      if (isRc8) {
        expect(h.origin).toBe('subagent');
        expect(c.events[n]?.type).toBe('session/end-seed');
      }
      expect(c.events.length).toBeGreaterThan(n);
    }
    expect(forks).toBeGreaterThan(0);
    expect(spawns).toBeGreaterThan(0);
  });

  it('is deterministic: a second run gives identical bytes', () => {
    const info2 = generateCorpus(dirB, PRESETS.quick);
    expect({ ...info2, dir: '', bigFile: relative(dirB, info2.bigFile!) }).toEqual({
      ...info,
      dir: '',
      bigFile: relative(dirA, info.bigFile!),
    });
    expect(treeHash(dirB)).toBe(treeHash(dirA));
  });

  it('reuses a cached corpus with the same spec and regenerates on a different one', () => {
    const manifest = join(dirB, 'corpus.json');
    const before = statSync(info.bigFile!.replace(dirA, dirB)).mtimeMs;
    const again = generateCorpus(dirB, PRESETS.quick);
    expect(again.events).toBe(info.events);
    expect(statSync(info.bigFile!.replace(dirA, dirB)).mtimeMs).toBe(before);
    const small = { ...PRESETS.quick, sessions: 5, bigEvents: 100, name: 'tiny' };
    const other = generateCorpus(dirB, small);
    expect(other.files).toBe(6);
    expect(walk(dirB).filter((f) => f.endsWith('.jsonl')).length).toBe(6);
    expect(JSON.parse(readFileSync(manifest, 'utf8')).spec.name).toBe('tiny');
  });

  it('floors: read+parse child, in-process parse, cp, measure', async () => {
    const rp = await floorReadParse(dirA);
    expect(rp.files).toBe(info.files);
    expect(rp.bytes).toBe(info.bytes);
    expect(rp.lines).toBe(parsed.reduce((n, p) => n + p.lines.length + 1, 0));
    expect(rp.bad).toBe(0);
    expect(rp.ms).toBeGreaterThanOrEqual(rp.innerMs);
    expect(rp.maxRssKb).toBeGreaterThan(0);
    expect(floorParseFile(info.bigFile!)).toBeGreaterThan(0);
    const dest = join(root, 'big-copy.jsonl');
    expect(await floorCp(info.bigFile!, dest)).toBeGreaterThan(0);
    expect(readFileSync(dest).equals(readFileSync(info.bigFile!))).toBe(true);
    let calls = 0;
    const st = await measure(() => ++calls * 10, { runs: 3, warmup: 2 });
    expect(calls).toBe(5);
    expect(st.samples).toEqual([30, 40, 50]);
    expect([st.median, st.min, st.max]).toEqual([40, 30, 50]);
    expect(summarize([4, 1, 3, 2]).median).toBe(2.5);
  });

  it('refuses to wipe a non-empty directory that is not a corpus', () => {
    const d = join(root, 'precious');
    mkdirSync(d);
    writeFileSync(join(d, 'keep.txt'), 'x');
    expect(() => generateCorpus(d, PRESETS.quick)).toThrow(/refusing/);
    expect(readFileSync(join(d, 'keep.txt'), 'utf8')).toBe('x');
  });
});

describe('huge session generator', () => {
  it('writes one clean session of at least the size, turn by turn, its middle boundary where it says', async () => {
    const { writeHugeSession } = await import('../bench/generate.js');
    const { loadRootSync } = await import('../src/storage/load-root.js');
    const { parseHugeSizes } = await import('../bench/huge.js');
    const dir = mkdtempSync(join(tmpdir(), 'dsh-huge-gen-'));
    try {
      const info = writeHugeSession(join(dir, 'h.jsonl'), 3e6, { id: 'h', toolOutputBytes: 20_000 });
      expect(info.bytes).toBeGreaterThanOrEqual(3e6);
      expect(statSync(info.file).size).toBe(info.bytes);
      const s = loadRootSync(dir, { cache: false }).store.getAll('h')[0];
      expect(s.diagnostics).toEqual([]);
      expect([s.facts.events, s.facts.turns, s.state]).toEqual([info.events, info.turns, 'at-boundary']);
      expect(s.facts.boundaries).toContain(info.mid.seq);
      const text = readFileSync(info.file);
      expect(text[info.mid.end - 1]).toBe(10);
      expect(JSON.parse(text.subarray(text.lastIndexOf(10, info.mid.end - 2) + 1, info.mid.end - 1).toString()).seq).toBe(info.mid.seq);
      // the same seed gives the same bytes
      const again = writeHugeSession(join(dir, 'h2.jsonl'), 3e6, { id: 'h', toolOutputBytes: 20_000 });
      expect(createHash('sha256').update(readFileSync(again.file)).digest('hex')).toBe(createHash('sha256').update(text).digest('hex'));
      expect(parseHugeSizes('100m,1g,2.5g')).toEqual([100e6, 1e9, 2.5e9]);
      expect(() => parseHugeSizes('10x')).toThrow(/--huge-sizes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
