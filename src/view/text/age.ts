/** Times before this (2000-01-01) are placeholders (`createdAt: 0` or `1`), not dates: their age is unknown. */
export const EARLIEST_TIME = 946_684_800_000;

/** `12s`, `4m`, `3h`, `2d` from `time` to `now` (epoch ms); `missing` when there is no (plausible) time. */
export function ageText(time: number | undefined, now: number, missing = '-'): string {
  if (time === undefined || !Number.isFinite(time) || time < EARLIEST_TIME) return missing;
  const s = Math.max(0, Math.round((now - time) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/**
 * Until when (a `now`, exclusive) ageText(time, now) says the same: a row
 * showing the age is drawn again only past it (early rather than late).
 */
export function ageTextUntil(time: number | undefined, now: number): number {
  if (time === undefined || !Number.isFinite(time) || time < EARLIEST_TIME) return Infinity;
  const s = Math.max(0, Math.round((now - time) / 1000));
  const unit = s < 60 ? 1 : s < 3600 ? 60 : s < 86400 ? 3600 : 86400;
  // Math.round reaches the next step at half a second before it
  return time + (Math.floor(s / unit) * unit + unit - 0.5) * 1000;
}
