// Input events (as Ink's parser hands them over) -> single key presses.
import { describe, expect, it } from 'vitest';
import { createKeySplitter, splitKeys } from '../../../src/view/app/keys.js';

const names = (raw: string[]) => {
  const sp = createKeySplitter();
  return raw.flatMap((e) => sp.push(e)).map((p) => (p.paste !== undefined ? `paste:${p.paste}` : Object.entries(p.key).filter(([, v]) => v).map(([k]) => k).join('+') + (p.input ? `:${p.input}` : '')));
};

describe('key splitting', () => {
  it('a run of text is one press per character (grapheme)', () => {
    expect(names(['jjj'])).toEqual([':j', ':j', ':j']);
    expect(names(['a👍🏽b'])).toEqual([':a', ':👍🏽', ':b']);
  });
  it('Enter, Tab, Backspace and Ctrl letters inside a run', () => {
    expect(names(['bump\r'])).toEqual([':b', ':u', ':m', ':p', 'return']);
    expect(names(['\x7f\x7f\t\x15'])).toEqual(['backspace', 'backspace', 'tab', 'ctrl:u']);
    expect(names(['\x03'])).toEqual(['ctrl:c']);
  });
  it('escape sequences stay whole: arrows, paging, Home/End, Delete, Shift-Tab, modifiers', () => {
    expect(names(['\x1b[B', '\x1b[A', '\x1b[6~', '\x1b[H', '\x1b[F', '\x1b[3~', '\x1b[Z', '\x1b[1;5C'])).toEqual([
      'downArrow', 'upArrow', 'pageDown', 'home', 'end', 'delete', 'tab+shift', 'ctrl+rightArrow',
    ]);
  });
  it('Esc then a key in one read is Escape, then the key; two Escapes are two', () => {
    expect(names(['\x1b\t'])).toEqual(['escape', 'tab']);
    expect(names(['\x1b/'])).toEqual(['escape', ':/']);
    expect(names(['\x1b\x1b'])).toEqual(['escape', 'escape']); // as Ink hands over "Esc Esc" typed fast
    expect(names(['\x1b\x1b[A'])).toEqual(['escape', 'upArrow']);
    expect(names(['\x1b'])).toEqual(['escape']);
  });
  it('ESC + a letter, a digit or Backspace is that key with Alt (as terminals send Alt, and as Ink reads it: key.meta)', () => {
    expect(names(['\x1bb', '\x1bf', '\x1bq', '\x1bB', '\x1b1'])).toEqual(['meta:b', 'meta:f', 'meta:q', 'meta:B', 'meta:1']);
    expect(names(['\x1b\x7f'])).toEqual(['backspace+meta']);
    expect(names(['\x1b[1;3D'])).toEqual(['meta+leftArrow']); // Alt-Left, as xterm sends it
    expect(splitKeys('ab\x1bbc').map((p) => (p.key.meta ? `M-${p.input}` : p.input))).toEqual(['a', 'b', 'M-b', 'c']);
  });
  it('a bracketed paste is one press of text, also across events', () => {
    expect(names(['\x1b[200~', 'bump\rx', '\x1b[201~'])).toEqual(['paste:bump\rx']);
    expect(names(['\x1b[200~ab\x1b[201~j'])).toEqual(['paste:ab', ':j']);
  });
  it('splitKeys cuts a raw string the same way', () => {
    expect(splitKeys('\x1b[Bf').map((p) => (p.key.downArrow ? 'down' : p.input))).toEqual(['down', 'f']);
    expect(splitKeys('\x1b\x1b\x1b')).toHaveLength(3);
  });
});
