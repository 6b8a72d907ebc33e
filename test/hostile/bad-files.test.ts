// Hostile session files, as real files in real temp dirs: the loader never
// throws, reports (file, line, what is wrong) and loads everything good around
// the damage. Deep JSON goes through every consumer (tree, history, audit,
// snapshot, fork, CLI) without a stack overflow.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditSessions, canonicalJson, lineageCycles } from '../../src/session/audit.js';
import { cloneDeep, safeStringify, stringifyDeep } from '../../src/session/json-safe.js';
import { buildTurnTree, modelHistory } from '../../src/session/replay.js';
import { allDiagnostics, loadRootSync, type RootIndex } from '../../src/storage/load-root.js';
import { MAX_LINE_BYTES } from '../../src/storage/log-reader.js';
import { cleanupTmp, evs, hdr, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs'); // the bundled bin users run
afterAll(cleanupTmp);

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error('run `npm run build` first: dist/dsh-browse.mjs is missing');
});

const GOOD = evs(...turnRows(1), ...turnRows(2));

/** A root with one good session (good.jsonl) plus `bad.jsonl` holding `bytes`. */
function rootWith(bytes: Buffer | string): { root: string; bad: string; good: string } {
  const root = tmpDir('dsh-bad-');
  const good = writeLog(path.join(root, 'good.jsonl'), hdr('good'), GOOD);
  const bad = path.join(root, 'bad.jsonl');
  fs.writeFileSync(bad, bytes);
  return { root, bad, good };
}

function load(root: string): RootIndex {
  let index!: RootIndex;
  expect(() => (index = loadRootSync(root))).not.toThrow();
  return index;
}

function expectGoodIntact(index: RootIndex, good: string): void {
  const s = index.store.get(good)!;
  expect(s).toBeDefined();
  expect(s.events).toEqual(GOOD);
  expect(s.diagnostics).toEqual([]);
}

/** Diagnostics of one file (refused or not). */
const diagsOf = (index: RootIndex, file: string) => allDiagnostics(index).filter((d) => d.file === file);

const line = (o: unknown) => JSON.stringify(o);
const ev = (seq: number, type = 'x/note', data: unknown = { n: seq }) => line({ type, seq, time: 1_700_000_000_000 + seq, data });

describe('files that are not sessions are refused with file and line 1, the rest loads', () => {
  const cases: Array<[string, Buffer | string, string | RegExp]> = [
    ['empty file', '', /empty/],
    ['binary garbage', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)), /header/],
    ['binary garbage without a newline', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff, 0xfe]), /header/],
    ['header null', 'null\n' + ev(0) + '\n', /not a JSON object \(got null\)/],
    ['no header: first line is an event', ev(0) + '\n' + ev(1) + '\n', /not a session header/],
    ['foreign version', line({ ...hdr('v3'), version: 5 }) + '\n' + ev(0) + '\n', /unsupported session format version 5/],
    ['header is an array', '[1,2,3]\n', /got array/],
    ['NUL run as the header', '\0'.repeat(1000) + '\n' + ev(0) + '\n', /header/],
    ['blank first line', '\n' + line(hdr('x')) + '\n', /empty first line/],
  ];
  for (const [name, bytes, why] of cases)
    it(name, () => {
      const { root, bad, good } = rootWith(bytes);
      const index = load(root);
      expectGoodIntact(index, good);
      expect(index.store.get(bad)).toBeUndefined();
      const d = diagsOf(index, bad);
      expect(d.length).toBeGreaterThan(0);
      const err = d.find((x) => x.severity === 'error')!; // binary may first get an INVALID_UTF8 warning
      expect(err).toMatchObject({ file: bad, severity: 'error', line: 1 });
      expect(err.message).toMatch(why);
      if (name === 'foreign version') expect(err.code).toBe('UNSUPPORTED_VERSION');
    });
});

describe('damage inside a session is reported by line; the good events around it load', () => {
  const H = line(hdr('damaged'));

  it('garbage lines mid-file', () => {
    const text = [H, ev(0), 'this is not json', ev(1), '{"type":', ev(2), '12345', ev(3)].join('\n') + '\n';
    const { root, bad, good } = rootWith(text);
    const index = load(root);
    expectGoodIntact(index, good);
    const s = index.store.get(bad)!;
    expect(s.events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    const d = diagsOf(index, bad);
    expect(d.map((x) => [x.line, x.code])).toEqual([
      [3, 'MALFORMED_LINE'],
      [5, 'MALFORMED_LINE'],
      [7, 'BAD_EVENT'],
    ]);
    for (const x of d) expect(x.file).toBe(bad);
  });

  it('welded lines (…}{…) are split back into their events', () => {
    const torn = ev(1).slice(0, 25);
    const text = [H, ev(0), ev(1) + ev(2), torn + ev(3), ev(4)].join('\n') + '\n';
    const { root, bad, good } = rootWith(text);
    const index = load(root);
    expectGoodIntact(index, good);
    const s = index.store.get(bad)!;
    // line 3 holds seq 1 and 2 welded; line 4 a torn copy of seq 1 welded to seq 3
    expect(s.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    const d = diagsOf(index, bad);
    expect(d.map((x) => [x.line, x.code])).toEqual([
      [3, 'MALFORMED_LINE'],
      [4, 'MALFORMED_LINE'],
    ]);
    expect(d[0].message).toMatch(/recovered 2 event/);
  });

  it('runs of NUL bytes (a crash on a filesystem that zero-fills), alone and before an event', () => {
    const text = [H, ev(0), '\0'.repeat(4096), '\0'.repeat(512) + ev(1), ev(2)].join('\n') + '\n';
    const { root, bad, good } = rootWith(text);
    const index = load(root);
    expectGoodIntact(index, good);
    expect(index.store.get(bad)!.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(diagsOf(index, bad).map((x) => [x.line, x.code])).toEqual([
      [3, 'MALFORMED_LINE'],
      [4, 'MALFORMED_LINE'],
    ]);
  });

  it('a BOM and CRLF line ends load cleanly', () => {
    const text = '\uFEFF' + [H, ...GOOD.map(line)].join('\r\n') + '\r\n';
    const { root, bad, good } = rootWith(text);
    const index = load(root);
    expectGoodIntact(index, good);
    const s = index.store.get(bad)!;
    expect(s.id).toBe('damaged');
    expect(s.events).toEqual(GOOD);
    expect(s.diagnostics).toEqual([]);
  });

  it('lone surrogates (escaped) load as they are; invalid UTF-8 bytes are reported and the event still loads', () => {
    const lone = line({ type: 'user/message', seq: 0, time: 1, data: { content: [{ type: 'text', text: 'a\ud800b\udfffc' }] } });
    expect(lone).toContain('\\ud800'); // JSON.stringify escapes lone surrogates
    const [pre, post] = ev(1, 'x/note', { s: 'XX' }).split('XX');
    const invalid = Buffer.concat([Buffer.from(pre), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(post)]);
    const bytes = Buffer.concat([Buffer.from([H, lone].join('\n') + '\n'), invalid, Buffer.from('\n' + ev(2) + '\n')]);
    const { root, bad, good } = rootWith(bytes);
    const index = load(root);
    expectGoodIntact(index, good);
    const s = index.store.get(bad)!;
    expect(s.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(s.events[0].data.content[0].text).toBe('a\ud800b\udfffc');
    expect(diagsOf(index, bad).map((x) => [x.line, x.code, x.severity])).toEqual([[3, 'INVALID_UTF8', 'warning']]);
  });

  it('U+2028 / U+2029 inside strings do not split lines (split on \\n only)', () => {
    const text = 'one\u2028two\u2029three\u0085four\rfive\u000bsix';
    const raw = line({ type: 'user/message', seq: 0, time: 1, data: { content: [{ type: 'text', text }] } });
    expect(raw).toContain('\u2028'); // JSON.stringify leaves them raw
    const rawCr = raw.replace('\\r', '\r'); // and a raw CR mid-line is invalid JSON: reported, not a line break
    const { root, bad, good } = rootWith([H, raw, ev(1), rawCr.replace('"seq":0', '"seq":2'), ev(2)].join('\n') + '\n');
    const index = load(root);
    expectGoodIntact(index, good);
    const s = index.store.get(bad)!;
    expect(s.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(s.events[0].data.content[0].text).toBe(text);
    expect(diagsOf(index, bad).map((x) => [x.line, x.code])).toEqual([[4, 'MALFORMED_LINE']]);
  });

  it('a seq gap is reported; events after it are shown but the log is not forkable past it', () => {
    const text = [H, ...evs(...turnRows(1)).map(line), ev(9, 'turn/start', { turn: 2 }), ev(10, 'turn/end', { turn: 2, reason: { kind: 'completed' } })].join('\n') + '\n';
    const { root, bad, good } = rootWith(text);
    const index = load(root);
    expectGoodIntact(index, good);
    const s = index.store.get(bad)!;
    expect(s.length).toBe(9);
    expect(diagsOf(index, bad).map((x) => [x.line, x.code])).toEqual([[9, 'SEQ_GAP']]);
    expect(s.facts.boundaries).toEqual([6]);
    expect(() => index.store.fork({ source: s, boundary: 8 })).toThrow(/open turn|boundary/);
  });

  it('duplicate and reordered seqs', () => {
    const text = [H, ev(0), ev(1), ev(1), ev(3), ev(2), ev(4)].join('\n') + '\n';
    const { root, bad } = rootWith(text);
    const index = load(root);
    const d = diagsOf(index, bad).map((x) => [x.line, x.code]);
    expect(d).toEqual([
      [4, 'DUPLICATE_SEQ'],
      [5, 'SEQ_GAP'],
      [6, 'DUPLICATE_SEQ'],
    ]);
  });

  it('a torn final line (no \\n) is pending, never an event and never an error', () => {
    const text = [H, ev(0), ev(1)].join('\n') + '\n' + ev(2).slice(0, 20);
    const { root, bad } = rootWith(text);
    const index = load(root);
    expect(index.store.get(bad)!.length).toBe(2);
    expect(diagsOf(index, bad)).toEqual([]);
    expect(index.files.get(bad)!.pending).toBe(20);
  });
});

describe('a 50 MB single line', () => {
  it('is skipped with LINE_TOO_LONG, memory stays bounded, the events around it load', () => {
    const root = tmpDir('dsh-huge-');
    const file = path.join(root, 'huge.jsonl');
    const SIZE = 50 * 1024 * 1024;
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, [line(hdr('huge')), ev(0, 'turn/start', { turn: 1 })].join('\n') + '\n');
    const open = '{"type":"x/blob","seq":1,"time":1,"data":"';
    fs.writeSync(fd, open);
    const mib = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < SIZE / mib.length; i++) fs.writeSync(fd, mib);
    fs.writeSync(fd, '"}\n' + ev(2, 'turn/end', { turn: 1, reason: { kind: 'completed' } }) + '\n');
    fs.closeSync(fd);
    // Measured in a fresh process so the peak RSS is this load's alone.
    const script = `
      const { loadRootSync, allDiagnostics } = await import(${JSON.stringify(path.join(REPO, 'dist/src/storage/load-root.js'))});
      const before = process.resourceUsage().maxRSS;
      const index = loadRootSync(${JSON.stringify(root)});
      const indexPeak = (process.resourceUsage().maxRSS - before) * 1024;
      const s = index.store.list()[0];
      const seqs = s.events.map((e) => e.seq);
      const fullPeak = (process.resourceUsage().maxRSS - before) * 1024;
      console.log(JSON.stringify({ indexPeak, fullPeak, seqs, diags: allDiagnostics(index) }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.diags).toHaveLength(2);
    expect(out.diags[0]).toMatchObject({ file, line: 3, code: 'LINE_TOO_LONG', severity: 'error' });
    expect(out.diags[0].message).toBe(`line is ${open.length + SIZE + 2} bytes, over the ${MAX_LINE_BYTES}-byte limit: skipped`);
    expect(out.diags[1]).toMatchObject({ line: 4, code: 'SEQ_GAP' });
    expect(out.seqs).toEqual([0, 2]);
    // Bounded by the 16 MiB line limit plus a 1 MiB read chunk, not by the
    // 50 MiB line: the index load (one read) peaks near 17 MiB; opening the
    // events is a second read, whose garbage the GC may not have freed yet.
    expect(out.indexPeak).toBeLessThan(MAX_LINE_BYTES + 6 * 1024 * 1024);
    expect(out.fullPeak).toBeLessThan(0.75 * SIZE);
  });
});

describe('JSON nested 25,000 deep as event data', { timeout: 180_000 }, () => {
  // Deeper than any recursion survives (a one-argument recursive function overflows
  // near 20,000 frames on the default stack; JSON.stringify and structuredClone near
  // 5,000), so every consumer must be iterative; 100,000 proved nothing more at 4x the time.
  const N = 25_000;
  const deepArr = '['.repeat(N) + ']'.repeat(N);
  const deepObj = '{"a":'.repeat(N) + '"bottom"' + '}'.repeat(N);
  const deepObj2 = '{"a":'.repeat(N) + '"other"' + '}'.repeat(N);
  const raw = (type: string, seq: number, data: string) => `{"type":${JSON.stringify(type)},"seq":${seq},"time":${1_700_000_000_000 + seq},"data":${data}}`;
  // every consumer that looks into data: unknown events, tool calls/results, messages, turn numbers, reasons
  const deepLines = (obj: string) => [
    raw('x/deep-array', 0, deepArr),
    raw('x/deep-object', 1, obj),
    raw('turn/start', 2, `{"turn":1,"trigger":${deepArr}}`),
    raw('user/message', 3, `{"content":[{"type":"text","text":"hi"},${deepArr}],"source":${obj}}`),
    raw('step/start', 4, `{"turn":${deepArr},"step":${deepArr}}`),
    raw('assistant/message', 5, `{"turn":1,"step":1,"content":[{"type":"tool-call","id":"c1","name":${deepArr},"arguments":${obj}}]}`),
    raw('tool/call', 6, `{"turn":1,"step":1,"callId":${deepArr},"name":${deepArr},"arguments":${obj}}`),
    raw('tool/result', 7, `{"turn":1,"step":1,"callId":${deepArr},"content":${deepArr},"isError":true,"error":${obj}}`),
    raw('todo/write', 8, `{"todos":[{"status":${deepArr},"content":${obj}}]}`),
    raw('session/title', 9, `{"title":${deepArr}}`),
    raw('prompt/blocked', 10, `{"content":${deepArr},"reason":${obj}}`),
    raw('step/end', 11, `{"turn":1,"step":1}`),
    raw('turn/end', 12, `{"turn":${deepArr},"reason":${obj}}`),
    raw('turn/end', 13, `{"turn":${deepArr},"reason":${deepArr}}`),
  ];

  let root: string;
  let deepFile: string;
  beforeAll(() => {
    root = tmpDir('dsh-deep-');
    deepFile = path.join(root, 'deep.jsonl');
    fs.writeFileSync(deepFile, [line(hdr('deep', { cwd: '/w' })), ...deepLines(deepObj)].join('\n') + '\n');
    // a fork child whose seed equals the parent, and one whose deep seed differs
    fs.writeFileSync(path.join(root, 'same.jsonl'), [line(hdr('same', { parentSession: 'deep', seedLength: 14 })), ...deepLines(deepObj)].join('\n') + '\n');
    fs.writeFileSync(path.join(root, 'differs.jsonl'), [line(hdr('differs', { parentSession: 'deep', seedLength: 14 })), ...deepLines(deepObj2)].join('\n') + '\n');
    writeLog(path.join(root, 'good.jsonl'), hdr('good'), GOOD);
  });

  it('is deeper than recursion goes here (else the tests below prove nothing)', () => {
    const depth = (v: unknown): number => (Array.isArray(v) && v.length ? 1 + depth(v[0]) : 0);
    expect(() => depth(JSON.parse(deepArr))).toThrow(RangeError);
    expect(() => structuredClone(JSON.parse(deepObj))).toThrow(RangeError);
  });

  it('loads, builds the turn tree and the model history', () => {
    const index = load(root);
    expect(allDiagnostics(index)).toEqual([]);
    const s = index.store.get(deepFile)!;
    expect(s.length).toBe(14);
    expect(s.facts.boundaries).toEqual([12, 13]);
    const tree = buildTurnTree(s.events);
    expect(tree.length).toBeGreaterThan(0);
    const hist = modelHistory(s.events);
    expect(hist.map((h) => h.role)).toEqual(['user', 'assistant', 'tool']);
    expect(hist[2].text.startsWith('{"a":{"a":')).toBe(true);
  });

  it('audit: canonicalJson works at any depth, the equal seed verifies and the different one is a SEED_MISMATCH', () => {
    const index = load(root);
    const s = index.store.get(deepFile)!;
    const c = canonicalJson(s.events[1]);
    expect(c.startsWith('{"data":{"a":{"a":')).toBe(true);
    expect(c.length).toBeGreaterThan(5 * N);
    expect(canonicalJson(s.events[1])).not.toBe(canonicalJson({ ...s.events[1], data: JSON.parse(deepObj2) }));
    const findings = auditSessions(index.store.list());
    const codes = findings.map((f) => `${f.session}:${f.code}`);
    expect(codes).toContain('differs:SEED_MISMATCH');
    expect(codes).not.toContain('same:SEED_MISMATCH');
  });

  it('snapshot (structuredClone overflows: falls back to an iterative copy) and fork to disk', () => {
    const index = load(root);
    const s = index.store.get(deepFile)!;
    const snap = index.store.snapshot(s);
    // (plain booleans: vitest's matchers format and compare values recursively)
    expect(snap.seed.length).toBe(14);
    expect(snap.seed[1] === s.events[1]).toBe(false);
    expect(snap.seed[1].data === s.events[1].data).toBe(false);
    expect(canonicalJson(snap.seed[1]) === canonicalJson(s.events[1])).toBe(true);
    const child = index.store.fork({ source: s, sessionId: 'deep-child' });
    // session/title is rc.8 vocabulary: the child is written as rc.8 would, with its session/end-seed marker
    expect(child.events.length).toBe(15);
    expect(child.events[14].type).toBe('session/end-seed');
    const again = load(root);
    // the child's seed verifies (the inherited second turn/end is a TURN_ENCLOSURE warning, as in the parent)
    const findings = auditSessions(again.store.list()).filter((f) => f.session === 'deep-child' && f.severity === 'error');
    expect(findings.map((f) => f.code)).toEqual([]);
  });

  it('the iterative stringify equals JSON.stringify on ordinary values, and clone copies them', () => {
    const samples: unknown[] = [GOOD, { b: 1, a: [1, 'x', null, true, { '__proto__': 1, z: undefined }], u: undefined }, 'str\u2028\ud800', 0, -1.5e300, null, [], {}];
    for (const v of samples) {
      expect(stringifyDeep(v)).toBe(JSON.stringify(v));
      expect(stringifyDeep(v, { indent: 2 })).toBe(JSON.stringify(v, null, 2));
      expect(safeStringify(v, 2)).toBe(JSON.stringify(v, null, 2));
      expect(cloneDeep(v)).toEqual(v);
    }
    const proto = JSON.parse('{"__proto__":{"polluted":1}}');
    const copy = cloneDeep(proto);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(stringifyDeep(copy)).toBe('{"__proto__":{"polluted":1}}');
  });

  it('CLI tree --json / tree / list / audit / lineage exit normally with exact JSON', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const t = run('tree', '--dir', root, '--session', deepFile, '--json');
    expect(t.status, t.stderr).toBe(0);
    const tree = JSON.parse(t.stdout);
    expect(tree.id).toBe('deep');
    const turnNode = tree.turns.find((n: any) => n.kind === 'turn');
    let depth = 0;
    for (let v = turnNode.reasonData; v && typeof v === 'object'; v = v.a) depth++;
    expect(depth).toBe(N);
    const plain = run('tree', '--dir', root, '--session', deepFile);
    expect(plain.status, plain.stderr).toBe(0);
    for (const cmd of ['list', 'lineage']) {
      const r = run(cmd, '--dir', root);
      expect(r.status, r.stderr).toBe(0);
      expect(run(cmd, '--dir', root, '--json').status).toBe(0);
    }
    const a = run('audit', '--dir', root, '--json');
    expect(a.status).toBe(1); // the SEED_MISMATCH of "differs"
    expect(JSON.parse(a.stdout).findings.some((f: any) => f.code === 'SEED_MISMATCH' && f.session === 'differs')).toBe(true);
    expect(a.stderr).toBe('');
  });
});

describe('lineage cycles, self-parents and duplicate ids', () => {
  it('all load; cycles and duplicates are findings; duplicates stay addressable by file', () => {
    const root = tmpDir('dsh-cycle-');
    const ok = evs(...turnRows(1));
    const files = {
      a: writeLog(path.join(root, 'a.jsonl'), hdr('a', { parentSession: 'b', seedLength: 0 }), ok),
      b: writeLog(path.join(root, 'b.jsonl'), hdr('b', { parentSession: 'c' }), ok),
      c: writeLog(path.join(root, 'c.jsonl'), hdr('c', { parentSession: 'a' }), ok),
      self: writeLog(path.join(root, 'self.jsonl'), hdr('self', { parentSession: 'self', seedLength: 7 }), ok),
      dup1: writeLog(path.join(root, 'dup1.jsonl'), hdr('dup'), ok),
      dup2: writeLog(path.join(root, 'sub', 'dup2.jsonl'), hdr('dup'), evs(...turnRows(1), ...turnRows(2))),
    };
    const index = load(root);
    expect(index.store.size).toBe(6);
    expect(allDiagnostics(index)).toEqual([]);
    expect(index.store.get(files.dup1)!.length).toBe(7);
    expect(index.store.get(files.dup2)!.length).toBe(14);
    expect(index.store.getAll('dup')).toHaveLength(2);
    const cycles = lineageCycles(index.store.list());
    expect(cycles.map((c) => c.message).sort()).toEqual(['lineage cycle: "a" -> "b" -> "c" -> "a"', 'lineage cycle: "self" -> "self"'].sort());
    const findings = auditSessions(index.store.list());
    expect(findings.filter((f) => f.code === 'DUPLICATE_ID')).toHaveLength(1);
    expect(findings.filter((f) => f.code === 'LINEAGE_CYCLE')).toHaveLength(2);
    // the CLI does not hang or crash on them
    for (const cmd of ['lineage', 'audit', 'list']) {
      const r = spawnSync(process.execPath, [CLI, cmd, '--dir', root], { encoding: 'utf8', timeout: 20_000 });
      expect(r.status === 0 || r.status === 1, `${cmd}: ${r.stderr}`).toBe(true);
      expect(r.stderr).toBe('');
    }
    const dupTree = spawnSync(process.execPath, [CLI, 'tree', '--dir', root, '--session', 'dup'], { encoding: 'utf8' });
    expect(dupTree.status).toBe(2);
    expect(dupTree.stderr).toMatch(/names 2 sessions; pass a file path/);
    const byFile = spawnSync(process.execPath, [CLI, 'tree', '--dir', root, '--session', files.dup2, '--json'], { encoding: 'utf8' });
    expect(byFile.status).toBe(0);
    expect(JSON.parse(byFile.stdout).file).toBe(files.dup2);
  });
});
