/** A turn's or a step's duration, short: 250ms, 4.2s, 2m05s, 1h05m. */
export function durationText(ms: number): string {
  if (ms < 999.5) return `${Math.round(ms)}ms`; // (a log may give fractions of a ms)
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)}s`; // (59.95 s would read 60.0s)
  // rounded to the second first: 59.6 s past a minute is the next minute, never `5m60s`
  const sec = Math.round(ms / 1000);
  const m = Math.floor(sec / 60);
  if (m < 60) return `${m}m${String(sec % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
