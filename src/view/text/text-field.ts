// One-line text field (the Sessions filter, the fork child id), edited as in
// readline: a caret, Left/Right/Home/End, Backspace/Delete per press,
// Ctrl-A/E/U/W/K, and by word Alt-B/F (or Alt/Ctrl-Left/Right), Alt-D,
// Alt-Backspace. Control keys never insert letters; a paste inserts its
// printable text, a line break in it as one space (the field has one line). Positions are grapheme boundaries, so an emoji or a
// combining mark is never split. At most MAX_FIELD_LENGTH characters.
import type { KeyPress } from '../app/keys.js';

/**
 * The most characters (UTF-16) a field holds; a paste or a key past it is cut
 * there. Every key press re-reads the field (and Node 20's grapheme
 * segmenter is quadratic in its input), so an unbounded field would let a
 * pasted log block the keyboard. Twice the query language's limit
 * (MAX_QUERY_LENGTH), so an over-long query is shown as its error rather
 * than cut silently to a valid one.
 */
export const MAX_FIELD_LENGTH = 2000;

/** The start of `s` that fits in `room` characters, never splitting a surrogate pair. */
function cutTo(s: string, room: number): string {
  if (s.length <= room) return s;
  if (room <= 0) return '';
  const last = s.charCodeAt(room - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? room - 1 : room);
}

export interface TextField {
  text: string;
  /** caret position in graphemes, 0..length */
  caret: number;
}

/** Typed text only: control and format characters (a pasted newline or escape) are dropped. */
export const printable = (s: string): string => s.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '');

const LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/g;

/**
 * A paste as one line: each line break (CR, LF, CRLF) between text is one
 * space, so two pasted lines stay two words ("bump\nvitest" is "bump vitest",
 * not "bumpvitest"); breaks at its ends are dropped, as a copied line usually
 * carries its newline and a child id must not gain a space.
 */
export function pastedLine(s: string): string {
  const lines = s.split(LINE_BREAK);
  let from = 0;
  let to = lines.length;
  while (from < to && lines[from] === '') from++;
  while (to > from && lines[to - 1] === '') to--;
  return lines.slice(from, to).join(' ');
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const split = (s: string): string[] => [...segmenter.segment(s)].map((g) => g.segment);

export const textField = (text = ''): TextField => {
  const t = cutTo(text, MAX_FIELD_LENGTH);
  return { text: t, caret: split(t).length };
};

/** The field's text before and after the caret (for drawing the caret). */
export function caretParts(f: TextField): { before: string; at: string; after: string } {
  const g = split(f.text);
  const c = Math.min(Math.max(0, f.caret), g.length);
  return { before: g.slice(0, c).join(''), at: g[c] ?? ' ', after: g.slice(c + 1).join('') };
}

const isWordChar = (g: string): boolean => /[\p{L}\p{N}_]/u.test(g);

/** Where a word move back from `c` lands (readline's Alt-B): the start of the word at or before the caret. */
function wordStartBefore(g: string[], c: number): number {
  let i = c;
  while (i > 0 && !isWordChar(g[i - 1])) i--;
  while (i > 0 && isWordChar(g[i - 1])) i--;
  return i;
}

/** Where a word move forward from `c` lands (readline's Alt-F): the end of the word at or after the caret. */
function wordEndAfter(g: string[], c: number): number {
  let i = c;
  while (i < g.length && !isWordChar(g[i])) i++;
  while (i < g.length && isWordChar(g[i])) i++;
  return i;
}

/** The field after one key press, or undefined when the press is not an edit (Enter, Esc, arrows up/down…). */
export function editField(f: TextField, p: KeyPress): TextField | undefined {
  const g = split(f.text);
  const c = Math.min(Math.max(0, f.caret), g.length);
  const make = (parts: string[], caret: number): TextField => ({ text: parts.join(''), caret });
  const room = MAX_FIELD_LENGTH - f.text.length;
  if (p.paste !== undefined) {
    const add = split(cutTo(printable(pastedLine(p.paste)), room)); // cut before reading graphemes: a paste may be megabytes
    return make([...g.slice(0, c), ...add, ...g.slice(c)], c + add.length);
  }
  const k = p.key;
  const wordKey = k.meta || (k.ctrl && (k.leftArrow || k.rightArrow));
  if (wordKey) {
    if (k.leftArrow || p.input === 'b') return { ...f, caret: wordStartBefore(g, c) };
    if (k.rightArrow || p.input === 'f') return { ...f, caret: wordEndAfter(g, c) };
    if (k.backspace) {
      const i = wordStartBefore(g, c);
      return make([...g.slice(0, i), ...g.slice(c)], i);
    }
    if (p.input === 'd') return make([...g.slice(0, c), ...g.slice(wordEndAfter(g, c))], c);
  }
  if (k.leftArrow) return { ...f, caret: Math.max(0, c - 1) };
  if (k.rightArrow) return { ...f, caret: Math.min(g.length, c + 1) };
  if (k.home) return { ...f, caret: 0 };
  if (k.end) return { ...f, caret: g.length };
  if (k.backspace) return c === 0 ? f : make([...g.slice(0, c - 1), ...g.slice(c)], c - 1);
  if (k.delete) return make([...g.slice(0, c), ...g.slice(c + 1)], c);
  if (k.ctrl) {
    switch (p.input) {
      case 'a': return { ...f, caret: 0 };
      case 'e': return { ...f, caret: g.length };
      case 'b': return { ...f, caret: Math.max(0, c - 1) };
      case 'f': return { ...f, caret: Math.min(g.length, c + 1) };
      case 'u': return make(g.slice(c), 0);
      case 'k': return make(g.slice(0, c), c);
      case 'd': return make([...g.slice(0, c), ...g.slice(c + 1)], c);
      case 'w': {
        const i = wordStartBefore(g, c);
        return make([...g.slice(0, i), ...g.slice(c)], i);
      }
      default:
        return f; // other control keys: swallowed, never inserted
    }
  }
  if (k.meta || k.return || k.escape || k.tab || k.upArrow || k.downArrow || k.pageUp || k.pageDown) return undefined;
  const add = split(cutTo(printable(p.input), room));
  if (add.length === 0) return f;
  return make([...g.slice(0, c), ...add, ...g.slice(c)], c + add.length);
}
