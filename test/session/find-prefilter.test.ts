// `find` parses only the files, and in them only the event lines, whose raw
// bytes may hold the query's words (search.ts: streamMayMatch, eventLineFilter).
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
import { makeLog, term, UNIT } from '../support/random-logs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'find-prefilter-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

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

  it('a large log read in batches (its bytes a chunk at a time, then facts, then events a chunk at a time) gives the same matches', () => {
    // chunks of 97 bytes: words and escapes cut across two reads, UTF-8 sequences too
    setFindStreamMin(0, 97);
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

describe("a large log's bytes, read a chunk at a time", () => {
  const logWith = (events: object[]): string => [{ type: 'session', version: 0, id: 'big', createdAt: 1_700_000_000_000 }, ...events].map((e) => JSON.stringify(e) + '\n').join('');
  const user = (seq: number, text: string) => ({ type: 'user/message', seq, time: 1000 + seq, data: { message: { role: 'user', content: text } } });
  /** find over one log in chunks of `chunk` bytes (every log takes the large path). */
  function findChunked(text: string, query: string, chunk: number): FindMatch[] {
    const dir = path.join(tmp, `chunked${n++}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'big.jsonl'), text);
    setFindStreamMin(0, chunk);
    try {
      return findMatches(dir, parseQuery(query) as Query);
    } finally {
      setFindStreamMin(64 * 1024 * 1024);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('finds a word whose only bytes are cut by the end of a read, at every cut', () => {
    const text = logWith([user(1, 'nothing here'), user(2, 'the zqxjrare word, Ünïcödé too'), user(3, 'nothing there')]);
    for (const word of ['zqxjrare', 'ünïcödé', 'ZQXJRARE']) {
      const at = Buffer.from(text.toLowerCase()).indexOf(Buffer.from(word.toLowerCase()));
      expect(at, word).toBeGreaterThan(0);
      for (let cut = at + 1; cut < at + Buffer.byteLength(word); cut++) expect(findChunked(text, word, cut).map((m) => m.seq), `${word} cut at ${cut}`).toEqual([2]);
    }
    expect(findChunked(text, 'absentword', 64)).toEqual([]);
  });

  it("finds a word a prompt/blocked event's text blocks run together, found in no block's bytes", () => {
    const blocked = { type: 'prompt/blocked', seq: 1, time: 1001, data: { content: [{ type: 'text', text: 'zqx' }, { type: 'text', text: 'jrare' }], reason: 'policy' } };
    const text = logWith([blocked, user(2, 'nothing here')]);
    expect(findChunked(text, 'zqxjrare', 1 << 20).map((m) => m.seq)).toEqual([1]);
  });
});
