// What the Turns view says while a session's events are still being read in
// the background (a multi-GB over-long line being skipped in slices).
import type { LoadProgress } from '../../session/session.js';
import { partialPercent } from '../text/percent.js';

/** 1536 -> "1.5 KiB", 2831158826 -> "2.6 GiB" */
export function byteSize(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** The loading screen's lines: what is being read, how far, and that Esc goes back. */
export function loadingLines(p: LoadProgress): string[] {
  const pct = partialPercent(p);
  const where = `${byteSize(p.read)} of ${byteSize(p.end)} read (${pct}%)`;
  const what =
    p.skipFrom !== undefined
      ? `skipping an over-long line (line ${p.line}, from byte ${p.skipFrom}) unread, looking for its end: ${where}`
      : `reading its events: ${where}`;
  return ['loading this session…', what, 'keys keep working: Esc goes back, Tab to another view'];
}

/** The line above a large log's rows while only its last turns are indexed (tail first). */
export function partialLine(p: LoadProgress): string {
  return `indexing earlier turns ${partialPercent(p)}%${p.skipFrom !== undefined ? ` (skipping an over-long line: line ${p.line})` : ''}`;
}
