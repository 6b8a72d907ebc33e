// The content index keeps the trigrams of a log's folded bytes; a query asks
// for the trigrams of its folded pieces. These properties hold the two to the
// matcher's folding: whatever a piece matches in a text, its trigrams are
// among the text's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldCase } from '../../src/session/literal.js';
import { hasTrigram, holdsHidingEscape, TrigramCollector, trigramsOf } from '../../src/session/trigrams.js';
import { runs } from '../support/property.js';
import { UNIT } from '../support/random-logs.js';

const text = fc.array(fc.constantFrom(...UNIT, 'ß', 'ẞ', 'Σ', 'ς', 'σ', '\u0130', 'ǅ', '中文', 'x'), { minLength: 0, maxLength: 40 }).map((a) => a.join(''));

function collect(s: string, cut?: number): Uint32Array {
  const c = new TrigramCollector();
  const b = Buffer.from(s);
  // fed in two pieces at a line boundary when asked (a trigram never spans two feeds)
  if (cut !== undefined) {
    const nl = b.indexOf(10);
    if (nl >= 0) {
      c.add(b, 0, nl + 1);
      c.add(b, nl + 1);
      return c.take();
    }
  }
  c.add(b);
  return c.take();
}

describe('trigrams', () => {
  it('every trigram of a piece the matcher finds in a text is among the text bytes\' trigrams', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, a, b) => {
        // a piece of the text, in another case: the matcher finds it folded
        const i = Math.min(a, s.length);
        const j = Math.min(s.length, i + (b % 12));
        let piece = s.slice(i, j);
        if (/[\n]/.test(piece) || piece.length === 0) return;
        piece = [...piece].map((ch, k) => (k % 2 ? ch.toUpperCase() : ch.toLowerCase())).join('');
        const folded = foldCase(piece);
        if (!foldCase(s).includes(folded)) return; // upper-casing changed its length (ß → SS): not the same piece
        const have = collect(s, a);
        for (const t of trigramsOf([folded])) expect(hasTrigram(have, t)).toBe(true);
      }),
      { numRuns: runs(3000) },
    );
  });

  it('a text that lacks a word lacks some of its trigrams (the index narrows)', () => {
    const have = collect('{"type":"user/message","text":"the quick brown fox"}\n');
    expect([...trigramsOf(['fox'])].every((t) => hasTrigram(have, t))).toBe(true);
    expect([...trigramsOf(['zebra'])].every((t) => hasTrigram(have, t))).toBe(false);
    expect(trigramsOf(['ab'])).toHaveLength(0);
  });

  it('the Kelvin sign and the long s fold into ASCII trigrams', () => {
    const have = collect('"\u212aey \u017fet"');
    for (const w of ['key', 'set']) expect([...trigramsOf([w])].every((t) => hasTrigram(have, t)), w).toBe(true);
  });

  it('marks text that may hide a word: escapes other than controls, and prompt/blocked', () => {
    const hides = (s: string) => {
      const c = new TrigramCollector();
      c.add(Buffer.from(s));
      return c.always;
    };
    for (const s of ['"w\\u0061tch"', '"a\\/b"', '"a\\\\\\/b"', '"\\u00e9"', '{"type":"prompt/blocked"}']) expect(hides(s), s).toBe(true);
    // escapes are pairs: an escaped backslash before u or / hides nothing
    for (const s of ['"a\\nb"', '"\\u001b[0m"', '"\\u007f"', '"\\\\"', '"plain"', '"C:\\\\users"', '"a\\\\/b"']) expect(hides(s), s).toBe(false);
    expect(holdsHidingEscape(Buffer.from('"\\u0'), 0, 4)).toBe(true);
  });

  it('a prompt/blocked event adds its blocks\' text as the search joins it (a word may span two blocks)', () => {
    const line = JSON.stringify({ type: 'prompt/blocked', seq: 3, time: 1, data: { content: [{ type: 'text', text: 'zqx' }, { type: 'text', text: 'jrare' }], reason: 'policy' } });
    const c = new TrigramCollector();
    c.add(Buffer.from(line + '\n'));
    expect(c.always).toBe(false);
    const have = c.take();
    expect([...trigramsOf(['zqxjrare'])].every((t) => hasTrigram(have, t))).toBe(true);
    // a line naming it that is no event: anything may be salvaged from it
    const torn = new TrigramCollector();
    torn.add(Buffer.from('{"type":"prompt/blocked","seq":3,"da\n'));
    expect(torn.always).toBe(true);
  });

  it('take() empties the collector for the next part', () => {
    const c = new TrigramCollector();
    c.add(Buffer.from('abcdef'));
    expect(c.take()).toHaveLength(4);
    c.add(Buffer.from('xyz'));
    expect([...c.take()]).toEqual([...trigramsOf(['xyz'])]);
  });
});
