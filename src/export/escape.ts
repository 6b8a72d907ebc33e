// Escaping for each export format. Every string from a log passes through one
// of these: controls become visible pictures (the output may land on a
// terminal), and the format's markup characters become inert text.
import { isSafe, sanitizeInline } from '../view/text/sanitize.js';

/**
 * Multi-line text with controls (ESC, BEL, C1, bidi overrides, lone CR, …)
 * made visible as in sanitize.ts; newlines and tabs kept (a file has no
 * columns to measure, and measuring long lines is slow).
 */
export function cleanBlock(s: string): string {
  if (isSafe(s.replace(/[\n\t]/g, ''))) return s;
  return s
    .split(/\r?\n/)
    .map((line) => line.split('\t').map(sanitizeInline).join('\t'))
    .join('\n');
}

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML element content or a quoted attribute: nothing in it can open a tag or end an attribute. */
export function escHtml(s: string, inline = false): string {
  return (inline ? sanitizeInline(s) : cleanBlock(s)).replace(/[&<>"']/g, (c) => HTML[c]);
}

/**
 * One-line Markdown text rendered literally: the characters that can start
 * markup inline (emphasis, code, links, images, HTML, entities, tables,
 * strikethrough, headings) are backslash-escaped. Callers place it after a
 * prefix, never at the start of a line.
 */
export function escMd(s: string): string {
  return sanitizeInline(s).replace(/[\\`*_[\]<>!|~&#]/g, (c) => '\\' + c);
}

/** A fenced code block that no content can close early: the fence is longer than any backtick run inside. */
export function fenced(s: string, info = ''): string {
  const text = cleanBlock(s);
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/**
 * JSON text safe to print or embed: besides JSON's own escapes, `<`, `>`, `&`,
 * DEL, C1 controls, bidi controls and U+2028/2029 are written as \uXXXX (they
 * can occur only inside strings, so the JSON means the same).
 */
export function jsonSafe(json: string): string {
  return json.replace(/[<>&\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
