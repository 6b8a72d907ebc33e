// The literal matcher (src/session/literal.ts): case-insensitive exactly as
// the `/…/iu` regular expression it replaced, checked against the engine for
// every code point with case, and against the old matcher on random text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FOLD_EXCEPTIONS, foldCase, foldCodePoint, indexOfFolded, literalRanges, literalSteps } from '../../src/session/literal.js';
import { runs } from '../support/property.js';

const cp = (c: string) => c.codePointAt(0)!;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The matcher before: one global case-insensitive Unicode regular expression of the escaped needle. */
function regexRanges(text: string, needle: string): Array<[number, number]> {
  const re = new RegExp(escape(needle), 'giu');
  const out: Array<[number, number]> = [];
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push([m.index, m.index + m[0].length]);
  return out;
}

describe('foldCase: the classes of the regular-expression engine, for every code point', () => {
  const every: string[] = [];
  for (let c = 0; c < 0x110000; c++) if (c < 0xd800 || c > 0xdfff) every.push(String.fromCodePoint(c));
  const all = every.join('');
  // every code point that some case mapping or folding moves (the others fold to themselves)
  const cased = Array.from(all.matchAll(/[\p{Changes_When_Casemapped}\p{Changes_When_Casefolded}]/gu), (m) => m[0]);

  it('two code points fold alike exactly when /x/iu matches y; the fold keeps the UTF-16 length', () => {
    const T = cased.join('');
    const key = new Map(cased.map((c) => [c, foldCodePoint(cp(c))]));
    const bad: string[] = [];
    for (const c of cased) {
      expect(String.fromCodePoint(key.get(c)!).length).toBe(c.length);
      const engine = new Set(Array.from(T.matchAll(new RegExp(escape(c), 'giu')), (m) => m[0]));
      const mine = cased.filter((d) => key.get(d) === key.get(c));
      if (mine.length !== engine.size || mine.some((d) => !engine.has(d))) bad.push(`U+${cp(c).toString(16)}: engine ${[...engine].map((d) => cp(d).toString(16))} fold ${mine.map((d) => cp(d).toString(16))}`);
    }
    expect(bad).toEqual([]);
    expect(cased.length).toBeGreaterThan(2500);
  });

  it('code points without case fold to themselves; the whole-string fast path agrees with the per-code-point one', () => {
    const casedSet = new Set(cased);
    const withI = foldCase(all); // holds İ, whose toLowerCase is longer: folded one code point at a time
    const without = foldCase(all.replace('İ', 'x')); // the toLowerCase path
    expect(withI.length).toBe(all.length);
    expect(without.length).toBe(all.length);
    const a = Array.from(withI);
    const b = Array.from(without);
    const bad: string[] = [];
    every.forEach((c, i) => {
      const want = casedSet.has(c) ? String.fromCodePoint(foldCodePoint(cp(c))) : c;
      if (a[i] !== want || (c !== 'İ' && b[i] !== want)) bad.push(cp(c).toString(16));
    });
    expect(bad).toEqual([]);
  });

  it('the exception table is what the engine equates beyond lowercase', () => {
    for (const [from, to] of FOLD_EXCEPTIONS) {
      expect(new RegExp(escape(String.fromCodePoint(from)), 'iu').test(String.fromCodePoint(to))).toBe(true);
      expect(String.fromCodePoint(from).toLowerCase()).toBe(String.fromCodePoint(from));
    }
  });
});

describe('literal ranges', () => {
  it('ordinary text: case-insensitive, left to right, not overlapping', () => {
    expect(literalRanges('xxABCab', 'ab')).toEqual([[2, 4], [5, 7]]);
    expect(literalRanges('aaaa', 'aa')).toEqual([[0, 2], [2, 4]]);
    expect(literalRanges('Straße STRASSE straẞe', 'STRAßE')).toEqual([[0, 6], [15, 21]]); // ß equals ẞ, not "ss"
    expect(literalRanges('ΣΟΦΟΣ σοφος σοφοσ', 'σοφοσ')).toEqual([[0, 5], [6, 11], [12, 17]]); // final sigma
    expect(literalRanges('Kelvin \u212Aelvin', 'kelvin')).toEqual([[0, 6], [7, 13]]);
    expect(literalRanges('a.b a*b [x] \\d', 'a*b')).toEqual([[4, 7]]); // regex characters are letters
    expect(literalRanges('\\\\\\', '\\\\')).toEqual([[0, 2]]);
    expect(literalRanges('anything', '')).toEqual([]);
  });

  it('indexes point into the original text where lowercasing changes the length (İ)', () => {
    expect('İ'.toLowerCase().length).toBe(2);
    expect(literalRanges('İİ abc ABC', 'abc')).toEqual([[3, 6], [7, 10]]);
    expect(literalRanges('i İ I ı', 'İ')).toEqual([[2, 3]]); // İ equals only itself, as /İ/iu
    expect(literalRanges('İstanbul ISTANBUL', 'istanbul')).toEqual([[9, 17]]);
    expect(literalRanges('😀İ😀x', 'x')).toEqual([[5, 6]]);
  });

  it('a match never starts or ends inside a surrogate pair', () => {
    expect(literalRanges('😀', '\ude00')).toEqual([]);
    expect(literalRanges('😀', '\ud83d')).toEqual([]);
    expect(literalRanges('\ude00 😀', '\ude00')).toEqual([[0, 1]]);
  });

  it('property: the same ranges as the regular expression it replaced', () => {
    const unit = fc.constantFrom('a', 'B', 'k', 'K', '\u212A', 's', 'S', 'ſ', 'ß', 'ẞ', 'İ', 'i', 'I', 'ı', 'σ', 'ς', 'Σ', 'θ', 'ϑ', 'é', 'É', '😀', '\ud83d', '\ude00', '.', '*', '\\', '(', '[', '^', '$', ' ');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), fc.string({ unit, minLength: 1, maxLength: 4 }), (text, needle) => {
        expect(literalRanges(text, needle)).toEqual(regexRanges(text, needle));
      }),
      { numRuns: runs(5000) },
    );
  });

  it('the step counter: one search moves over the text at most once', () => {
    const text = foldCase('ab'.repeat(10_000));
    const before = literalSteps();
    let n = 0;
    for (let i = indexOfFolded(text, 'ab'); i >= 0; i = indexOfFolded(text, 'ab', i + 2)) n++;
    expect(n).toBe(10_000);
    expect(literalSteps() - before).toBeLessThanOrEqual(text.length);
    const miss = literalSteps();
    expect(indexOfFolded(text, 'x'.repeat(999))).toBe(-1);
    expect(literalSteps() - miss).toBe(text.length);
  });
});
