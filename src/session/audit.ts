// Invariant audit (DOMAIN.md §5). Each finding has a stable code.
import type { Diagnostic } from './diagnostics.js';
import type { SessionEvent } from './events.js';
import { isBoundary } from './log-facts.js';
import { stringifyDeep, textOf } from './json-safe.js';
import type { Session } from './session.js';

export type Severity = 'error' | 'warning';

export interface Finding {
  code: string;
  severity: Severity;
  session?: string;
  file?: string;
  line?: number;
  /** the event the finding is about, when there is one */
  seq?: number;
  message: string;
}

/**
 * Stable JSON with sorted keys, for objects nested any depth. The built-in
 * (with a sorting replacer) is the fast path; it overflows the stack on data
 * nested ~10,000+ deep, and then the iterative stringifyDeep gives the same
 * text. (Before, every such value became one constant string, so two
 * different deep events compared equal in the seed check.)
 */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
  } catch (e) {
    if (!(e instanceof RangeError)) return '\u0000unserialisable';
    try {
      return stringifyDeep(value, { sortKeys: true }) ?? 'undefined';
    } catch {
      return '\u0000unserialisable';
    }
  }
}

/** A data field in a message: `${v}` would recurse (and overflow) on a deep array. */
const show = (v: unknown): string => {
  const s = textOf(v);
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
};

const q = (s: string) => JSON.stringify(s);

/** Per-session structural checks: turn enclosure and unanswered tool calls. */
export function auditEvents(s: Session, events: readonly SessionEvent[]): Finding[] {
  const a = new EventAudit(s);
  for (const e of events) a.add(e);
  return a.out;
}

/** auditEvents as a fold: add() the events in order; `out` holds the findings so far. */
class EventAudit {
  readonly out: Finding[] = [];
  private readonly base: { session: string; file?: string };
  private openTurn: unknown = null;
  private openStep = false;
  private expectTurn = 1;
  private readonly pending = new Map<string, number>();

  constructor(s: Session) {
    this.base = { session: s.id, file: s.file };
  }

  add(e: SessionEvent): void {
    const { out, base, pending } = this;
    const d = e.data ?? {};
    switch (e.type) {
      case 'turn/start':
        if (this.openTurn !== null) out.push({ ...base, seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `turn ${show(d.turn)} starts at seq ${e.seq} while turn ${this.openTurn} is still open` });
        if (d.turn !== this.expectTurn) out.push({ ...base, seq: e.seq, code: 'TURN_NUMBERING', severity: 'warning', message: `turn at seq ${e.seq} is numbered ${show(d.turn)}, expected ${this.expectTurn}` });
        this.openTurn = d.turn;
        this.expectTurn = (typeof d.turn === 'number' ? d.turn : this.expectTurn) + 1;
        this.openStep = false;
        pending.clear();
        break;
      case 'turn/end':
        if (this.openTurn === null) out.push({ ...base, seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `turn/end at seq ${e.seq} without an open turn` });
        for (const [callId, seq] of pending)
          out.push({ ...base, seq, code: 'UNANSWERED_TOOL_CALL', severity: 'error', message: `tool/call ${q(callId)} at seq ${seq} has no tool/result before its turn ended at seq ${e.seq}` });
        pending.clear();
        this.openTurn = null;
        this.openStep = false;
        break;
      case 'step/start':
        if (this.openTurn === null) out.push({ ...base, seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `step/start at seq ${e.seq} outside a turn` });
        this.openStep = true;
        break;
      case 'step/end':
        if (!this.openStep) out.push({ ...base, seq: e.seq, code: 'TURN_ENCLOSURE', severity: 'warning', message: `step/end at seq ${e.seq} without an open step` });
        this.openStep = false;
        break;
      case 'tool/call':
        pending.set(textOf(d.callId), e.seq);
        break;
      case 'tool/result': {
        const id = textOf(d.callId ?? d.message?.source?.callId);
        if (!pending.delete(id)) out.push({ ...base, seq: e.seq, code: 'UNMATCHED_TOOL_RESULT', severity: 'warning', message: `tool/result at seq ${e.seq} answers no pending call (${q(id)})` });
        break;
      }
    }
  }
}

function diagnosticFinding(d: Diagnostic, session?: string): Finding {
  return { code: d.code, severity: d.severity, session, file: d.file, line: d.line, message: d.message };
}

/**
 * A session's events for the audit, read in steps (a generator: it yields
 * where it may pause), and how to let them go when the audit is done.
 */
export type EventsOf = (s: Session) => Generator<void, { events: readonly SessionEvent[]; release(): void }, void>;

/** The session's own events, loaded at once (and unloaded again if they were not loaded before). */
export const loadedEvents: EventsOf = function* (s) {
  const was = s.isLoaded;
  const events = s.events;
  return { events, release: () => (was ? undefined : s.unload()) };
};

/**
 * The events read in slices: a separate read of the log (the session is left
 * as it is: a load it did not ask for is not kept), pausing between chunks
 * when `pause()` says so; in memory already, they are used as they are.
 */
export function slicedEvents(pause: () => boolean): EventsOf {
  return function* (s) {
    const job = s.readJob();
    if (!job) return { events: s.events, release: () => {} };
    try {
      while (!job.step(pause)) yield;
      return { events: job.result().events, release: () => {} };
    } finally {
      job.close();
    }
  };
}

/** Runs an audit generator to its end (no pause). */
export function runSteps<T>(g: Generator<void, T, void>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

/** Work between two looks at pause() in the loops over events. */
const EVENTS_PER_LOOK = 512;

export const sessionsById = (sessions: readonly Session[]): Map<string, Session[]> => {
  const byId = new Map<string, Session[]>();
  for (const s of sessions) {
    const list = byId.get(s.id);
    if (list) list.push(s);
    else byId.set(s.id, [s]);
  }
  return byId;
};

/** The findings about the root as a whole, which need no events: refused files, duplicate ids, lineage cycles. */
export function auditRoot(sessions: readonly Session[], fileDiagnostics: readonly Diagnostic[] = [], byId = sessionsById(sessions)): Finding[] {
  const out: Finding[] = fileDiagnostics.map((d) => diagnosticFinding(d));
  for (const [id, list] of byId)
    if (list.length > 1)
      out.push({ code: 'DUPLICATE_ID', severity: 'warning', session: id, message: `${list.length} sessions share id ${q(id)}: ${list.map((s) => s.file ?? '(memory)').join(', ')}` });
  out.push(...lineageCycles(sessions));
  return out;
}

/** The findings of one session: its diagnostics, its structure, its parent and its seed (reads its events and its parents'). */
export function auditSession(s: Session, byId: ReadonlyMap<string, readonly Session[]>): Finding[] {
  return runSteps(auditSessionSteps(s, byId, loadedEvents, () => false));
}

/**
 * auditSession in steps: it yields wherever `pause()` says so (between
 * chunks of a log being read, and every EVENTS_PER_LOOK events checked), so
 * a 50,000-event session is audited in slices; run to its end it gives what
 * auditSession gives. `events` reads a session's events (loadedEvents, slicedEvents).
 */
export function* auditSessionSteps(s: Session, byId: ReadonlyMap<string, readonly Session[]>, events: EventsOf, pause: () => boolean): Generator<void, Finding[], void> {
  const out: Finding[] = s.diagnostics.map((d) => diagnosticFinding(d, s.id));
  const own = yield* events(s);
  try {
    const a = new EventAudit(s);
    const ev = own.events;
    for (let i = 0; i < ev.length; i++) {
      a.add(ev[i]);
      if (i % EVENTS_PER_LOOK === EVENTS_PER_LOOK - 1 && pause()) yield;
    }
    out.push(...a.out);
    const pid = s.parentSession;
    if (pid === undefined || pid === s.id) return out; // a self-parent is reported as a cycle
    const parents = byId.get(pid) ?? [];
    if (parents.length === 0) {
      out.push({ code: 'ORPHAN_PARENT', severity: 'warning', session: s.id, file: s.file, message: `parent session ${q(pid)} is not in this root` });
      return out;
    }
    if (s.seedLength !== undefined) out.push(...(yield* auditSeed(s, ev, [...parents], events, pause)));
    return out;
  } finally {
    own.release();
  }
}

/**
 * Audits every session: diagnostics, structure, duplicate ids, orphans,
 * cycles and seeds. Loads each session's events in turn and unloads the ones
 * it loaded, so memory stays bounded by the largest pair of sessions.
 */
export function auditSessions(sessions: readonly Session[], fileDiagnostics: readonly Diagnostic[] = []): Finding[] {
  const byId = sessionsById(sessions);
  const root = auditRoot(sessions, fileDiagnostics, byId);
  const cycles = root.filter((f) => f.code === 'LINEAGE_CYCLE');
  return [...root.filter((f) => f.code !== 'LINEAGE_CYCLE'), ...sessions.flatMap((s) => auditSession(s, byId)), ...cycles];
}

function* auditSeed(s: Session, ev: readonly SessionEvent[], parents: Session[], events: EventsOf, pause: () => boolean): Generator<void, Finding[], void> {
  const n = s.seedLength!;
  const base = { session: s.id, file: s.file };
  const childSeed: string[] = [];
  for (let i = 0; i < Math.min(n, ev.length); i++) {
    childSeed.push(canonicalJson(ev[i]));
    if (i % EVENTS_PER_LOOK === EVENTS_PER_LOOK - 1 && pause()) yield;
  }
  if (childSeed.length < n) return [{ ...base, code: 'SEED_MISMATCH', severity: 'error', message: `seedLength is ${n} but the child has only ${childSeed.length} events` }];
  let firstDiff = '';
  let diffSeq: number | undefined;
  for (const p of parents) {
    const theirs = yield* events(p);
    let diff = '';
    try {
      const pe = theirs.events;
      if (pe.length < n) diff = `parent ${q(p.id)} has only ${pe.length} events, seedLength is ${n}`;
      else
        for (let i = 0; i < n; i++) {
          if (canonicalJson(pe[i]) !== childSeed[i]) {
            diffSeq ??= i;
            diff = `event seq ${i} differs from the parent's (${pe[i].type} vs ${childSeed[i].slice(0, 80)})`;
            break;
          }
          if (i % EVENTS_PER_LOOK === EVENTS_PER_LOOK - 1 && pause()) yield;
        }
    } finally {
      theirs.release();
    }
    if (diff === '') {
      if (n > 0 && !isBoundary(p.facts, n - 1))
        return [{ ...base, code: 'SEED_NOT_AT_BOUNDARY', severity: 'error', message: `seedLength ${n} cuts parent ${q(p.id)} inside a turn (seq ${n - 1} is not a boundary)` }];
      return [];
    }
    firstDiff ||= diff;
  }
  return [{ ...base, ...(diffSeq !== undefined ? { seq: diffSeq } : {}), code: 'SEED_MISMATCH', severity: 'error', message: `the first ${n} events differ from the parent's: ${firstDiff}` }];
}

/** Cycles in parentSession links (by id), including self-parents. */
export function lineageCycles(sessions: readonly Session[]): Finding[] {
  const parentOf = new Map<string, string>();
  for (const s of sessions) if (s.parentSession !== undefined && !parentOf.has(s.id)) parentOf.set(s.id, s.parentSession);
  const state = new Map<string, 1 | 2>(); // 1 on the current path, 2 done
  const out: Finding[] = [];
  for (const start of parentOf.keys()) {
    const path: string[] = [];
    let cur: string | undefined = start;
    while (cur !== undefined && !state.has(cur)) {
      state.set(cur, 1);
      path.push(cur);
      cur = parentOf.get(cur);
    }
    if (cur !== undefined && state.get(cur) === 1) {
      const cycle = path.slice(path.indexOf(cur));
      out.push({ code: 'LINEAGE_CYCLE', severity: 'error', session: cur, message: `lineage cycle: ${[...cycle, cur].map(q).join(' -> ')}` });
    }
    for (const p of path) state.set(p, 2);
  }
  return out;
}
