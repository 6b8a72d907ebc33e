// The query language's limits: past MAX_QUERY_LENGTH characters
// or MAX_QUERY_TERMS terms a query is a QueryError that names the limit;
// below them any query is answered with bounded, linear work. Work is counted
// in literal steps (characters folded or searched over, src/session/literal.ts),
// never timed, so a loaded machine cannot make these tests flaky.
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findMatches } from '../../src/cli/find-command.js';
import { literalSteps } from '../../src/session/literal.js';
import { isQueryError, MAX_QUERY_LENGTH, MAX_QUERY_TERMS, parseQuery, queryErrorLine, type Query } from '../../src/session/query.js';
import { buildSearchDoc, matchSession, sessionMeta } from '../../src/session/search.js';
import { listSessionFiles } from '../../src/storage/walk.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { turnMatches } from '../../src/session/turn-matches.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

const SAMPLES = path.resolve(__dirname, '../../sample-sessions');

/** Queries at the cliffs: without the limits, each would end in exit 3 or take seconds. */
const CLIFFS: Array<[string, string]> = [
  ['a 100,000-character word', 'A'.repeat(100_000)],
  ['50,000 backslashes', '\\'.repeat(50_000)],
  ['tool: with a 100,000-character value', 'tool:' + 'x'.repeat(100_000)],
  ['20,000 repeated "a" terms', Array(20_000).fill('"a"').join(' ')],
  ['20,000 repeated w terms', Array(20_000).fill('w').join(' ')],
];

describe('the limits', () => {
  it('are a few words to a pasted line: 1,000 characters, 32 terms', () => {
    expect(MAX_QUERY_LENGTH).toBe(1000);
    expect(MAX_QUERY_TERMS).toBe(32);
  });

  it.each(CLIFFS)('%s is a query error that names the limit, found without reading the query', (_, text) => {
    const before = literalSteps();
    const q = parseQuery(text);
    expect(literalSteps()).toBe(before);
    if (!isQueryError(q)) throw new Error('parsed');
    expect(q.position).toBe(MAX_QUERY_LENGTH);
    expect(q.message).toBe(`query too long: ${text.length} characters; a query holds at most 1000 characters`);
    expect(queryErrorLine(q)).toBe(`query error at column 1001: ${q.message}`);
  });

  it('1,000 characters parse, 1,001 do not; 32 terms parse, the 33rd is the error, at its column', () => {
    expect(parseQuery('A'.repeat(1000))).toMatchObject({ terms: [{ kind: 'text', value: 'A'.repeat(1000) }] });
    expect(parseQuery('\\'.repeat(1000))).toMatchObject({ terms: [{ kind: 'text' }] });
    expect(parseQuery('A'.repeat(1001))).toMatchObject({ error: true, position: 1000 });
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(parseQuery(terms(32))).toMatchObject({ terms: expect.any(Array) });
    expect((parseQuery(terms(32)) as Query).terms).toHaveLength(32);
    const text = terms(33) + ' tail';
    expect(parseQuery(text)).toEqual({ error: true, position: text.indexOf('w32'), message: 'too many terms: a query holds at most 32 terms (this is term 33)' });
    // spaces are not terms: a long query of few terms is fine
    expect(parseQuery('a' + ' '.repeat(990) + 'b')).toMatchObject({ terms: [{ value: 'a' }, { value: 'b' }] });
    // the limit is checked first: an over-long text with another error names the limit
    expect(parseQuery('"unclosed ' + 'x'.repeat(1000))).toMatchObject({ position: 1000, message: expect.stringMatching(/^query too long/) });
  });
});

// ---- the property: any query up to the limit, over the samples --------------

const index = loadRootSync(SAMPLES);
const sessions = index.store.list();
const docs = sessions.map((s) => ({ s, meta: sessionMeta(s), doc: buildSearchDoc(s.events) }));
/** Characters a match pass can read: every entry's text, tool and reason, every session's id and cwd. */
const docChars = docs.reduce((n, d) => n + d.meta.id.length + (d.meta.cwd?.length ?? 0) + d.doc.reduce((m, e) => m + e.text.length + (e.tool?.length ?? 0) + (e.reason?.length ?? 0), 0), 0);
const rawChars = listSessionFiles(SAMPLES).reduce((n, f) => n + fs.readFileSync(f, 'utf8').length, 0);
/**
 * The fixed step budgets. Per text, a query folds it (at most once per term
 * when an entry's text and tool name alternate), searches it once per term,
 * and walks it once per word for a snippet; per file the raw prefilter folds
 * it once and searches it once per word. Needles are folded once each. The
 * budget depends on the limits and the samples, never on the query (a query
 * of 20,000 terms, one search per text each, would need 200 times it).
 */
const PASS_BUDGET = (3 * MAX_QUERY_TERMS + 4) * docChars + MAX_QUERY_TERMS * MAX_QUERY_LENGTH;
const FIND_BUDGET = (MAX_QUERY_TERMS + 1) * rawChars + PASS_BUDGET;

/** Counts the regular expressions built while `f` runs (none may be: no pattern comes from user input). */
function regexpsBuilt(f: () => void): number {
  const Real = globalThis.RegExp;
  let built = 0;
  globalThis.RegExp = new Proxy(Real, {
    construct(target, args, nt) {
      built++;
      return Reflect.construct(target, args, nt);
    },
    apply(target, self, args) {
      built++;
      return Reflect.apply(target, self, args);
    },
  });
  try {
    f();
  } finally {
    globalThis.RegExp = Real;
  }
  return built;
}

/** The literal steps `f` takes. */
function stepsOf(f: () => void): number {
  const before = literalSteps();
  f();
  return literalSteps() - before;
}

/** Answers a parsed query every way the app does: the Sessions filter's pass, the Turns search, `find`. */
function answer(q: Query): { filter: number; turns: number; find: number } {
  const out = { filter: 0, turns: 0, find: 0 };
  const built = regexpsBuilt(() => {
    out.filter = stepsOf(() => docs.forEach((d) => matchSession(q, d.meta, () => d.doc)));
    out.turns = stepsOf(() => docs.forEach((d) => turnMatches(q, d.s.events, d.doc)));
    out.find = stepsOf(() => findMatches(SAMPLES, q)); // the CLI's path: raw prefilter, read, match, snippets
  });
  expect(built).toBe(0);
  return out;
}
const withinBudget = (steps: ReturnType<typeof answer>) => {
  expect(steps.filter).toBeLessThanOrEqual(PASS_BUDGET);
  expect(steps.turns).toBeLessThanOrEqual(PASS_BUDGET);
  expect(steps.find).toBeLessThanOrEqual(FIND_BUDGET);
};

const meta = fc.constantFrom('a', 'A', 'e', 'é', 'É', 'İ', 'i', 'ı', 'ß', 'ẞ', 'ſ', 'S', 'K', 'Σ', 'ς', '😀', '\u0000', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '^', '$', '|', '/', ':', '-', '\u00a0');
const word = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('test', 'retry', 'bash', 'npm', 'the', 'e', 'a', 'flaky', 'vitest', 'ERROR', 'Assertion', '\\n', 'src/', '{"command"') },
  { weight: 4, arbitrary: fc.string({ unit: meta, minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: meta, minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 400 })).map(([w, n]) => w.repeat(n)) },
);
const bare = word.map((w) => w.replace(/[\s"]/g, '').replace(/^-+/, '') || 'x');
const term = fc.oneof(
  { weight: 5, arbitrary: bare },
  { weight: 2, arbitrary: fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => `"${ws.join(' ').replace(/"/g, '')}"`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('tool:', 'reason:', 'cwd:', 'id:'), bare).map(([f, v]) => f + v) },
  { weight: 1, arbitrary: fc.constantFrom('is:error', 'is:open', 'is:fork', 'is:root', 'is:damaged', 'after:2026-01-01', 'before:2030-01-01', 'reason:completed', 'tool:bash') },
);
const query = fc.array(fc.tuple(fc.boolean(), term).map(([neg, t]) => (neg ? '-' + t : t)), { minLength: 1, maxLength: MAX_QUERY_TERMS + 6 }).map((ts) => ts.join(' '));

describe('any query up to the limits, over the sample sessions', () => {
  it('the budgets are about the samples', () => {
    expect(sessions.length).toBeGreaterThanOrEqual(12);
    expect(docChars).toBeGreaterThan(10_000);
    expect(rawChars).toBeGreaterThan(docChars);
  });

  it('property: never throws, builds no regular expression, stays within a fixed step budget; past the limits a query error', () => {
    let answered = 0;
    fc.assert(
      fc.property(query, (text) => {
        const q = parseQuery(text);
        if (isQueryError(q)) {
          expect(q.position).toBeGreaterThanOrEqual(0);
          expect(q.position).toBeLessThan(text.length);
          if (text.length > MAX_QUERY_LENGTH) expect(q.message).toMatch(/^query too long: \d+ characters; a query holds at most 1000 characters$/);
          return;
        }
        expect(text.length).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
        expect(q.terms.length).toBeLessThanOrEqual(MAX_QUERY_TERMS);
        withinBudget(answer(q));
        answered++;
      }),
      { numRuns: runs(150) },
    );
    expect(answered).toBeGreaterThan(30); // most runs were answered, not refused
  }, PROPERTY_TIMEOUT);

  it.each([
    ['32 terms of one common letter', Array(32).fill('e').join(' ')],
    ['32 distinct words that occur', 'test retry bash npm the flaky vitest error e a s t r i n o l u c d p m h g f b y v k w x j'],
    ['one 1,000-character word', 'e'.repeat(1000)],
    ['500 escaped backslashes', '\\'.repeat(1000)],
    ['a 998-character phrase of spaces and a letter', `"${'e '.repeat(499)}"`],
    ['tool: with a 995-character value', 'tool:' + 'b'.repeat(995)],
    ['32 negated words', Array.from({ length: 32 }, (_, i) => `-w${i}`).join(' ')],
  ])('worst cases at the limits: %s', (_, text) => {
    const q = parseQuery(text);
    if (isQueryError(q)) throw new Error(q.message);
    const steps = answer(q);
    withinBudget(steps);
    expect(steps.filter).toBeGreaterThan(0); // the count sees the work
  });
});
