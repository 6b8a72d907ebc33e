// Literal, case-insensitive text search: how the query language's words,
// phrases and field values and the reader's `/` search are compared. No
// regular expression is ever built from user input.
//
// Case-insensitive as a `/…/iu` regular expression compares (that was the rule
// before; it is kept): two code points are equal when Unicode simple case
// folding maps them to the same code point (K, k and the Kelvin sign K; ſ and
// s; ς and σ; ß and ẞ, but not ß and "ss"; İ only equals İ). Both sides are
// folded code point by code point to one representative of their class, which
// always has the same length in UTF-16 as the original, so an index into the
// folded text is an index into the original text; then the folded needle is
// found with indexOf. Linear in the text for any needle (no backtracking, no
// size limit of a compiled pattern). A test checks the representatives against
// the regular-expression engine for every code point that has case.

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Lowercase code points that `/…/iu` equates with another lowercase code
 * point, mapped to the one that stands for their class (ſ → s, ς → σ, ϑ → θ,
 * µ → μ, the Greek iota subscript → ι…). Every other code point's
 * representative is its lowercase (İ, whose lowercase is two code points, is
 * its own). A test derives this table again from the regular-expression
 * engine for every code point with case, so a new Unicode version cannot
 * change the matching silently.
 */
const SAME_AS: ReadonlyMap<number, number> = new Map([
  [0x017f, 0x0073], [0x00b5, 0x03bc], [0x0345, 0x03b9], [0x1fbe, 0x03b9], [0x1fd3, 0x0390], [0x03d0, 0x03b2], [0x03f5, 0x03b5],
  [0x03d1, 0x03b8], [0x03f0, 0x03ba], [0x03d6, 0x03c0], [0x03f1, 0x03c1], [0x03c2, 0x03c3], [0x03d5, 0x03c6], [0x1fe3, 0x03b0],
  [0x1c80, 0x0432], [0x1c81, 0x0434], [0x1c82, 0x043e], [0x1c83, 0x0441], [0x1c84, 0x0442], [0x1c85, 0x0442], [0x1c86, 0x044a],
  [0x1c87, 0x0463], [0x1c88, 0xa64b], [0x1e9b, 0x1e61], [0xfb06, 0xfb05],
]);
/** The table for tests. */
export const FOLD_EXCEPTIONS: ReadonlyMap<number, number> = SAME_AS;
const SAME_AS_CHARS = new Map([...SAME_AS].map(([a, b]) => [String.fromCodePoint(a), String.fromCodePoint(b)]));
/** The table's keys as one character class (built from the constant table above, never from input). */
const SAME_AS_RE = new RegExp(`[${[...SAME_AS_CHARS.keys()].join('')}]`, 'gu');

const units = (cp: number) => (cp > 0xffff ? 2 : 1);

/** The representative of a code point's case class: same UTF-16 length as the code point. */
function computeKey(cp: number): number {
  const lower = String.fromCodePoint(cp).toLowerCase();
  const l = lower.codePointAt(0)!;
  if (lower.length !== units(cp) || units(l) !== lower.length) return cp; // İ
  return SAME_AS.get(l) ?? l;
}

/** Representatives of the Basic Multilingual Plane, filled on first use (0: not yet). */
const bmpKeys = new Uint16Array(0x10000);
const astralKeys = new Map<number, number>();

/** The representative of `cp`'s case class (same UTF-16 length as `cp`). */
export function foldCodePoint(cp: number): number {
  if (cp < 0x10000) {
    if (cp >= 0xd800 && cp <= 0xdfff) return cp; // a lone surrogate
    let k = bmpKeys[cp];
    if (k === 0 && cp !== 0) bmpKeys[cp] = k = computeKey(cp);
    return k;
  }
  let k = astralKeys.get(cp);
  if (k === undefined) astralKeys.set(cp, (k = computeKey(cp)));
  return k;
}

// ---- the work counter -------------------------------------------------------

let steps = 0;

/**
 * Characters this module has folded or searched over since the process
 * started: a machine-independent measure of matching work (tests bound it
 * instead of timing it). indexOf counts the span it moved over.
 */
export const literalSteps = (): number => steps;

/** `s` folded code point by code point; same length, same indexes. */
export function foldCase(s: string): string {
  steps += s.length;
  if (ASCII.test(s)) return s.toLowerCase();
  const lower = s.toLowerCase();
  // toLowerCase keeps the length except for İ (→ i + combining dot): then fold one code point at a time
  if (lower.length === s.length) return lower.replace(SAME_AS_RE, (c) => SAME_AS_CHARS.get(c)!);
  const out: string[] = [];
  let run = 0; // start of the current run of code points that fold to themselves
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i)!;
    const n = units(cp);
    const k = foldCodePoint(cp);
    if (k !== cp) {
      out.push(s.slice(run, i), String.fromCodePoint(k));
      run = i + n;
    }
    i += n;
  }
  out.push(s.slice(run));
  return out.join('');
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * The first index ≥ `from` where `needle` occurs in `text` (both folded), or -1.
 * As a `u` regular expression, a match never starts or ends inside a surrogate pair.
 */
export function indexOfFolded(text: string, needle: string, from = 0): number {
  let i = text.indexOf(needle, from);
  const splits = isLow(needle.charCodeAt(0)) || isHigh(needle.charCodeAt(needle.length - 1));
  while (splits && i >= 0 && ((i > 0 && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1))) || (isHigh(text.charCodeAt(i + needle.length - 1)) && isLow(text.charCodeAt(i + needle.length)))))
    i = text.indexOf(needle, i + 1);
  steps += Math.max(0, (i < 0 ? text.length : i + needle.length) - from);
  return i;
}

/** Start and end (exclusive) of every occurrence of `needle` in `text`, left to right, not overlapping (as a global regular expression finds them). */
export function literalRanges(text: string, needle: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (needle === '') return out;
  const t = foldCase(text);
  const n = foldCase(needle);
  for (let i = indexOfFolded(t, n); i >= 0; i = indexOfFolded(t, n, i + n.length)) out.push([i, i + n.length]);
  return out;
}

/** Whether `needle` occurs in `text`, case-insensitively. */
export const containsLiteral = (text: string, needle: string): boolean => indexOfFolded(foldCase(text), foldCase(needle)) >= 0;
