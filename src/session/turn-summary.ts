// One line of facts per turn: prompt, tool calls (name, short argument,
// error), end reason, tokens and duration. Pure; shared by compare and export.
import { indexIn } from './sorted.js';
import { turnDuration, type SessionEvent } from './events.js';
import { buildTurnTree, type TreeNode } from './replay.js';
import { usageOf, type TokenUsage } from './usage.js';

export interface ToolSummary {
  name: string;
  /** a short summary of the arguments (the command, the path, …), at most ARG_MAX chars */
  args: string;
  /** the result is an error (or the call was never answered: `pending`) */
  error: boolean;
  pending?: boolean;
}

export interface TurnSummary {
  turn: number;
  /** seq of turn/start and of the turn's last event */
  seq: number;
  lastSeq: number;
  prompt: string;
  tools: ToolSummary[];
  /** turn/end reason kind, or "open" for a turn not ended yet */
  reason: string;
  open: boolean;
  usage: TokenUsage;
  /** time from turn/start to its last event */
  ms: number;
}

export const ARG_MAX = 80;
const PROMPT_MAX = 2000;

const ARG_KEYS = ['command', 'cmd', 'path', 'file_path', 'filePath', 'file', 'pattern', 'query', 'url', 'description', 'prompt'];

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  if (one.length <= n) return one;
  const cut = /[\uD800-\uDBFF]/.test(one[n - 2]) ? n - 2 : n - 1;
  return one.slice(0, cut) + '…';
}

/** `{"command":"npm test"}` -> `npm test`; anything else: the raw text, shortened. */
export function argSummary(args: string): string {
  if (args.length > 100_000) return clip(args.slice(0, 1000), ARG_MAX);
  let v: unknown;
  try {
    v = JSON.parse(args);
  } catch {
    return clip(args, ARG_MAX);
  }
  if (typeof v === 'string') return clip(v, ARG_MAX);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return clip(args, ARG_MAX);
  const o = v as Record<string, unknown>;
  for (const k of ARG_KEYS) if (typeof o[k] === 'string' && o[k]) return clip(o[k] as string, ARG_MAX);
  for (const k of Object.keys(o)) if (typeof o[k] === 'string' && o[k]) return clip(`${k}=${o[k] as string}`, ARG_MAX);
  return clip(args, ARG_MAX);
}

function collectTools(nodes: readonly TreeNode[], out: ToolSummary[]): void {
  const stack = [...nodes].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (n.kind === 'tool') {
      const t: ToolSummary = { name: n.name, args: argSummary(n.arguments), error: n.result ? n.result.isError : false };
      if (!n.result) t.pending = true;
      out.push(t);
    } else if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
}

/** Index of the event with this seq (seq equals the index in a valid log; tolerate gaps), or -1. */
export function indexOfSeq(events: readonly SessionEvent[], seq: number): number {
  if (events[seq]?.seq === seq) return seq;
  return indexIn(events.length, (i) => events[i].seq, seq);
}

/** The event with this seq, or undefined. */
export const eventAtSeq = (events: readonly SessionEvent[], seq: number): SessionEvent | undefined => events[indexOfSeq(events, seq)];

/** Every turn of the log, in order. Events between turns (rc8) belong to no turn. */
export function turnSummaries(events: readonly SessionEvent[]): TurnSummary[] {
  const out: TurnSummary[] = [];
  let from = 0;
  for (let i = 1; i <= events.length; i++)
    if (i === events.length || events[i].type === 'turn/start') {
      segmentSummaries(from === 0 && i === events.length ? events : events.slice(from, i), out);
      from = i;
    }
  return out;
}

/**
 * The summaries of one segment of a log (a turn/start up to the next, or the
 * events before the first), appended to `out`: no turn crosses a turn/start
 * (replay.ts), so a log read a segment at a time (a comparison of two 10 GB
 * logs) gives the summaries of the whole log.
 */
export function segmentSummaries(events: readonly SessionEvent[], out: TurnSummary[]): void {
  for (const n of buildTurnTree(events)) {
    if (n.kind !== 'turn') continue;
    const tools: ToolSummary[] = [];
    collectTools(n.children, tools);
    const from = indexOfSeq(events, n.seq);
    const to = indexOfSeq(events, n.lastSeq);
    out.push({
      turn: n.turn,
      seq: n.seq,
      lastSeq: n.lastSeq,
      prompt: clip(n.prompt ?? '', PROMPT_MAX),
      tools,
      reason: n.open ? 'open' : (n.reason ?? '?'),
      open: n.open,
      usage: from >= 0 && to >= 0 ? usageOf(events, from, to + 1) : usageOf([]),
      ms: (from >= 0 && to >= 0 ? turnDuration(events[from].time, events[to].time) : undefined) ?? 0,
    });
  }
}

/** What makes two turns "the same" for folding: prompt, tools and their outcome, end reason. */
export function turnKey(t: TurnSummary): string {
  return JSON.stringify([t.prompt, t.reason, t.tools.map((x) => [x.name, x.args, x.error, x.pending === true])]);
}
