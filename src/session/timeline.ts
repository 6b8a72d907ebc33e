// Where a turn's time went: its steps, model requests and tool calls as
// spans of the log's own clock (docs/formats.md, "Timelines"). Pure: the
// turn's events are folded one by one (a huge turn is read in batches and
// never held), and the fold keeps a few numbers per span.
//
// - a step: from its step/start to its step/end;
// - a model request: from the step's start, or from what last settled in the
//   step (an earlier assistant message, a tool result), to its
//   assistant/message: the time the model was being waited on;
// - a tool call: from its tool/call to the tool/result with its call id
//   (parallel calls overlap).
// A span without its closing event is open (it runs to the turn's last time);
// a closing event earlier than its opening one is a clock that went back: the
// span is drawn at its start with no length, and the turn keeps a note of
// every place the log's time decreases.
import { callIdOf } from './harness-closers.js';
import { argSummary } from './turn-summary.js';
import { toolResultText } from './replay.js';
import { usableTime, type SessionEvent } from './events.js';
import { textOf } from './json-safe.js';

export type SpanKind = 'step' | 'model' | 'tool';

export interface Span {
  kind: SpanKind;
  /** the event it opens at (step/start, the assistant message a request ends in, tool/call): what Enter reads */
  seq: number;
  /** the step it is in (0: before the first step) */
  step: number;
  /** a step's number, `model`, or the tool's name */
  label: string;
  /** a tool call's command, path or pattern (its arguments' first telling field) */
  detail?: string;
  /** ms since the epoch; undefined: its opening event has no time */
  start?: number;
  /** undefined: open (no closing event yet) */
  end?: number;
  /** its closing event's seq */
  endSeq?: number;
  /** a tool call whose result is an error */
  failed?: boolean;
  /** its end is before its start: the log's clock went back */
  skew?: boolean;
}

/** A place the log's time decreases: event `seq` is `back` ms earlier than the latest time before it. */
export interface Skew {
  seq: number;
  back: number;
}

export interface TurnTimeline {
  turn: number;
  /** seqs of its first and last event */
  seq: number;
  lastSeq: number;
  /** its earliest and latest times (undefined: no event has one) */
  start?: number;
  end?: number;
  /** no turn/end yet */
  open: boolean;
  /** in the order they open */
  spans: Span[];
  /** the first places time goes back (SKEWS_KEPT), and how many there are */
  skews: Skew[];
  skewCount: number;
  /** events without a usable time (none, or 0: a row the harness left unstamped) */
  untimed: number;
}

/** Where a turn's time went, in ms: model requests, tools (wall time some tool ran), what neither covers, and the whole. */
export interface TimeTotals {
  wall: number;
  model: number;
  tool: number;
  /** the wall time no model request or tool call covers (hooks, the harness, the person) */
  gaps: number;
  /** every tool call's own time, summed (past `tool` when calls ran in parallel) */
  toolCalls: number;
  /** the longest tool call (a closed one, or an open one by its time so far) */
  longest?: Span;
}

const SKEWS_KEPT = 32;
/** Spans kept per turn: past it, the turn's later spans are counted only (a turn of a million calls) */
export const SPANS_KEPT = 50_000;

const timeOf = (e: SessionEvent): number | undefined => (usableTime(e.time) ? e.time : undefined);

const num = (d: any, k: string): number | undefined => (d && typeof d[k] === 'number' ? d[k] : undefined);

/** What a call worked on (argSummary: its command, path, pattern…), for its bar's label; none for empty arguments. */
function callDetail(args: unknown): string | undefined {
  const a = argSummary(textOf(args ?? ''));
  return a && a !== '{}' ? a : undefined;
}

/** Folds one turn's events (from its turn/start, in log order) into its timeline. */
export class TimelineFold {
  private readonly t: TurnTimeline;
  private latest?: number;
  private step = 0;
  private stepSpan?: Span;
  /** when the model was last handed the floor in the current step (its start, a message, a result) */
  private settled?: number;
  private readonly calls = new Map<string, Span>();
  /** spans past SPANS_KEPT */
  dropped = 0;

  constructor(turn: number, seq: number) {
    this.t = { turn, seq, lastSeq: seq, open: true, spans: [], skews: [], skewCount: 0, untimed: 0 };
  }

  add(e: SessionEvent): void {
    const t = this.t;
    t.lastSeq = e.seq;
    const time = timeOf(e);
    if (time === undefined) t.untimed++;
    else {
      if (this.latest !== undefined && time < this.latest) {
        t.skewCount++;
        if (t.skews.length < SKEWS_KEPT) t.skews.push({ seq: e.seq, back: this.latest - time });
      }
      this.latest = Math.max(this.latest ?? time, time);
      t.start = Math.min(t.start ?? time, time);
      t.end = Math.max(t.end ?? time, time);
    }
    const d = e.data;
    switch (e.type) {
      case 'step/start':
        this.closeStep(undefined, e.seq);
        this.step = num(d, 'step') ?? this.step + 1;
        this.stepSpan = this.push({ kind: 'step', seq: e.seq, step: this.step, label: `step ${this.step}`, start: time });
        this.settled = time;
        return;
      case 'step/end':
        this.closeStep(time, e.seq);
        return;
      case 'assistant/message':
        this.push(this.closed({ kind: 'model', seq: e.seq, step: this.step, label: 'model', start: this.settled ?? time }, time, e.seq));
        this.settled = time ?? this.settled;
        return;
      case 'tool/call': {
        const span = this.push({ kind: 'tool', seq: e.seq, step: this.step, label: textOf(d?.name ?? '?'), detail: callDetail(d?.arguments), start: time });
        if (span) this.calls.set(callIdOf(e), span);
        return;
      }
      case 'tool/result': {
        const id = callIdOf(e);
        const span = this.calls.get(id);
        if (!span) return; // a result for a call never started (the harness settles those): no time was spent
        this.calls.delete(id);
        this.closed(span, time, e.seq);
        if (toolResultText(e).isError) span.failed = true;
        if (time !== undefined) this.settled = Math.max(this.settled ?? time, time);
        return;
      }
      case 'turn/end':
        this.closeStep(undefined, e.seq);
        t.open = false;
        return;
    }
  }

  /** The timeline so far. */
  result(): TurnTimeline {
    return this.t;
  }

  private push(s: Span): Span | undefined {
    if (this.t.spans.length >= SPANS_KEPT) {
      this.dropped++;
      return undefined;
    }
    this.t.spans.push(s);
    return s;
  }

  private closed(s: Span, time: number | undefined, seq: number): Span {
    s.endSeq = seq;
    s.end = time ?? s.start;
    if (s.start !== undefined && s.end !== undefined && s.end < s.start) {
      s.skew = true;
      s.end = s.start;
    }
    return s;
  }

  private closeStep(time: number | undefined, seq: number): void {
    if (this.stepSpan && time !== undefined) this.closed(this.stepSpan, time, seq);
    this.stepSpan = undefined;
  }
}

/** The timeline of one turn's events (a turn's whole list: a test, a small log). */
export function turnTimeline(events: Iterable<SessionEvent>): TurnTimeline | undefined {
  let fold: TimelineFold | undefined;
  for (const e of events) {
    fold ??= new TimelineFold(num(e.data, 'turn') ?? 0, e.seq);
    fold.add(e);
  }
  return fold?.result();
}

/** A span's length in ms; an open one runs to `until` (the turn's latest time). */
export function spanLength(s: Span, until: number | undefined): number {
  if (s.start === undefined) return 0;
  const end = s.end ?? until ?? s.start;
  return Math.max(0, end - s.start);
}

/** Where a turn's time went: the one owner of model, tool and gap time (the timeline, stats and the export read it). */
export function timeTotals(t: TurnTimeline): TimeTotals {
  const wall = t.start !== undefined && t.end !== undefined ? t.end - t.start : 0;
  let model = 0;
  let toolCalls = 0;
  let longest: Span | undefined;
  let longestMs = -1;
  const tools: Array<[number, number]> = [];
  const covered: Array<[number, number]> = [];
  for (const s of t.spans) {
    if (s.kind === 'step' || s.start === undefined) continue;
    const ms = spanLength(s, t.end);
    const range: [number, number] = [s.start, s.start + ms];
    covered.push(range);
    if (s.kind === 'model') model += ms;
    else {
      toolCalls += ms;
      tools.push(range);
      if (ms > longestMs) {
        longestMs = ms;
        longest = s;
      }
    }
  }
  const tool = unionLength(tools);
  return { wall, model, tool, gaps: Math.max(0, wall - unionLength(covered)), toolCalls, longest };
}

/** The length of the union of ranges (sorted here). */
function unionLength(ranges: Array<[number, number]>): number {
  ranges.sort((a, b) => a[0] - b[0]);
  let sum = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const [a, b] of ranges) {
    if (a > to) {
      sum += to - from > 0 ? to - from : 0;
      from = a;
      to = b;
    } else to = Math.max(to, b);
  }
  return sum + (to - from > 0 ? to - from : 0);
}
