// Property-based: damage ONE file of a root of valid sessions (sample corpus,
// real harness files of both eras, generated ones) with truncation, spliced or
// flipped bytes, duplicated / reordered / inserted lines. The loader never
// throws, every damaged line is reported (or is the pending tail), and every
// untouched session loads exactly as before.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/session/diagnostics.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { LogFacts } from '../../src/session/log-facts.js';
import { allDiagnostics, listSessionFiles, loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, hdr, REAL_DIR, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterAll(cleanupTmp);

interface Baseline {
  events: SessionEvent[];
  facts: LogFacts;
  diagnostics: Diagnostic[];
  id: string;
  /** the four above as JSON: compared as one string per run (a deep toEqual of ~50 sessions per run was most of the time) */
  json: string;
}

const asJson = (s: { id: string; facts: LogFacts; events: readonly SessionEvent[]; diagnostics: readonly Diagnostic[] }): string =>
  JSON.stringify([s.id, s.facts, s.events, s.diagnostics]);

let root: string;
let files: string[];
const original = new Map<string, Buffer>();
const baseline = new Map<string, Baseline>();

function generated(dir: string): void {
  writeLog(path.join(dir, 'gen-three-turns.jsonl'), hdr('gen/three turns', { cwd: '/home/u/proj' }), evs(...turnRows(1), ...turnRows(2, { kind: 'aborted' }), ...turnRows(3, { kind: 'future-kind' })));
  const unicode = evs(...turnRows(1, { kind: 'completed' }, 'naïve 日本語 \u2028 line-sep \u2029 para \ud83d\ude00 "quoted" \\ back'), ['x/plugin', { deep: { a: [1, 2, { b: null }] } }]);
  writeLog(path.join(dir, 'gen-unicode.jsonl'), hdr('gen-unicode'), unicode);
  writeLog(path.join(dir, 'gen-fork.jsonl'), hdr('gen-fork', { parentSession: 'gen/three turns', seedLength: 7, cwd: '/home/u/proj' }), evs(...turnRows(1), ...turnRows(2)));
  // an rc8-style packed chunk row
  const packed = [
    { type: 'turn/start', seq: 0, time: 10, data: { turn: 1, trigger: 'user' } },
    { type: 'text-chunks', seq0: 1, time0: 11, data: { turn: 1, step: 1, index: 0, dt: [1, 1], texts: ['a', 'b', 'c'] } },
    { type: 'turn/end', seq: 4, time: 20, data: { turn: 1, reason: { kind: 'completed' } } },
  ];
  writeLog(path.join(dir, 'gen-packed.jsonl'), hdr('gen-packed'), packed);
  writeLog(path.join(dir, 'gen-empty.jsonl'), hdr('gen-empty'), []);
}

beforeAll(() => {
  root = tmpDir('dsh-fuzz-');
  for (const f of fs.readdirSync(SAMPLE_DIR)) if (f.endsWith('.jsonl')) fs.copyFileSync(path.join(SAMPLE_DIR, f), path.join(root, 'sample__' + f));
  for (const f of fs.readdirSync(REAL_DIR)) if (f.endsWith('.jsonl')) fs.copyFileSync(path.join(REAL_DIR, f), path.join(root, 'real__' + f));
  generated(root);
  const index = loadRootSync(root);
  // Only clean files are mutation targets (so every diagnostic after a
  // mutation comes from it); damaged or refused corpus files stay in the root
  // as untouched neighbours.
  files = [];
  for (const f of listSessionFiles(root)) {
    original.set(f, fs.readFileSync(f));
    const s = index.store.get(f);
    if (!s) continue;
    baseline.set(f, { events: structuredClone([...s.events]), facts: structuredClone(s.facts), diagnostics: [...s.diagnostics], id: s.id, json: asJson(s) });
    if (s.diagnostics.length === 0 && index.files.get(f)!.pending === 0) files.push(f);
  }
  // samples + generated files alone give 16 targets; the real harness logs (absent in a plain clone) add more
  expect(files.length).toBeGreaterThanOrEqual(40);
});

// ---- mutations ----------------------------------------------------------

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'splice'; at: number; del: number; bytes: Uint8Array }
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'duplicate'; line: number }
  | { kind: 'reorder'; a: number; b: number }
  | { kind: 'garbage'; line: number; bytes: Uint8Array };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), del: fc.nat({ max: 12 }), bytes: fc.uint8Array({ maxLength: 24 }) }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('reorder' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('garbage' as const), line: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
);

/** Complete lines (without "\n") and the tail after the last "\n". */
function splitLines(buf: Buffer): { lines: Buffer[]; tail: Buffer } {
  const lines: Buffer[] = [];
  let pos = 0;
  for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, pos)) {
    lines.push(buf.subarray(pos, nl));
    pos = nl + 1;
  }
  return { lines, tail: buf.subarray(pos) };
}
const joinLines = (lines: Buffer[], tail: Buffer) => Buffer.concat([...lines.flatMap((l) => [l, Buffer.from('\n')]), tail]);

function mutate(buf: Buffer, m: Mutation): Buffer {
  const len = buf.length;
  switch (m.kind) {
    case 'truncate':
      return buf.subarray(0, m.at % (len + 1));
    case 'splice': {
      const at = m.at % (len + 1);
      return Buffer.concat([buf.subarray(0, at), Buffer.from(m.bytes), buf.subarray(Math.min(len, at + m.del))]);
    }
    case 'flip': {
      if (len === 0) return buf;
      const out = Buffer.from(buf);
      out[m.at % len] ^= m.mask;
      return out;
    }
    case 'duplicate': {
      const { lines, tail } = splitLines(buf);
      if (lines.length === 0) return buf;
      const k = m.line % lines.length;
      return joinLines([...lines.slice(0, k + 1), lines[k], ...lines.slice(k + 1)], tail);
    }
    case 'reorder': {
      const { lines, tail } = splitLines(buf);
      if (lines.length < 2) return buf;
      const out = [...lines];
      const a = m.a % out.length;
      const b = m.b % out.length;
      [out[a], out[b]] = [out[b], out[a]];
      return joinLines(out, tail);
    }
    case 'garbage': {
      const { lines, tail } = splitLines(buf);
      const k = lines.length === 0 ? 0 : m.line % (lines.length + 1);
      const g = Buffer.from(m.bytes.map((b) => (b === 10 ? 0x78 : b)));
      return joinLines([...lines.slice(0, k), g, ...lines.slice(k)], tail);
    }
  }
}

// ---- the oracle ----------------------------------------------------------

/** Independent check that a line is a well-formed event row; returns its seqs. */
function rowSeqs(line: Buffer): number[] | undefined {
  let v: any;
  try {
    v = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v) || typeof v.type !== 'string' || v.type === 'session') return undefined;
  if (v.seq0 !== undefined && ['text-chunks', 'reasoning-chunks', 'tool-call-chunks'].includes(v.type)) {
    const parts = v.type === 'tool-call-chunks' ? v.data?.args : v.data?.texts;
    return Array.isArray(parts) ? parts.map((_: unknown, i: number) => v.seq0 + i) : undefined;
  }
  return Number.isInteger(v.seq) ? [v.seq] : undefined;
}

function checkRun(target: string, mutated: Buffer, mutations: Mutation[]): void {
  fs.writeFileSync(target, mutated);
  let index!: ReturnType<typeof loadRootSync>;
  expect(() => (index = loadRootSync(root))).not.toThrow();

  // every untouched session loads identically
  for (const [f, b] of baseline) {
    if (f === target) continue;
    const s = index.store.get(f);
    expect(s, f).toBeDefined();
    if (asJson(s!) === b.json) continue;
    // differs: say how, field by field
    expect(s!.id).toBe(b.id);
    expect(s!.facts).toEqual(b.facts);
    expect(s!.events).toEqual(b.events);
    expect(s!.diagnostics).toEqual(b.diagnostics);
    expect.unreachable(`${f} loads differently (key order or an undefined field)`);
  }

  const { lines, tail } = splitLines(mutated);
  const diags = allDiagnostics(index).filter((d) => d.file === target);
  const entry = index.files.get(target)!;
  expect(entry.pending).toBe(tail.length);
  const s = index.store.get(target);
  if (!s) {
    // refused: the header is damaged, reported at line 1
    expect(diags.some((d) => d.line === 1 && d.severity === 'error')).toBe(true);
    return;
  }
  const diagnosed = new Set(diags.map((d) => d.line));
  for (const d of diags) expect(d.line === undefined || (d.line >= 1 && d.line <= lines.length)).toBe(true);

  // Map each loaded event to its line through the byte offset after the line.
  const endToLine = new Map<number, number>();
  let off = 0;
  lines.forEach((l, i) => {
    off += l.length + 1;
    endToLine.set(off, i + 1);
  });
  const log = s.ensureLoaded();
  const seqsByLine = new Map<number, number[]>();
  log.events.forEach((e, i) => {
    const ln = endToLine.get(log.eventEnds[i]);
    expect(ln, 'every event comes from a complete line').toBeDefined();
    seqsByLine.set(ln!, [...(seqsByLine.get(ln!) ?? []), e.seq]);
  });

  // Every line without a diagnostic is a well-formed event row that was
  // loaded, in sequence: anything else is a damaged line that went unreported.
  let prevSeq = -1;
  for (let i = 2; i <= lines.length; i++) {
    const loaded = seqsByLine.get(i) ?? [];
    if (!diagnosed.has(i)) {
      const seqs = rowSeqs(lines[i - 1]);
      const why = `line ${i} unreported: ${JSON.stringify(lines[i - 1].toString('latin1').slice(0, 120))} after ${JSON.stringify(mutations)}`;
      expect(seqs, why).toBeDefined();
      expect(loaded, why).toEqual(seqs);
      expect(loaded[0], why).toBe(prevSeq + 1);
    }
    if (loaded.length) prevSeq = loaded[loaded.length - 1];
  }

  // Good around the damage: inserting a garbage line or duplicating an event line loses no event.
  if (mutations.length === 1 && (mutations[0].kind === 'garbage' || (mutations[0].kind === 'duplicate' && mutations[0].line % splitLines(original.get(target)!).lines.length > 0))) {
    expect(s.events).toEqual(baseline.get(target)!.events);
  }
}

describe('fuzzing the loader', () => {
  it('never throws, reports every damaged line, loads untouched sessions identically (250 runs)', { timeout: PROPERTY_TIMEOUT }, () => {
    let done = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (pick, mutations) => {
        const target = files[pick % files.length];
        const bytes = mutations.reduce((b, m) => mutate(b, m), original.get(target)!);
        try {
          checkRun(target, bytes, mutations);
        } finally {
          fs.writeFileSync(target, original.get(target)!);
        }
        done++;
      }),
      { numRuns: runs(250), endOnFailure: true },
    );
    expect(done).toBe(runs(250));
  });

  it('each mutation kind alone, on every clean file', { timeout: PROPERTY_TIMEOUT }, () => {
    const kinds: Mutation[] = [
      { kind: 'truncate', at: 97 },
      { kind: 'splice', at: 131, del: 3, bytes: Uint8Array.from([0x7d, 0x7b, 0, 0xff, 10, 0x22]) },
      { kind: 'flip', at: 150, mask: 0x20 },
      { kind: 'duplicate', line: 2 },
      { kind: 'reorder', a: 2, b: 3 },
      { kind: 'garbage', line: 2, bytes: Uint8Array.from(Buffer.from('\u2028 not json }{"type":')) },
    ];
    for (const target of files)
      for (const m of kinds) {
        try {
          checkRun(target, mutate(original.get(target)!, m), [m]);
        } finally {
          fs.writeFileSync(target, original.get(target)!);
        }
      }
  });
});
