import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runs } from '../../support/property.js';
import {
  displayWidth,
  fit,
  fitTail,
  isSafe,
  padEnd,
  sanitizeBlock,
  sanitizeInline,
  truncate,
} from '../../../src/view/text/sanitize.js';

/** Anything a terminal could act on: C0, DEL, C1, bidi controls, line/paragraph separators, lone surrogates. */
const DANGEROUS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|\p{Cs}/u;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectInert(out: string): void {
  expect(out).not.toMatch(DANGEROUS);
  expect(out).not.toMatch(BIDI);
  // and byte-wise, once encoded the way it reaches the terminal
  for (const byte of Buffer.from(out, 'utf8')) {
    // UTF-8 continuation bytes 0x80–0xBF are fine; a raw C1 char would be encoded C2 80–C2 9F
    expect(byte < 0x20 || byte === 0x7f).toBe(false);
  }
  expect(Buffer.from(out, 'utf8').includes(Buffer.from([0xc2, 0x9b]))).toBe(false);
}

describe('sanitizeInline: terminal attacks are rendered inert', () => {
  const attacks: Record<string, string> = {
    'OSC 0 title': 'before\x1b]0;pwned\x07after',
    'OSC 52 clipboard': '\x1b]52;c;ZXZpbA==\x07',
    'clear screen + home': '\x1b[2J\x1b[H',
    'CSI via C1': '\x9b2J',
    'OSC 8 hyperlink': '\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\',
    'OSC via C1 + ST via C1': '\x9d0;pwned\x9c',
    BEL: 'ding\x07',
    'bidi override': 'abc\u202Etxt.exe',
    'bidi isolates + marks': '\u2066x\u2069\u200e\u200f\u061c',
    'lone high surrogate': 'a\ud800b',
    'lone low surrogate': 'a\udc00b',
    'cursor save/restore + SGR': '\x1b7\x1b[31mred\x1b[0m\x1b8',
    'NUL and DEL': 'a\x00b\x7f',
    'line separators': 'a\u2028b\u2029c',
  };
  for (const [name, input] of Object.entries(attacks)) {
    it(name, () => {
      const out = sanitizeInline(input);
      expectInert(out);
      expect(sanitizeInline(out)).toBe(out);
    });
  }

  it('uses visible control pictures for C0 and DEL', () => {
    expect(sanitizeInline('\x1b]0;pwned\x07')).toBe('␛]0;pwned␇');
    expect(sanitizeInline('\x00')).toBe('␀');
    expect(sanitizeInline('\x7f')).toBe('␡');
    expect(sanitizeInline('\x1b[2J\x1b[H')).toBe('␛[2J␛[H');
  });

  it('uses <U+XXXX> markers for C1, bidi, separators and lone surrogates', () => {
    expect(sanitizeInline('\x9b2J')).toBe('<U+009B>2J');
    expect(sanitizeInline('abc\u202Edef')).toBe('abc<U+202E>def');
    expect(sanitizeInline('\u2028')).toBe('<U+2028>');
    expect(sanitizeInline('x\ud800y')).toBe('x<U+D800>y');
    expect(sanitizeInline('x\udfffy')).toBe('x<U+DFFF>y');
  });

  it('shows line breaks, CR and tabs as one-line text', () => {
    expect(sanitizeInline('a\nb')).toBe('a⏎ b');
    expect(sanitizeInline('a\r\nb')).toBe('a⏎ b');
    expect(sanitizeInline('a\rb')).toBe('a␍b');
    expect(sanitizeInline('a\tb')).toBe('a b');
  });

  it('leaves ordinary text, wide chars and emoji (incl. ZWJ sequences and pairs) untouched', () => {
    for (const s of ['hello world', '日本語のテキスト', '😀 👩‍👩‍👧 🇯🇵 👍🏽', 'e\u0301', 'a\u200db', '']) {
      expect(sanitizeInline(s)).toBe(s);
      expect(isSafe(s)).toBe(true);
    }
  });
});

describe('sanitizeBlock', () => {
  it('splits on LF and CRLF, sanitising each line', () => {
    expect(sanitizeBlock('one\r\ntwo\nthree\x1b[2J')).toEqual(['one', 'two', 'three␛[2J']);
  });

  it('keeps a lone CR visible', () => {
    expect(sanitizeBlock('progress 10%\rprogress 100%')).toEqual(['progress 10%␍progress 100%']);
  });

  it('keeps empty lines', () => {
    expect(sanitizeBlock('a\n\nb\n')).toEqual(['a', '', 'b', '']);
  });

  it('expands tabs to 2-column stops by display width', () => {
    expect(sanitizeBlock('\tx')).toEqual(['  x']);
    expect(sanitizeBlock('a\tb')).toEqual(['a b']);
    expect(sanitizeBlock('ab\tc')).toEqual(['ab  c']);
    expect(sanitizeBlock('abc\t\td')).toEqual(['abc   d']);
    expect(sanitizeBlock('日\tx')).toEqual(['日  x']); // 日 is 2 columns wide
  });

  it('renders every attack inert line by line', () => {
    const lines = sanitizeBlock('\x1b]0;pwned\x07\n\x9b2J\t\u202e\n\ud800\x1b]52;c;ZXZpbA==\x07');
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      expectInert(l);
      expect(l.includes('\t')).toBe(false);
    }
  });
});

describe('displayWidth / truncate / padEnd / fit', () => {
  it('measures wide chars and emoji as 2, combining marks as 0', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('😀')).toBe(2);
    expect(displayWidth('👩‍👩‍👧')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('␛[2J')).toBe(4);
  });

  it('leaves strings that fit alone', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('日本', 4)).toBe('日本');
    expect(truncate('', 3)).toBe('');
  });

  it('cuts with an ellipsis', () => {
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('hello', 1)).toBe('…');
    expect(truncate('hello', 0)).toBe('');
    expect(truncate('hello', -3)).toBe('');
  });

  it('never exceeds the width with wide chars', () => {
    expect(truncate('日本語テキスト', 6)).toBe('日本…'); // 2+2+1
    expect(truncate('日本語テキスト', 5)).toBe('日本…');
    expect(truncate('日本語テキスト', 4)).toBe('日…');
  });

  it('never splits a surrogate pair, emoji sequence or combining mark', () => {
    expect(truncate('😀😀😀', 4)).toBe('😀…');
    expect(truncate('😀😀😀', 2)).toBe('…');
    expect(truncate('👩‍👩‍👧👩‍👩‍👧', 3)).toBe('👩‍👩‍👧…');
    expect(truncate('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
  });

  it('pads and fits', () => {
    expect(padEnd('ab', 4)).toBe('ab  ');
    expect(padEnd('日', 4)).toBe('日  ');
    expect(padEnd('abcdef', 4)).toBe('abcdef');
    expect(fit('日本語', 4)).toBe('日… ');
    expect(displayWidth(fit('日本語', 4))).toBe(4);
    expect(fit('ab', 4)).toBe('ab  ');
  });
});

describe('properties', () => {
  // Code units from anywhere, biased towards the interesting ranges.
  const unit = fc.oneof(
    fc.integer({ min: 0, max: 0xa0 }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u2028', '\u2029', '\r\n', '\t', '\x1b]0;', '\x1b[', '\x07'),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.string({ unit: 'grapheme' }),
  );
  const anyString = fc.oneof(fc.string({ unit, maxLength: 60 }), fc.string({ unit: 'binary' }), fc.string());

  it('sanitizeInline output has no control, bidi control or lone surrogate, and is idempotent', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const once = sanitizeInline(s);
        expect(once).not.toMatch(DANGEROUS);
        expect(isSafe(once)).toBe(true);
        const twice = sanitizeInline(once);
        expect(twice).not.toMatch(DANGEROUS);
        expect(twice).toBe(once);
      }),
      { numRuns: runs(2000) },
    );
  });

  it('sanitizeBlock lines have no control (incl. tab) or bidi control', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const lines = sanitizeBlock(s);
        expect(lines.length).toBe(s.split(/\r?\n/).length);
        for (const l of lines) {
          expect(l).not.toMatch(DANGEROUS);
          expect(sanitizeInline(l)).toBe(l);
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('truncate never exceeds the width and is a prefix (plus …) of its input', () => {
    fc.assert(
      fc.property(anyString.map(sanitizeInline), fc.integer({ min: 0, max: 40 }), (s, w) => {
        const t = truncate(s, w);
        expect(displayWidth(t)).toBeLessThanOrEqual(w);
        if (t === s) return;
        if (w === 0) {
          expect(t).toBe('');
          return;
        }
        expect(t.endsWith('…')).toBe(true);
        expect(s.startsWith(t.slice(0, -1))).toBe(true);
        expect(t).not.toMatch(/\p{Cs}/u);
      }),
      { numRuns: runs(2000) },
    );
  });
});

describe('truncate on very long text', () => {
  it('cuts a 200,000-character non-ASCII string quickly and correctly', () => {
    const long = 'café — '.repeat(30_000);
    const out = truncate(long, 50); // took ~35 s before: Node 20 segments the whole input quadratically
    expect(displayWidth(out)).toBe(50);
    expect(out.endsWith('…')).toBe(true);
    expect(long.startsWith(out.slice(0, -1))).toBe(true);
  });
  it('adds the ellipsis even when the measured prefix is made of zero-width marks', () => {
    const marks = 'e' + '\u0301'.repeat(5_000);
    const out = truncate(marks, 3);
    expect(out.endsWith('…')).toBe(true);
  });
});

describe('fitTail (a field\'s text before its caret)', () => {
  it('keeps the end that fits, whole graphemes, no ellipsis', () => {
    expect(fitTail('abcdef', 3)).toBe('def');
    expect(fitTail('abc', 5)).toBe('abc');
    expect(fitTail('ab日本', 3)).toBe('本');
    expect(fitTail('x😀😀', 4)).toBe('😀😀');
    expect(fitTail('abc', 0)).toBe('');
  });
  it('property: a suffix no wider than the width, and as long as it can be', () => {
    const unit = fc.constantFrom('a', 'é', '日', '😀', 'e\u0301', ' ');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 1, max: 30 }), (parts, w) => {
        const s = parts.join('');
        const t = fitTail(s, w);
        expect(s.endsWith(t)).toBe(true);
        expect(displayWidth(t)).toBeLessThanOrEqual(w);
        const kept = t === '' ? parts.length : parts.findIndex((_, i) => parts.slice(i).join('') === t); // the first grapheme kept
        expect(kept).toBeGreaterThanOrEqual(0);
        if (kept > 0) expect(displayWidth(parts[kept - 1] + t)).toBeGreaterThan(w); // the one before it would not fit
      }),
      { numRuns: runs(500) },
    );
  });
  it('a long text is measured only near its end', () => {
    expect(fitTail('é'.repeat(1_000_000) + 'xyz', 4)).toBe('éxyz');
  });
});
