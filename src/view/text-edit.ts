// Editing a one-line text field from keys (the filter prompt, the child id).

/** Typed text only: control and format characters (a pasted newline or escape) are dropped. */
export const printable = (s: string): string => s.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '');

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The text without its last grapheme (Backspace never splits an emoji or a combining mark). */
export const dropLast = (s: string): string => [...graphemes.segment(s)].slice(0, -1).map((g) => g.segment).join('');
