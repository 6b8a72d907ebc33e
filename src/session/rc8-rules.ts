// What rc.8 (harness 611615650f) refuses to resume in a v0 log's events, on
// top of the reading rules every era shares. Facts from its source, checked
// in this order by PersistenceCoordinator.prepareCore
// (packages/session/session-persistence/src/coordinator.ts):
//   1. legacy events (assertSupportedEvents): request/header-delta anywhere,
//      then mode/set, then request/header with reason "fallback";
//   2. a type outside KNOWN_SESSION_EVENT_TYPES (packages/core/session/src/
//      known-event-types.ts) without `ignorable: true` (assertEventsSupported);
//   3. the event envelope (assertSessionEventEnvelope, packages/core/session/
//      src/index.ts): only the keys below, type a string, seq and time safe
//      integers, data present, ignorable absent or true.
// A header with a retired field (sandboxMode, approvalPolicy) fails
// fromHeaderLine (session-persistence-jsonl/src/format.ts): resume.ts.
import type { SessionEvent, SessionHeader } from './events.js';
import type { LogFacts } from './log-facts.js';

const RC8_TYPES = new Set([
  'agent-preset/selected', 'agent/inbox/spliced', 'approval/asked', 'approval/decided', 'approval/policy', 'assistant/chunk',
  'assistant/message', 'command/done', 'command/run', 'compaction/end', 'compaction/prune', 'compaction/start', 'compaction/summary',
  'feedback/record', 'goal/change', 'hook/invoked', 'hook/result', 'llm/retry', 'llm/retry-started', 'permission/preset', 'plan/mode',
  'request/context', 'request/header', 'sandbox/mode', 'schedule/change', 'session/end-seed', 'session/title',
  'session/title-llm-request', 'step/end', 'step/start', 'subagent/descriptor', 'team/member', 'team/message/delivered',
  'team/message/queued', 'team/task', 'todo/write', 'tool-workflow/agent-end', 'tool-workflow/agent-start', 'tool-workflow/run-end',
  'tool-workflow/run-start', 'tool/call', 'tool/code-dispatch', 'tool/code-dispatch-start', 'tool/result', 'turn/end', 'turn/start',
  'user/message', 'web/deepseek-search-llm-request',
]);

/** The keys rc.8's envelope allows on an event row. */
const ENVELOPE_KEYS = new Set(['type', 'seq', 'time', 'data', 'surfaceOp', 'sourceEventSeqs', 'ignorable']);

/** A non-negative safe integer, -0 refused (the harness's sessionFormatCount). */
export const safeUint = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0);

/**
 * Why rc.8 does not take `h` as a session header (isHeaderLine, session-persistence-jsonl
 * format.ts), or undefined: resume refuses the log, the session list skips it silently.
 */
export function rc8HeaderProblem(h: SessionHeader): string | undefined {
  if (!safeUint(h.delegationDepth)) return 'rc.8 header has no delegationDepth: rc.8 reads it as "first line is not a session header"';
  if (!safeUint(h.createdAt)) return 'createdAt is not a non-negative safe integer';
  if (h.origin !== undefined && h.origin !== 'subagent') return 'origin must be "subagent" when present';
  if (h.agentPreset !== undefined && typeof h.agentPreset !== 'string') return 'agentPreset is not a string';
  return undefined;
}

/** Header fields rc.8 retired: a header holding one is refused, by resume and by the session list. */
export const RETIRED_HEADER_FIELDS = ['sandboxMode', 'approvalPolicy'] as const;

/** Legacy events, in the order rc.8 looks for them (the first kind found anywhere is the one it names), as its message names them. */
export const LEGACY_KINDS = ['unsupported legacy request/header-delta event', 'unsupported legacy mode/set event', 'unsupported legacy request/header reason "fallback"'] as const;

/** Which legacy kind `e` is (an index into LEGACY_KINDS), or -1. */
export function legacyKind(e: SessionEvent): number {
  if (e.type === 'request/header-delta') return 0;
  if (e.type === 'mode/set') return 1;
  if (e.type === 'request/header' && typeof e.data === 'object' && e.data !== null && (e.data as { reason?: unknown }).reason === 'fallback') return 2;
  return -1;
}

/** True when rc.8 knows `e`'s type, or the row says `ignorable: true`. */
export const rc8Knows = (e: SessionEvent): boolean => RC8_TYPES.has(e.type) || e.ignorable === true;

const safeInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v);

/** Why rc.8's envelope check refuses the parsed row `v` (one event, not a packed row), or undefined. */
export function envelopeProblem(v: Record<string, unknown>): string | undefined {
  for (const k of Object.keys(v)) if (!ENVELOPE_KEYS.has(k)) return `key ${JSON.stringify(k.slice(0, 40))} is not part of the event envelope`;
  if (!safeInt(v.seq) || (v.seq as number) < 0) return '"seq" is not a non-negative safe integer';
  if (v.time === undefined) return 'it has no "time"';
  if (!safeInt(v.time)) return '"time" is not a safe integer';
  if (v.ignorable !== undefined && v.ignorable !== true) return '"ignorable" is present but not true';
  return undefined;
}

/** Folds into `f` the legacy event and the unknown type `e` may be (the events before it folded). */
export function foldRc8Event(f: Pick<LogFacts, 'rc8Legacy' | 'rc8Unknown'>, e: SessionEvent): void {
  const kind = legacyKind(e);
  if (kind >= 0 && (f.rc8Legacy === undefined || kind < f.rc8Legacy.kind)) f.rc8Legacy = { seq: e.seq, kind };
  if (f.rc8Unknown === undefined && !rc8Knows(e)) f.rc8Unknown = { seq: e.seq, type: e.type.slice(0, 100) };
}
