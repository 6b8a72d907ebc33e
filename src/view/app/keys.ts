// Input -> key presses. Ink's input parser hands us escape sequences whole but
// a run of plain text as ONE string ("jjj", "bump\r", ten DELs): this splits
// those runs into single presses so every press is applied on its own, in
// order. A bracketed paste (ESC[200~ … ESC[201~) stays one `paste` press, so a
// text field receives it as text and a list view can ignore it.
import type { KeyFlags } from './binding.js';

export interface KeyPress {
  /** the printable text of the press ('' for a control key) */
  input: string;
  key: KeyFlags;
  /** set for a bracketed paste: the pasted text */
  paste?: string;
}

const ESC = '\x1b';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const press = (input: string, key: KeyFlags = {}): KeyPress => ({ input, key });

/** CSI/SS3 final sequences -> key flags. Modifiers (`1;5C`) set shift/ctrl/meta. */
function decodeEscape(seq: string): KeyPress {
  if (seq === ESC) return press('', { escape: true });
  if (seq === '\x1b[Z') return press('', { tab: true, shift: true });
  const m = /^\x1b(?:\[|O|\[\[)([\d;]*)([A-Za-z~])$/.exec(seq);
  if (!m) return press('', {});
  const params = m[1].split(';');
  const code = params[0];
  const mod = Number(params[1] ?? '1') - 1;
  const flags: KeyFlags = {};
  if (mod > 0) {
    if (mod & 1) flags.shift = true;
    if (mod & 2) flags.meta = true;
    if (mod & 4) flags.ctrl = true;
  }
  switch (m[2]) {
    case 'A': return press('', { ...flags, upArrow: true });
    case 'B': return press('', { ...flags, downArrow: true });
    case 'C': return press('', { ...flags, rightArrow: true });
    case 'D': return press('', { ...flags, leftArrow: true });
    case 'H': return press('', { ...flags, home: true });
    case 'F': return press('', { ...flags, end: true });
    case '~':
      if (code === '1' || code === '7') return press('', { ...flags, home: true });
      if (code === '4' || code === '8') return press('', { ...flags, end: true });
      if (code === '5') return press('', { ...flags, pageUp: true });
      if (code === '6') return press('', { ...flags, pageDown: true });
      if (code === '3') return press('', { ...flags, delete: true });
      return press('', flags);
    default:
      return press('', flags);
  }
}

/** One character (a grapheme) of a text run. */
function decodeChar(g: string): KeyPress {
  switch (g) {
    case '\r':
    case '\n':
    case '\r\n':
      return press('', { return: true });
    case '\t':
      return press('', { tab: true });
    case '\x7f':
    case '\b':
      return press('', { backspace: true });
    case '\x00':
      return press(' ', { ctrl: true });
  }
  const c = g.codePointAt(0)!;
  // Ctrl-A … Ctrl-Z (Ctrl-H, Ctrl-I, Ctrl-J, Ctrl-M are handled above)
  if (g.length === 1 && c >= 1 && c <= 26) return press(String.fromCharCode(c + 96), { ctrl: true });
  if (g.length === 1 && c < 32) return press('', { ctrl: true });
  return press(g);
}

/** Alt + `c` (sent as ESC c), for a letter, a digit or Backspace; undefined for any other character. */
function altPress(c: string): KeyPress | undefined {
  if (/^[A-Za-z0-9]$/.test(c)) return press(c, { meta: true });
  if (c === '\x7f' || c === '\b') return press('', { backspace: true, meta: true });
  return undefined;
}

/**
 * A stateful splitter fed with Ink's input events (each an escape sequence or
 * a run of text). Keeps paste state across events.
 */
export function createKeySplitter(): { push(event: string): KeyPress[] } {
  let paste: string | undefined;
  return {
    push(event: string): KeyPress[] {
      const out: KeyPress[] = [];
      let rest = event;
      while (rest.length > 0) {
        if (paste !== undefined) {
          const end = rest.indexOf(PASTE_END);
          if (end < 0) {
            paste += rest;
            return out;
          }
          paste += rest.slice(0, end);
          out.push({ input: '', key: {}, paste });
          paste = undefined;
          rest = rest.slice(end + PASTE_END.length);
          continue;
        }
        if (rest.startsWith(PASTE_START)) {
          paste = '';
          rest = rest.slice(PASTE_START.length);
          continue;
        }
        if (rest.startsWith(ESC)) {
          // Ink hands escape sequences over one per event. ESC + a letter or digit
          // is Alt+that key, as terminals send it and as Ink's own parser reads it
          // (key.meta): the text fields move by word on Alt-b / Alt-f. ESC + any
          // other character is Escape, then that key: "Esc Tab" typed fast must
          // close, then switch.
          const next = rest.slice(1);
          if (next === '') {
            out.push(press('', { escape: true }));
            return out;
          }
          const alt = altPress(next[0]);
          if (alt) {
            out.push(alt);
            rest = next.slice(1);
            continue;
          }
          if (next.startsWith(ESC)) {
            out.push(press('', { escape: true }));
            rest = next;
            continue;
          }
          if (!next.startsWith('[') && !next.startsWith('O')) {
            out.push(press('', { escape: true }));
            rest = next;
            continue;
          }
          out.push(decodeEscape(rest));
          return out;
        }
        const esc = rest.indexOf(ESC);
        const text = esc < 0 ? rest : rest.slice(0, esc);
        for (const { segment } of graphemes.segment(text)) out.push(decodeChar(segment));
        rest = esc < 0 ? '' : rest.slice(esc);
      }
      return out;
    },
  };
}

/** Splits a whole raw string (tests, or input not pre-split by Ink) into presses. */
export function splitKeys(raw: string): KeyPress[] {
  const splitter = createKeySplitter();
  const out: KeyPress[] = [];
  // cut before every ESC that starts a sequence, then let the splitter decode each piece
  const re = /\x1b\[200~|\x1b\[201~|\x1b(?:\[\[?[\d;]*[A-Za-z~]|O[A-Za-z]|\x1b\[[\d;]*[A-Za-z~]|[^\x1b]?)/gu;
  let last = 0;
  for (const m of raw.matchAll(re)) {
    if (m.index! > last) out.push(...splitter.push(raw.slice(last, m.index)));
    out.push(...splitter.push(m[0]));
    last = m.index! + m[0].length;
  }
  if (last < raw.length) out.push(...splitter.push(raw.slice(last)));
  return out;
}
