// The bundle's memos of Ink's per-line text work (scripts/ink-memo.mjs): each
// answers what the real function answers, on any string, in any order of
// calls, holds at most its bound, and the built bin really uses them.
import { styledCharsFromTokens, styledCharsToString, tokenize } from '@alcalzone/ansi-tokenize';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs build script without types
import { lru, memoStyledChars, memoTokenize, memoWidth } from '../../scripts/ink-memo.mjs';

type Width = (s: string, o?: object) => number;
type Tokenize = typeof tokenize;
type StyledChars = typeof styledCharsFromTokens;

/** screen-like lines: ANSI styles, wide and combining characters, emoji, `…` and box drawing among ASCII */
const piece = fc.constantFrom('a', 'Z', ' ', '…', '▶', '│', '⚠', '你', '\u0301', '👍🏽', '\x1b[1m', '\x1b[22m', '\x1b[33m', '\x1b[39m', '\x1b[7m', '\x1b[27m', '\t');
const line = fc.array(piece, { maxLength: 40 }).map((a) => a.join(''));

describe('ink memos (scripts/ink-memo.mjs)', () => {
  it('string-width, tokenize and styled chars through the memos equal the real ones, call after call', () => {
    const width: Width = memoWidth(stringWidth, 8);
    const tok: Tokenize = memoTokenize(tokenize, 8);
    const chars: StyledChars = memoStyledChars(styledCharsFromTokens);
    // a small bound and a small alphabet of lines: hits, misses and evictions all happen
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 60 }), fc.array(line, { minLength: 12, maxLength: 12 }), (picks, lines) => {
        for (const i of picks) {
          const s = lines[i];
          expect(width(s)).toBe(stringWidth(s));
          expect(width(s, { countAnsiEscapeCodes: true })).toBe(stringWidth(s, { countAnsiEscapeCodes: true }));
          const styled = chars(tok(s));
          expect(styled).toEqual(styledCharsFromTokens(tokenize(s)));
          expect(styledCharsToString(styled)).toBe(styledCharsToString(styledCharsFromTokens(tokenize(s))));
        }
      }),
    );
  });

  it('a line seen again gets the same objects (the point of the memo); the LRU keeps at most its bound', () => {
    const tok: Tokenize = memoTokenize(tokenize, 4);
    const chars: StyledChars = memoStyledChars(styledCharsFromTokens);
    const a = '\x1b[7m▶ boundary  idle-1 …\x1b[27m';
    expect(chars(tok(a))).toBe(chars(tok(a)));
    const m = lru(3);
    for (const k of ['a', 'b', 'c']) m.set(k, k);
    m.get('a'); // a is now the most recent: b leaves first
    m.set('d', 'd');
    expect(m.size).toBe(3);
    expect(m.get('b')).toBeUndefined();
    expect(m.get('a')).toBe('a');
  });

  it('the built bin wraps Ink’s string-width and ansi-tokenize in them', () => {
    // the bin and its chunks (the browser's code is a chunk of its own)
    const dist = path.resolve(__dirname, '../../dist');
    const chunks = fs.readdirSync(path.join(dist, 'chunks')).map((f) => path.join(dist, 'chunks', f));
    const bin = [path.join(dist, 'dsh-browse.mjs'), ...chunks].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    expect(bin).toMatch(/= memoWidth\(/);
    expect(bin).toMatch(/= memoTokenize\(/);
    expect(bin).toMatch(/= memoStyledChars\(/);
  });
});
