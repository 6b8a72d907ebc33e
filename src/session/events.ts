// Event model for the dsh log formats v0-v4 (both v0 eras: RFC and rc8). Pure: no I/O.
import { headerProblem, type FormatVersion, type HeaderProblem } from './formats.js';

export type SurfaceOp = 'append' | { op: 'replace'; start: number; end: number } | { op: string; [k: string]: unknown };

/** One event of a session log, as the harness wrote it (packed rows already expanded). */
export interface SessionEvent {
  type: string;
  seq: number;
  time: number;
  data: any;
  surfaceOp?: SurfaceOp;
  sourceEventSeqs?: number[];
  ignorable?: boolean;
}

/** The header line of a session file. Unknown keys are kept. */
export interface SessionHeader {
  type: 'session';
  version: FormatVersion;
  id: string;
  createdAt: number;
  cwd?: string;
  parentSession?: string;
  /** v0/v1: the number of inherited events */
  seedLength?: number;
  /** v2+: a fork child (its cut is the last inherited session/end-seed) */
  isSeeded?: boolean;
  origin?: string;
  delegationDepth?: number;
  agentPreset?: unknown;
  [key: string]: unknown;
}

export const PACKED_TYPES: Record<string, string> = {
  'text-chunks': 'text-delta',
  'reasoning-chunks': 'reasoning-delta',
  'tool-call-chunks': 'tool-call-delta',
};

const SURFACE_TYPES = new Set(['user/message', 'assistant/message', 'tool/result', 'context/message', 'steering/message']);
export const isSurfaceType = (type: string): boolean => SURFACE_TYPES.has(type);

/** A usable time: a finite positive number (the harness writes 0 for a row it did not stamp; a v0 row may have none). */
export const usableTime = (t: unknown): t is number => typeof t === 'number' && Number.isFinite(t) && t > 0;

/** Milliseconds from `start` to `end`; undefined where either is not a usable time or time went back. The one owner of a turn's duration. */
export function turnDuration(start: unknown, end: unknown): number | undefined {
  return usableTime(start) && usableTime(end) && end >= start ? end - start : undefined;
}

/** Milliseconds from `from` to `to`; 0 when there is no such duration (turnDuration). */
export const spanMs = (from: { time?: unknown }, to: { time?: unknown }): number => turnDuration(from.time, to.time) ?? 0;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks a parsed header line (formats.ts has each version's rules). Returns the header or what is wrong. */
export function checkHeader(v: unknown): SessionHeader | HeaderProblem {
  const p = headerProblem(v);
  return p ?? (v as SessionHeader);
}

export const isHeaderProblem = (h: SessionHeader | HeaderProblem): h is HeaderProblem => (h as SessionHeader).type !== 'session';

/**
 * Turns one parsed line into the events it stands for: one for an ordinary
 * row, n for a packed chunk row. Returns a message when the envelope is bad.
 * `timeOptional` (a v0 log): a row without `time` is an event (its time unknown).
 */
export function expandRow(v: unknown, timeOptional = false): SessionEvent[] | string {
  if (!isPlainObject(v)) return `event is not a JSON object`;
  const type = v.type;
  if (typeof type !== 'string' || type.length === 0) return 'event has no string "type"';
  if (type === 'session') return 'unexpected second session header';
  const delta = PACKED_TYPES[type];
  if (delta !== undefined && v.seq0 !== undefined) return expandPacked(type, delta, v);
  if (!Number.isInteger(v.seq) || (v.seq as number) < 0) return `event ${JSON.stringify(type)} has no integer "seq"`;
  // v0: the RFC-era loader checks no time at all (rc.8's envelope check refuses it on resume: rc8-rules.ts)
  if (!(timeOptional && v.time === undefined) && (typeof v.time !== 'number' || !Number.isFinite(v.time))) return `event seq ${v.seq} has no numeric "time"`;
  if (!('data' in v)) return `event seq ${v.seq} has no "data"`;
  return [v as unknown as SessionEvent];
}

function expandPacked(type: string, delta: string, v: Record<string, unknown>): SessionEvent[] | string {
  const d = v.data;
  if (!Number.isInteger(v.seq0) || (v.seq0 as number) < 0) return `packed row ${type} has no integer "seq0"`;
  if (typeof v.time0 !== 'number') return `packed row ${type} has no numeric "time0"`;
  if (!isPlainObject(d)) return `packed row ${type} has no "data" object`;
  const parts = (type === 'tool-call-chunks' ? d.args : d.texts) as unknown;
  if (!Array.isArray(parts) || parts.some((p) => typeof p !== 'string')) return `packed row ${type} has no string array of parts`;
  // no parts stand for no event: the row has no seq of its own to check or to continue from
  if (parts.length === 0) return `packed row ${type} has an empty array of parts`;
  const dt = Array.isArray(d.dt) ? (d.dt as unknown[]) : [];
  const out: SessionEvent[] = [];
  let time = v.time0 as number;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) time += typeof dt[i - 1] === 'number' ? (dt[i - 1] as number) : 0;
    const chunk: Record<string, unknown> = { type: delta, index: d.index };
    if (type === 'tool-call-chunks') {
      chunk.id = d.id;
      if (d.name !== undefined) chunk.name = d.name;
      chunk.argumentsDelta = parts[i];
    } else chunk.text = parts[i];
    out.push({ type: 'assistant/chunk', seq: (v.seq0 as number) + i, time, data: { turn: d.turn, step: d.step, chunk } });
  }
  return out;
}

/** Text of content blocks (`text` and `reasoning`), joined. Tolerates any shape. */
export function contentText(content: unknown, kinds: readonly string[] = ['text']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) if (isPlainObject(b) && kinds.includes(b.type as string) && typeof b.text === 'string') parts.push(b.text);
  return parts.join('');
}

/**
 * The text each prompt/blocked event of a JSON line runs its blocks into (the
 * search's text for it: a word may span two blocks), or undefined when the
 * line is not one event (not JSON, or a damaged line salvaged in pieces).
 */
export function blockedTextsOf(line: string): string[] | undefined {
  let rows: SessionEvent[] | string;
  try {
    rows = expandRow(JSON.parse(line));
  } catch {
    return undefined;
  }
  if (typeof rows === 'string') return undefined;
  const out: string[] = [];
  for (const e of rows) if (e.type === 'prompt/blocked' && typeof e.data === 'object' && e.data !== null) out.push(contentText((e.data as { content?: unknown }).content));
  return out;
}

/** The message object of a surface event, in either era. */
export function messageOf(e: SessionEvent): { role?: string; content: unknown } {
  const d = e.data;
  if (isPlainObject(d) && isPlainObject(d.message)) return d.message as { role?: string; content: unknown };
  return isPlainObject(d) ? (d as { role?: string; content: unknown }) : { content: undefined };
}

/** `turn/end` reason kind, or '?' when absent. */
export function endReason(e: SessionEvent): string {
  const r = isPlainObject(e.data) ? e.data.reason : undefined;
  if (isPlainObject(r) && typeof r.kind === 'string') return r.kind;
  if (typeof r === 'string') return r;
  return '?';
}

/**
 * A user/message a person typed: later harnesses also put runtime context,
 * skill catalogs, compaction checkpoints and coordinator notes in user
 * messages, marked by their source kind (v4: runtime-context, skill-catalog,
 * compact-checkpoint, plugin:…). Only a person's prompt names a session.
 */
export function isHumanPrompt(e: SessionEvent): boolean {
  const d = e.data;
  const src = d?.source ?? d?.message?.source;
  return !(typeof src === 'object' && src !== null && typeof src.kind === 'string' && src.kind !== 'user');
}
