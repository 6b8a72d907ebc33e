/**
 * Terminal-safe text. Every string that came from a session file goes through
 * `sanitizeInline` (one-line rows) or `sanitizeBlock` (multi-line panes) before
 * it reaches Ink, so a log line can never move the cursor, clear the screen,
 * set the window title, write the clipboard (OSC 52), open a hyperlink, ring
 * the bell or reorder text with bidi overrides.
 *
 * Every dangerous code point is replaced by visible, inert text:
 *   - C0 controls 0x00–0x1F and DEL 0x7F  -> Control Pictures (ESC -> ␛, BEL -> ␇, NUL -> ␀, DEL -> ␡)
 *   - C1 controls 0x80–0x9F               -> `<U+009B>`
 *   - bidi controls, U+2028/U+2029        -> `<U+202E>`
 *   - lone surrogates                     -> `<U+D800>`
 *   - newline (and CRLF) inline           -> `⏎ `; tab inline -> one space
 * The replacements are themselves printable and map to themselves, so
 * sanitising is idempotent: `sanitizeInline(sanitizeInline(s)) === sanitizeInline(s)`.
 *
 * Widths are measured with `string-width`, the same function Ink uses for layout.
 */
import stringWidth from 'string-width';

/** Shown for a line break inside a one-line row. */
export const NEWLINE_MARKER = '⏎ ';
/** Appended by `truncate` when it cuts. */
export const ELLIPSIS = '…';
/** Tab stops used by `sanitizeBlock`. */
export const TAB_STOP = 2;

// In unicode mode `\p{Cs}` matches only *lone* surrogates: a well-formed pair
// is one code point and does not match.
const UNSAFE_CLASS =
  '\\p{Cc}\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069\\u2028\\u2029\\p{Cs}';
const UNSAFE_TEST = new RegExp(`[${UNSAFE_CLASS}]`, 'u');
const UNSAFE_INLINE = new RegExp(`\\r\\n|[${UNSAFE_CLASS}]`, 'gu');
const UNSAFE_LINE = new RegExp(`[${UNSAFE_CLASS}]`, 'gu');

function hexMarker(code: number): string {
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Visible replacement for one unsafe code point (tab and newline handled by callers). */
function replaceOne(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code <= 0x1f) return String.fromCharCode(0x2400 + code); // ␀..␟ (ESC -> ␛, CR -> ␍)
  if (code === 0x7f) return '\u2421'; // ␡
  return hexMarker(code); // C1, bidi, line/paragraph separators, lone surrogates
}

function replaceInline(ch: string): string {
  if (ch === '\n' || ch === '\r\n') return NEWLINE_MARKER;
  if (ch === '\t') return ' ';
  return replaceOne(ch);
}

/** True when `s` contains nothing that `sanitizeInline` would change. */
export function isSafe(s: string): boolean {
  return !UNSAFE_TEST.test(s);
}

/** Make a string safe for a single terminal row. */
export function sanitizeInline(s: string): string {
  if (!UNSAFE_TEST.test(s)) return s;
  return s.replace(UNSAFE_INLINE, replaceInline);
}

/** Expand tabs to `TAB_STOP`-column stops, measuring display width. `line` has no other controls. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let col = 0;
  const parts = line.split('\t');
  for (let i = 0; i < parts.length; i++) {
    const text = parts[i];
    if (i > 0) {
      const n = TAB_STOP - (col % TAB_STOP);
      out += ' '.repeat(n);
      col += n;
    }
    out += text;
    col += stringWidth(text);
  }
  return out;
}

/**
 * Make a (possibly multi-line) string safe for a detail pane: one safe row per
 * line. Splits on `\n` and `\r\n`; a lone `\r` stays visible as `␍`; tabs
 * expand to 2-column stops.
 */
export function sanitizeBlock(s: string): string[] {
  return s.split(/\r?\n/).map((line) => {
    const tabbed = line.includes('\t');
    // Tabs survive this pass (replaced below by spaces): the replacement of every
    // other unsafe char is tab-free, so expansion sees only real tabs.
    const safe = UNSAFE_TEST.test(line)
      ? line.replace(UNSAFE_LINE, (ch) => (ch === '\t' ? '\t' : replaceOne(ch)))
      : line;
    return tabbed ? expandTabs(safe) : safe;
  });
}

/** Display width in terminal columns (wide CJK and emoji count 2, combining marks 0). */
export function displayWidth(s: string): number {
  return stringWidth(s);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Cut `s` to at most `width` columns, ending with `…` when anything was cut.
 * Cuts only between grapheme clusters, so a surrogate pair, an emoji sequence or
 * a base letter and its combining marks are never split. Pass sanitised text:
 * controls have no width and are not accounted for.
 */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  // Fast path: printable ASCII, width == length.
  if (/^[\x20-\x7e]*$/.test(s)) {
    return s.length <= width ? s : s.slice(0, width - 1) + ELLIPSIS;
  }
  // Node 20's Intl.Segmenter is quadratic in the input: measure only a prefix
  // that is surely wider than `width` (a column takes at least one code unit;
  // the slack covers zero-width marks), never splitting a surrogate pair.
  const limit = width * 8 + 64;
  let cut = false;
  if (s.length > limit) {
    const end = s.charCodeAt(limit - 1) >= 0xd800 && s.charCodeAt(limit - 1) <= 0xdbff ? limit - 1 : limit;
    s = s.slice(0, end);
    cut = true;
  }
  if (!cut && stringWidth(s) <= width) return s;
  const budget = width - 1; // room for the ellipsis
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(s)) {
    const w = stringWidth(segment);
    if (used + w > budget) break;
    out += segment;
    used += w;
  }
  return out + ELLIPSIS;
}

/**
 * The end of `s` that fits in `width` columns (whole grapheme clusters, no
 * ellipsis): a field's text before its caret. Linear: only a tail that is
 * surely wider than `width` is measured (as truncate measures a prefix).
 */
export function fitTail(s: string, width: number): string {
  if (width <= 0) return '';
  const limit = width * 8 + 64;
  if (s.length > limit) {
    let from = s.length - limit;
    const c = s.charCodeAt(from);
    if (c >= 0xdc00 && c <= 0xdfff) from++; // not inside a surrogate pair
    s = s.slice(from);
  }
  if (stringWidth(s) <= width) return s;
  const parts = Array.from(graphemes.segment(s), (g) => g.segment);
  let used = 0;
  let k = parts.length;
  while (k > 0) {
    const w = stringWidth(parts[k - 1]);
    if (used + w > width) break;
    used += w;
    k--;
  }
  return parts.slice(k).join('');
}

/** Pad `s` with spaces on the right to `width` columns (unchanged if already as wide or wider). */
export function padEnd(s: string, width: number): string {
  const w = stringWidth(s);
  return w >= width ? s : s + ' '.repeat(width - w);
}

/** Exactly `width` columns: truncate, then pad (also fills the gap left when a wide char could not fit). */
export function fit(s: string, width: number): string {
  return padEnd(truncate(s, width), width);
}

/** `…/tail` of a path in at most `width` columns. */
export function pathTail(p: string, width: number): string {
  if (displayWidth(p) <= width) return p;
  const chars = [...p];
  let out = '';
  while (chars.length && displayWidth('…' + chars[chars.length - 1] + out) <= width) out = chars.pop()! + out;
  return '…' + out;
}
