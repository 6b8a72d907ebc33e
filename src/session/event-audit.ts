// The audit's checks of one log's events (turn enclosure and numbering,
// unanswered and unmatched tool calls) as a fold over the events in order.
// The index's reader folds each event it reads (storage/log-reader.ts), so a
// session's structural findings are known without reading its log again (a
// second read of every log was ~40% of a cold start's CPU at 100,000
// sessions), and a live append folds only what it added. The audit reads the
// events again only for what a fold cannot know: a child's seed against its
// parent's log.
import type { SessionEvent } from './events.js';
import { textOf } from './json-safe.js';
import { advertisedCalls, callIdOf } from './harness-closers.js';

/** A finding of a log's own events, before the audit names its session and file. */
export interface StructureFinding {
  seq: number;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

/** The fold's state in the middle of a log (see AuditState for the usual, compact form). */
export interface AuditFold {
  /** the open turn's number as written (null between turns) */
  turn: unknown;
  step: boolean;
  /** the number the next turn/start should have */
  expect: number;
  /** tool calls of the open turn not answered yet: callId -> seq, in the order made (made at the first call) */
  pending: Map<string, number> | undefined;
  /**
   * calls an assistant message of the open turn advertised and no tool/call
   * started: callId -> seq (harness-closers.ts). A result may settle one (the
   * harness's TOOL_NOT_STARTED results, its forks' and crash repairs').
   */
  advertised?: Map<string, number>;
  /** what it found (made at the first finding) */
  found: StructureFinding[] | undefined;
}

/**
 * The fold's state in short (what the fact cache keeps): a whole AuditFold;
 * or, in the state nearly every log ends in (between turns, no step open, no
 * call pending, nothing found), only the next turn's number; or UNKNOWN: the
 * fold did not see every event, and the audit reads the log instead. (A
 * reader keeps nothing at all in the usual end state: the next turn's number
 * is then its facts' turn count + 1, as every turn so far was numbered right.)
 */
export type AuditState = AuditFold | number;
export const UNKNOWN = -1;

/** The state before the first event. */
export const START: AuditState = 1;

/** A data field in a message: `${v}` would recurse (and overflow) on a deep array. */
const show = (v: unknown): string => {
  const s = textOf(v);
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
};

export const quote = (s: string) => JSON.stringify(s);

export const NO_FINDINGS: readonly StructureFinding[] = Object.freeze([]);

/** The state as a fold to add events to (UNKNOWN stays unknown: undefined). */
export function expand(s: AuditState): AuditFold | undefined {
  if (typeof s !== 'number') return s;
  if (s === UNKNOWN) return undefined;
  return { turn: null, step: false, expect: s, pending: undefined, found: undefined };
}

/** The next turn's number when the fold is in the usual end state (between turns, nothing pending, nothing found), else undefined. */
export function quietExpect(s: AuditFold): number | undefined {
  return s.turn === null && !s.step && !s.pending?.size && !s.advertised?.size && !s.found?.length ? s.expect : undefined;
}

/** The state in its compact form when it is the usual end state (a small non-negative integer; UNKNOWN and the rare odd number, a turn numbered 1.5, stay whole). */
function settle(s: AuditState): AuditState {
  if (typeof s === 'number') return s;
  const n = quietExpect(s);
  return n !== undefined && Number.isInteger(n) && n >= 0 && n < 2 ** 30 ? n : s;
}

/** Folds one event (in log order) into `a`. */
export function foldAudit(a: AuditFold, e: SessionEvent): void {
  const pending = a.pending;
  const d = e.data ?? {};
  switch (e.type) {
    case 'turn/start':
      if (a.turn !== null) add(a, { seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `turn ${show(d.turn)} starts at seq ${e.seq} while turn ${a.turn} is still open` });
      if (d.turn !== a.expect) add(a, { seq: e.seq, code: 'TURN_NUMBERING', severity: 'warning', message: `turn at seq ${e.seq} is numbered ${show(d.turn)}, expected ${a.expect}` });
      a.turn = d.turn;
      a.expect = (typeof d.turn === 'number' ? d.turn : a.expect) + 1;
      a.step = false;
      pending?.clear();
      a.advertised?.clear();
      break;
    case 'turn/end':
      if (a.turn === null) add(a, { seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `turn/end at seq ${e.seq} without an open turn` });
      if (pending)
        for (const [callId, seq] of pending)
          add(a, { seq, code: 'UNANSWERED_TOOL_CALL', severity: 'error', message: `tool/call ${quote(callId)} at seq ${seq} has no tool/result before its turn ended at seq ${e.seq}` });
      pending?.clear();
      a.advertised?.clear();
      a.turn = null;
      a.step = false;
      break;
    case 'step/start':
      if (a.turn === null) add(a, { seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `step/start at seq ${e.seq} outside a turn` });
      a.step = true;
      break;
    case 'step/end':
      if (!a.step) add(a, { seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `step/end at seq ${e.seq} without an open step` });
      a.step = false;
      break;
    case 'tool/call':
      (a.pending ??= new Map()).set(callIdOf(e), e.seq);
      a.advertised?.delete(callIdOf(e));
      break;
    case 'assistant/message':
      for (const c of advertisedCalls(e)) (a.advertised ??= new Map()).set(c.id, e.seq);
      break;
    case 'tool/result': {
      const id = callIdOf(e);
      if (!pending?.delete(id) && !a.advertised?.delete(id)) add(a, { seq: e.seq, code: 'UNMATCHED_TOOL_RESULT', severity: 'warning', message: `tool/result at seq ${e.seq} answers no pending or advertised call (${quote(id)})` });
      break;
    }
  }
}

function add(a: AuditFold, f: StructureFinding): void {
  (a.found ??= []).push(f);
}

/** The structural findings of a whole list of events. */
export function auditStructure(events: readonly SessionEvent[]): StructureFinding[] {
  const a = expand(START)!;
  for (const e of events) foldAudit(a, e);
  return a.found ?? [];
}

/**
 * The state as JSON (the fact cache keeps it, so a session rebuilt from the
 * cache folds its next appends too): a number as it is; a fold as
 * [turn, step, expect, [[callId, seq]...], [[seq, code, severity, message]...]].
 * A fold whose open turn is not a plain value (written as an object, say) is
 * kept as UNKNOWN: the audit reads that log when it needs it.
 */
export function auditToJson(s: AuditState): unknown {
  if (typeof s === 'number') return Number.isFinite(s) ? s : UNKNOWN;
  const t = s.turn;
  if (!(t === null || typeof t === 'string' || typeof t === 'boolean' || (typeof t === 'number' && Number.isFinite(t))) || !Number.isFinite(s.expect)) return UNKNOWN;
  const out: unknown[] = [t, s.step, s.expect, [...(s.pending ?? [])], (s.found ?? []).map((f) => [f.seq, f.code, f.severity, f.message])];
  if (s.advertised?.size) out.push([...s.advertised]);
  return out;
}

/** auditToJson's answer read back; UNKNOWN when it is not one. */
export function auditFromJson(v: unknown): AuditState {
  if (typeof v === 'number') return Number.isInteger(v) && v >= UNKNOWN ? settle(v) : UNKNOWN;
  if (!Array.isArray(v) || (v.length !== 5 && v.length !== 6)) return UNKNOWN;
  const [turn, step, expect, pending, found, advertised = []] = v as unknown[];
  const plain = turn === null || typeof turn === 'string' || typeof turn === 'boolean' || typeof turn === 'number';
  if (!plain || typeof step !== 'boolean' || typeof expect !== 'number' || !Array.isArray(pending) || !Array.isArray(found)) return UNKNOWN;
  const fold: AuditFold = { turn, step, expect, pending: undefined, found: undefined };
  for (const p of pending) {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'number') return UNKNOWN;
    (fold.pending ??= new Map()).set(p[0], p[1]);
  }
  if (!Array.isArray(advertised)) return UNKNOWN;
  for (const p of advertised) {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'number') return UNKNOWN;
    (fold.advertised ??= new Map()).set(p[0], p[1]);
  }
  for (const f of found) {
    if (!Array.isArray(f) || f.length !== 4 || typeof f[0] !== 'number' || typeof f[1] !== 'string' || (f[2] !== 'error' && f[2] !== 'warning') || typeof f[3] !== 'string') return UNKNOWN;
    (fold.found ??= []).push({ seq: f[0], code: f[1], severity: f[2], message: f[3] });
  }
  return settle(fold);
}
