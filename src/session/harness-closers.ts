// The results the harness writes itself, not a tool: when its own fork cuts
// inside a turn, and when it repairs a crashed one. Facts from the
// harness's v3-to-v4 README (zsagi1368/deepseek-harness-zDSH @a18d8a99,
// packages/session/session-format-v3-to-v4/README.md, "Fork-generated
// results" and "Lifecycle and reference relationships"):
//   - a call advertised in an assistant message (a tool-call block) but never
//     started gets a TOOL_NOT_STARTED error result (ToolNotStartedError, one
//     text block, isError) whose message id is exactly
//     `forked-tool-result-<callId>-<seq>` (a fork) or
//     `interrupted-tool-result-<callId>-<seq>` (a crash repair, with its fixed
//     text); such a result settles the advertised call with no tool/call;
//   - a started call gets a TOOL_OUTCOME_UNKNOWN error result;
//   - then step/end, and turn/end with reason kind "forked" (a fork) or
//     "interrupted" (a repair).
// Pure: no I/O.
import { messageOf, type SessionEvent } from './events.js';
import { textOf } from './json-safe.js';

/** What a synthetic result says happened to its call. */
export type Synthetic = 'not started' | 'outcome unknown';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether the tool/result `e` (answering `callId`: replay.ts callIdOf) is one the harness wrote itself, and which:
 * TOOL_NOT_STARTED only under its exact id rule, TOOL_OUTCOME_UNKNOWN by its code.
 */
export function syntheticResult(e: SessionEvent, callId: string): Synthetic | undefined {
  if (e.type !== 'tool/result' || !isObj(e.data)) return undefined;
  const err = e.data.error;
  if (!isObj(err)) return undefined;
  if (err.code === 'TOOL_OUTCOME_UNKNOWN') return 'outcome unknown';
  if (err.code !== 'TOOL_NOT_STARTED' || err.name !== 'ToolNotStartedError') return undefined;
  const id = (messageOf(e) as { id?: unknown }).id;
  return id === `forked-tool-result-${callId}-${e.seq}` || id === `interrupted-tool-result-${callId}-${e.seq}` ? 'not started' : undefined;
}

/** The call id of a tool/call or tool/result: data.callId, else (v4's role tool) its message's source. */
export function callIdOf(e: SessionEvent): string {
  const d = e.data ?? {};
  return textOf(e.type === 'tool/call' ? (d.callId ?? '') : (d.callId ?? (messageOf(e) as { source?: { callId?: unknown } }).source?.callId ?? ''));
}

/** A tool call an assistant message advertises (a tool-call block of its content). */
export interface Advertised {
  id: string;
  name: string;
  arguments: string;
}

/** The tool calls the assistant/message `e` advertises, in order (none for another event). */
export function advertisedCalls(e: SessionEvent): Advertised[] {
  if (e.type !== 'assistant/message') return [];
  const content = messageOf(e).content;
  if (!Array.isArray(content)) return [];
  const out: Advertised[] = [];
  for (const b of content) {
    if (!isObj(b) || b.type !== 'tool-call' || typeof b.id !== 'string') continue;
    // textOf: arguments nested any depth (a hostile file) are written without recursion
    out.push({ id: b.id, name: typeof b.name === 'string' ? b.name : '?', arguments: textOf(b.arguments ?? null) });
  }
  return out;
}
