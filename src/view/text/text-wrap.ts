// Word-wrapping a (sanitised) message into at most `maxLines` lines of `width`
// columns, for boxes that must show a whole message without letting the
// terminal wrap it. Joining the lines with one space gives the message back
// (unless a word was longer than a line, or lines ran out: then `…`).
import { displayWidth, truncate } from './sanitize.js';

export function wrapText(text: string, width: number, maxLines = Infinity): string[] {
  if (width <= 0 || maxLines <= 0) return [];
  const words = text.split(' ');
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    const next = cur === '' ? w : `${cur} ${w}`;
    if (displayWidth(next) <= width) {
      cur = next;
      continue;
    }
    if (cur !== '') lines.push(cur);
    cur = displayWidth(w) <= width ? w : truncate(w, width);
  }
  if (cur !== '' || lines.length === 0) lines.push(cur);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = truncate(kept[maxLines - 1] + ' ' + lines[maxLines], width);
  if (!kept[maxLines - 1].endsWith('…')) kept[maxLines - 1] = truncate(kept[maxLines - 1] + '…', width);
  return kept;
}
