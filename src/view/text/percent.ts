import type { LoadProgress } from '../../session/session.js';

/** How much of a log is read, 0-100 (a large log indexed behind its last turns, a first scan's read of it). */
export const partialPercent = (p: LoadProgress): number => (p.end > 0 ? Math.min(100, Math.floor((100 * p.read) / p.end)) : 0);
