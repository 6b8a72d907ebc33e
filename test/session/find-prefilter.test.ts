// `find` parses only the files, and in them only the event lines, whose raw
// bytes may hold the query's words (search.ts: fileMayMatch, eventLineFilter).
// These properties hold it to the matcher: random logs, written with random
// escapes, spacing and number spellings, and random queries give the same
// matches as parsing every event of every file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { findMatches, setFindStreamMin, type FindMatch } from '../../src/cli/find-command.js';
import { foldCodePoint } from '../../src/session/literal.js';
import { isQueryError, parseQuery, type Query } from '../../src/session/query.js';
import { buildSearchDoc, FOLDS_TO_ASCII, matchSession, maybeMadeUp, rawMayMatch, sessionMeta } from '../../src/session/search.js';
import { readLog, sessionFromRead } from '../../src/storage/session-file.js';
import { listSessionFiles } from '../../src/storage/walk.js';
import { runs } from '../support/property.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'find-prefilter-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A number as written in the file (JSON.parse reads it to a double whose String() may differ). */
class RawNum {
  constructor(readonly raw: string) {}
}
const NUMS = ['1E3', '1000', '1.50', '-0', '1e999', '-1e999', '0.0000001', '100000000000000000000000', '7', '2e+1'];

/** Serialises like JSON, with random spaces, \uXXXX and \/ escapes, and raw number spellings. */
function write(v: unknown, rnd: () => number): string {
  if (v instanceof RawNum) return v.raw;
  if (typeof v === 'string') {
    let s = '"';
    for (const c of v) {
      if (c === '"' || c === '\\' || c < ' ') s += JSON.stringify(c).slice(1, -1);
      else if (rnd() < 0.08) s += [...c].map((u) => '\\u' + u.charCodeAt(0).toString(16).padStart(4, '0')).join(''); // escape any character
      else if (c === '/' && rnd() < 0.3) s += '\\/';
      else s += c;
    }
    return s + '"';
  }
  const sp = () => (rnd() < 0.2 ? ' ' : '');
  if (Array.isArray(v)) return '[' + v.map((x) => sp() + write(x, rnd)).join(',') + ']';
  if (typeof v === 'object' && v !== null) return '{' + Object.entries(v).map(([k, x]) => `${write(k, rnd)}:${sp()}${write(x, rnd)}`).join(',' + sp()) + '}';
  return JSON.stringify(v);
}

const UNIT = ['a', 'W', 'w', 'atch', 'er', 'K', 'k', '\u212a', 'ſ', 's', 'S', 'é', 'É', 'İ', 'i', '1', '0', 'e', 'E', '.', '+', '-', ':', ',', '{', '}', '[', ']', '?', ' ', '/', '"', '\\', '\n', 'true', 'null', 'Infinity', 'x', '😀'];

/** A small deterministic generator of logs from a seed (fast-check shrinks the seed and the word). */
function makeLog(seed: number, events: number): string {
  let x = seed >>> 0 || 1;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const str = () => Array.from({ length: Math.floor(rnd() * 6) }, () => pick(UNIT)).join('');
  const num = () => new RawNum(pick(NUMS));
  const val = (): unknown => pick([str, num, () => rnd() < 0.5, () => null, () => [num(), str()], () => ({ [str()]: num(), b: str() })])();
  const lines = [JSON.stringify({ type: 'session', version: 0, id: `s${seed}`, createdAt: 1 })];
  let turn = 0;
  for (let seq = 0; seq < events; seq++) {
    const call = `c${Math.floor(rnd() * 3)}`;
    const kind = Math.floor(rnd() * 11);
    let type: string;
    let data: unknown;
    if (kind === 0) [type, data] = ['turn/start', { turn: ++turn }];
    else if (kind === 1) [type, data] = ['turn/end', pick([{ reason: { kind: str(), message: str() } }, { reason: str() }, {}])];
    else if (kind === 2) [type, data] = ['assistant/chunk', { delta: str() }];
    else if (kind === 3) [type, data] = ['assistant/message', { message: { role: 'assistant', content: [{ type: 'text', text: str() }, { type: 'tool-call', name: pick([str(), num()]), arguments: pick([str(), val()]) }] } }];
    else if (kind === 4) [type, data] = ['tool/call', { callId: call, name: pick(['bash', str(), num()]), arguments: pick([str(), { command: str(), n: num(), list: [num(), num()], on: true }]) }];
    else if (kind === 5) [type, data] = ['tool/result', { callId: call, content: [{ type: 'text', text: str() }], ...(rnd() < 0.3 ? { isError: true, error: val() } : {}) }];
    else if (kind === 6) [type, data] = ['prompt/blocked', { content: [{ type: 'text', text: str() }, { type: 'text', text: str() }], reason: str() }];
    else if (kind === 7) [type, data] = ['user/message', { message: { role: 'user', content: str() } }];
    else if (kind === 8) [type, data] = ['context/message', { role: 'user', content: [{ type: 'text', text: str() }] }];
    else [type, data] = ['x/other', { [str()]: val(), leaf: val(), deep: { v: [val(), val()] } }];
    lines.push(write({ type, seq, time: new RawNum(String(1000 + seq)), data }, rnd));
  }
  return lines.join('\n') + '\n';
}

/** find without any prefilter: every event of every file parsed. */
function reference(dir: string, q: Query): FindMatch[] {
  const out: FindMatch[] = [];
  for (const file of listSessionFiles(dir).sort()) {
    const { session } = sessionFromRead(file, readLog(file, true));
    if (!session) continue;
    const m = matchSession(q, sessionMeta(session), () => buildSearchDoc(session.events));
    if (!m) continue;
    if (m.kind === 'session') out.push({ id: session.id, file, seq: null, turn: null, type: 'session', snippet: session.facts.title ?? '' });
    else for (const e of m.matches) out.push({ id: session.id, file, ...e });
  }
  return out;
}

/** Whole spellings of made-up text too: String(number) of the raw spellings above, compact JSON, the reason "?" */
const TOKENS = ['1000', '1.5', 'Infinity', '-Infinity', '1e-7', '1e+23', '20', 'null', '[7', ':true', ',"', '?', 'a a', 'atch er'];
const word = fc.array(fc.oneof(fc.constantFrom(...UNIT.filter((u) => u !== '"' && u !== '\n')), fc.constantFrom(...TOKENS)), { minLength: 1, maxLength: 3 }).map((a) => a.join('').replace(/"/g, ''));
const term = fc.oneof(
  { weight: 6, arbitrary: word.filter((w) => w.trim() !== '').map((w) => `"${w}"`) },
  { weight: 1, arbitrary: word.filter((w) => !/\s/.test(w)).map((w) => `tool:"${w}"`) },
  { weight: 1, arbitrary: word.filter((w) => !/\s/.test(w)).map((w) => `reason:"${w}"`) },
  { weight: 1, arbitrary: fc.constantFrom('is:error', 'tool:bash', '-"a"', '-tool:bash') },
);

let n = 0;
/** The property: random logs (1-3 files) and random queries, findMatches against parsing every event. */
function sameAsReference(numRuns: number): void {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 2 ** 31 }), { minLength: 1, maxLength: 3 }), fc.array(term, { minLength: 1, maxLength: 3 }), (seeds, terms) => {
      const q = parseQuery(terms.join(' '));
      if (isQueryError(q)) return;
      const dir = path.join(tmp, `r${n++}`);
      seeds.forEach((seed, i) => {
        fs.mkdirSync(path.join(dir, `f${i}`), { recursive: true });
        fs.writeFileSync(path.join(dir, `f${i}`, `s${i}.jsonl`), makeLog(seed, 4 + (seed % 30)));
      });
      try {
        expect(findMatches(dir, q)).toEqual(reference(dir, q));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }),
    { numRuns },
  );
}

describe('find prefilters', () => {
  it('give the same matches as parsing every event (random logs, escapes, number spellings, case folding)', () => {
    sameAsReference(runs(1500));
  });

  it('a large log read in batches (facts first, then events a chunk at a time) gives the same matches', () => {
    setFindStreamMin(0);
    try {
      sameAsReference(runs(300));
    } finally {
      setFindStreamMin(64 * 1024 * 1024);
    }
  });

  it('finds the words the generator writes (the property is not vacuous)', () => {
    const dir = path.join(tmp, 'some');
    fs.mkdirSync(dir);
    for (let i = 1; i <= 40; i++) fs.writeFileSync(path.join(dir, `s${i}.jsonl`), makeLog(i * 7919, 30));
    for (const w of ['watch', 'K', 'é', '1000', 'Infinity', 'null', 'a a', '?', '/']) {
      const q = parseQuery(`"${w}"`) as Query;
      const want = reference(dir, q);
      expect(want.length, w).toBeGreaterThan(0);
      expect(findMatches(dir, q)).toEqual(want);
    }
  });

  it('ASCII case-insensitive byte search: only K and ſ fold into ASCII from above it', () => {
    const found = new Map<string, string>();
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const k = foldCodePoint(cp);
      if (k < 0x80) found.set(String.fromCharCode(k), String.fromCodePoint(cp));
    }
    expect([...found].sort()).toEqual([...FOLDS_TO_ASCII].map(([c, b]) => [c, b.toString()]).sort());
  });

  it('made-up text: String(number), compact JSON outside strings, the reason "?"', () => {
    for (const p of ['1000', 'infinity', '-infinity', 'e+21', '1,2', '[]', ':true}', 'null', 'ull,', '?', 'e', 'fals']) expect(maybeMadeUp(p), p).toBe(true);
    for (const p of ['watcher', 'test', 'bash', 'é', 'nullx', 'truee', 'a?', 'tr:ue']) expect(maybeMadeUp(p), p).toBe(false);
    expect(rawMayMatch(Buffer.from('{"a":"WATCHER"}'), ['watcher'])).toBe(true);
    expect(rawMayMatch(Buffer.from('{"a":"watcheé"}'), ['watcher'])).toBe(false);
    expect(rawMayMatch(Buffer.from('{"a":"\u212aey"}'), ['key'])).toBe(true);
    expect(rawMayMatch(Buffer.from('{"a":"\u212aey","b":"x"}'), ['x', 'key'])).toBe(true);
    expect(rawMayMatch(Buffer.from('{"a":"\u212aey","b":"x"}'), ['x'], 0, 12)).toBe(false);
    expect(rawMayMatch(Buffer.from('{"a":"w\\u0061tcher"}'), ['watcher'])).toBe(true);
  });
});
