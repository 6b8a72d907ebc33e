// Small text helpers shared by the export formats (raw text; each format escapes it).
import { durationText } from '../view/text/duration.js';
import type { TokenUsage } from '../session/usage.js';
import type { Transcript } from './transcript.js';

/** Lines of a turn a format holds before it writes them. */
export const FLUSH_LINES = 256;

export function usageLine(u: TokenUsage): string {
  if (!u.messages) return 'no usage recorded';
  const parts = [`input ${u.input}`, `output ${u.output}`];
  if (u.cacheRead !== undefined) parts.push(`cache reads ${u.cacheRead}`);
  if (u.reasoning !== undefined) parts.push(`reasoning ${u.reasoning}`);
  return parts.join(', ');
}

export function turnMeta(b: Extract<Transcript['blocks'][number], { kind: 'turn' }>): string {
  const parts = [b.open ? 'open' : (b.reason ?? '?'), durationText(b.ms)];
  if (b.usage.messages) parts.push(usageLine(b.usage));
  return parts.join(' · ');
}

export function rangeLine(t: Pick<Transcript, 'events' | 'upTo'>): string {
  return t.events === 0 ? 'no events' : `seq 0–${t.upTo} (${t.events} event${t.events === 1 ? '' : 's'})`;
}

export const isoTime = (ms: number): string => (Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms));
