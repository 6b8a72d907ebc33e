// Small text helpers shared by the export formats (raw text; each format escapes it).
import { durationText } from '../view/text/duration.js';
import type { TokenUsage } from '../session/usage.js';
import type { Changes, CommandRun, FileChanges, FileEdit, UnknownEffect } from '../session/changes.js';
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

/** A session's own changes as an export shows them: its files, commands and unknown effects, and how many files it inherited. */
export function ownChanges(c: Changes): { files: FileChanges[]; commands: CommandRun[]; unknown: UnknownEffect[]; inherited: number } {
  const files = c.files.filter((f) => f.edits.some((e) => !e.inherited));
  return { files, commands: c.commands.filter((x) => !x.inherited), unknown: c.unknown.filter((x) => !x.inherited), inherited: c.files.length - files.length };
}

/** The line above the changes: `2 files written or edited (+3 −1) · 4 commands · 1 unknown effect`. */
export function changesLine(o: ReturnType<typeof ownChanges>): string {
  const added = o.files.reduce((n, f) => n + f.added, 0);
  const removed = o.files.reduce((n, f) => n + f.removed, 0);
  const parts = [o.files.length ? `${o.files.length} file${o.files.length === 1 ? '' : 's'} written or edited (+${added} −${removed})` : 'no file written or edited'];
  parts.push(`${o.commands.length} command${o.commands.length === 1 ? '' : 's'} run`);
  if (o.unknown.length) parts.push(`${o.unknown.length} call${o.unknown.length === 1 ? '' : 's'} of unknown effect`);
  if (o.inherited) parts.push(`${o.inherited} file${o.inherited === 1 ? '' : 's'} edited before this branch's own events (inherited)`);
  return parts.join(' · ');
}

/** A file's own edits (what the export lists under it). */
export const ownEdits = (f: FileChanges): FileEdit[] => f.edits.filter((e) => !e.inherited);

/** `seq 111 · turn 3 · edit · failed` */
export const editLine = (e: FileEdit): string => `seq ${e.seq} · turn ${e.turn} · ${e.tool}${e.failed ? ' · failed: not applied' : e.pending ? ' · no result' : ''}`;
