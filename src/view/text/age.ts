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
