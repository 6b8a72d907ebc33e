// Token usage and the model, summed from the log (both eras). Pure: no I/O.
//
// Where the harness records them (checked on ../dsh-real-sessions):
//   - usage: `assistant/message` data.usage in both eras (v0: beside content;
//     rc8: beside data.message) — {inputTokens, outputTokens, cacheReadTokens,
//     reasoningTokens}. The same numbers also arrive earlier as an
//     `assistant/chunk` {type: "usage"}: counting both would double them, so
//     only the message counts.
//   - model: rc8 only — data.message.source.model on `assistant/message`, and
//     data.model on `request/context` (data.header.config.model on
//     `request/header`). v0 logs do not record the model.
import type { SessionEvent } from './events.js';

export interface TokenUsage {
  input: number;
  output: number;
  /** only when some message reported cache reads */
  cacheRead?: number;
  /** only when some message reported reasoning tokens (part of output) */
  reasoning?: number;
  /** assistant messages that carried a usage record */
  messages: number;
  /** models the log names, in order of first appearance (rc8 only) */
  models?: string[];
}

export interface SessionUsage extends TokenUsage {
  /** fork children only: the seed's share (events before seedLength) and the child's own */
  inherited?: TokenUsage;
  own?: TokenUsage;
}

export const emptyUsage = (): TokenUsage => ({ input: 0, output: 0, messages: 0 });

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function num(u: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = u[k];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  return undefined;
}

/** The usage record of one event, or undefined (only assistant messages carry one). */
export function usageRecord(e: SessionEvent): { input?: number; output?: number; cacheRead?: number; reasoning?: number } | undefined {
  if (e.type !== 'assistant/message' || !isObj(e.data)) return undefined;
  const u = isObj(e.data.usage) ? e.data.usage : isObj(e.data.message) && isObj(e.data.message.usage) ? e.data.message.usage : undefined;
  if (!u) return undefined;
  return {
    input: num(u, 'inputTokens', 'input_tokens', 'promptTokens', 'prompt_tokens'),
    output: num(u, 'outputTokens', 'output_tokens', 'completionTokens', 'completion_tokens'),
    cacheRead: num(u, 'cacheReadTokens', 'cache_read_tokens', 'cachedInputTokens', 'cache_read_input_tokens'),
    reasoning: num(u, 'reasoningTokens', 'reasoning_tokens'),
  };
}

/** The model an event names, if any. */
export function modelOf(e: SessionEvent): string | undefined {
  const d = e.data;
  if (!isObj(d)) return undefined;
  let m: unknown;
  if (e.type === 'assistant/message') m = isObj(d.message) && isObj(d.message.source) ? d.message.source.model : isObj(d.source) ? d.source.model : d.model;
  else if (e.type === 'request/context') m = d.model;
  else if (e.type === 'request/header') m = isObj(d.header) && isObj(d.header.config) ? d.header.config.model : undefined;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
}

/** Adds one event into `acc` (mutates). The incremental form of usageOf. */
export function foldUsage(acc: TokenUsage, e: SessionEvent): void {
  const m = modelOf(e);
  if (m !== undefined) {
    if (!acc.models) acc.models = [m];
    else if (!acc.models.includes(m)) acc.models.push(m);
  }
  const r = usageRecord(e);
  if (!r) return;
  acc.messages++;
  acc.input += r.input ?? 0;
  acc.output += r.output ?? 0;
  if (r.cacheRead !== undefined) acc.cacheRead = (acc.cacheRead ?? 0) + r.cacheRead;
  if (r.reasoning !== undefined) acc.reasoning = (acc.reasoning ?? 0) + r.reasoning;
}

/** Usage of events with index in [from, to) (default: all). */
export function usageOf(events: readonly SessionEvent[], from = 0, to = events.length): TokenUsage {
  const acc = emptyUsage();
  for (let i = Math.max(0, from); i < to && i < events.length; i++) foldUsage(acc, events[i]);
  return acc;
}

/**
 * Usage of the events with seq in [fromSeq, lastSeq] — a turn's, for the
 * Turns view (turn node seq..lastSeq). Seq equals the index in a valid log;
 * a log with a seq gap is searched.
 */
export function usageOfSeqs(events: readonly SessionEvent[], fromSeq: number, lastSeq: number): TokenUsage {
  let i = events[fromSeq]?.seq === fromSeq ? fromSeq : events.findIndex((e) => e.seq >= fromSeq);
  const acc = emptyUsage();
  if (i < 0) return acc;
  for (; i < events.length && events[i].seq <= lastSeq; i++) foldUsage(acc, events[i]);
  return acc;
}

/** The tokens a usage spent, as the app counts them (a TOK column, a sparkline): in + out; cached reads are part of neither. */
export const spentTokens = (u: TokenUsage): number => u.input + u.output;

/** Adds b into a copy of a. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const out: TokenUsage = { input: a.input + b.input, output: a.output + b.output, messages: a.messages + b.messages };
  if (a.cacheRead !== undefined || b.cacheRead !== undefined) out.cacheRead = (a.cacheRead ?? 0) + (b.cacheRead ?? 0);
  if (a.reasoning !== undefined || b.reasoning !== undefined) out.reasoning = (a.reasoning ?? 0) + (b.reasoning ?? 0);
  const models = [...(a.models ?? [])];
  for (const m of b.models ?? []) if (!models.includes(m)) models.push(m);
  if (models.length) out.models = models;
  return out;
}

/** the types that carry a usage record or a model */
export const USAGE_TYPES: ReadonlySet<string> = new Set(['assistant/message', 'request/context', 'request/header']);

/**
 * The incremental form of sessionUsage, for the log-facts fold: adds one
 * event; with `seedFrom` (a fork child's seedLength) also into the inherited
 * or own part. Cheap for the events that carry nothing (one Set lookup).
 */
export function foldSessionUsage(u: SessionUsage, e: SessionEvent, seedFrom?: number): void {
  if (!USAGE_TYPES.has(e.type)) return;
  foldUsage(u, e);
  if (seedFrom !== undefined) foldUsage(e.seq < seedFrom ? (u.inherited ??= emptyUsage()) : (u.own ??= emptyUsage()), e);
}

/** `u` with both parts present when the session is a fork child (the fold adds them only once they have events). */
export function withSplit(u: SessionUsage, seedLength?: number): SessionUsage {
  if (seedLength === undefined) return u;
  return { ...u, inherited: u.inherited ?? emptyUsage(), own: u.own ?? emptyUsage() };
}

/**
 * A session's usage, up to event index `upTo` exclusive (default all). For a
 * fork child (`seedLength` set) also split into what the seed inherited from
 * the parent and what the child spent itself.
 */
export function sessionUsage(events: readonly SessionEvent[], seedLength?: number, upTo = events.length): SessionUsage {
  const u = emptyUsage() as SessionUsage;
  for (let i = 0; i < upTo && i < events.length; i++) foldSessionUsage(u, events[i], seedLength);
  return withSplit(u, seedLength);
}

/** "in 1.2k out 345 cache 768" — short text for a cell (no file-derived text except model names; sanitise those). */
export function usageText(u: TokenUsage | undefined): string {
  if (!u || u.messages === 0) return '';
  const parts = [`in ${compact(u.input)}`, `out ${compact(u.output)}`];
  if (u.cacheRead) parts.push(`cache ${compact(u.cacheRead)}`);
  return parts.join(' ');
}

/** 950, 1.2k, 34k, 1.5M */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return (n / 1000).toFixed(1).replace(/\.0$/, '') + 'k';
  if (n < 1_000_000) return Math.round(n / 1000) + 'k';
  return (n / 1_000_000).toFixed(1).replace(/\.0$/, '') + 'M';
}
