// Invariant audit (docs/formats.md, "Replay and invariants"). Each finding
// has a stable code.
import type { Diagnostic } from './diagnostics.js';
import type { SessionEvent } from './events.js';
import { isBoundary } from './log-facts.js';
import { auditStructure, expand, foldAudit, quote, START, type StructureFinding } from './event-audit.js';
import { stringifyDeep } from './json-safe.js';
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

const q = quote;

/** Per-session structural checks: turn enclosure and unanswered tool calls. */
export function auditEvents(s: Session, events: readonly SessionEvent[]): Finding[] {
  return auditStructure(events).map(named(s));
}

/** A structural finding of `s`'s log, named (its keys in the order the audit always wrote them). */
const named =
  (s: Session) =>
  (f: StructureFinding): Finding => ({ session: s.id, file: s.file, seq: f.seq, code: f.code, severity: f.severity, message: f.message });

function diagnosticFinding(d: Diagnostic, session?: string): Finding {
  return { code: d.code, severity: d.severity, session, file: d.file, line: d.line, message: d.message };
}

/**
 * A session's events for the audit as they are read, never all at once (a
 * 10 GB log is audited in the memory of a batch): a generator of
 * batches of events in order, and `undefined` wherever it may pause (the audit
 * yields there). `count`: only the first so many events.
 */
export type EventsOf = (s: Session, count?: number) => Generator<readonly SessionEvent[] | undefined, void, void>;

/** The events without pauses: the loaded ones, else the log read in batches and not kept (Session.eventBatches). */
export const loadedEvents: EventsOf = function* (s, count) {
  yield* s.eventBatches(count);
};

/**
 * The events read in slices: a separate read of the log (the session is left
 * as it is: nothing is kept), pausing between chunks when `pause()` says so;
 * in memory already, they are used as they are.
 */
export function slicedEvents(pause: () => boolean): EventsOf {
  return (s, count = Infinity) => s.pausedBatches(count, pause);
}

/** The events of `g` one at a time, its pauses passed on (yield* this in an audit generator; undefined at its end). */
function* nextEvent(it: { g: Iterator<readonly SessionEvent[] | undefined>; batch: readonly SessionEvent[]; k: number }): Generator<void, SessionEvent | undefined, void> {
  while (it.k >= it.batch.length) {
    const r = it.g.next();
    if (r.done) return undefined;
    if (r.value === undefined) yield;
    else {
      it.batch = r.value;
      it.k = 0;
    }
  }
  return it.batch[it.k++];
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
 * A session's findings without reading its log, when its reader folded its
 * structure (event-audit.ts) and no seed is to be compared with a parent's
 * log; else undefined (auditSessionSteps reads it). What auditSessionSteps
 * gives, at once: most sessions are audited here.
 */
export function auditFolded(s: Session, byId: ReadonlyMap<string, readonly Session[]>): Finding[] | undefined {
  // (a catalog session's row holds its fold: the clean pass builds no log state)
  const folded = s.row ? s.row.structure : s.log.structure?.();
  if (folded === undefined) return undefined;
  const pid = s.parentSession;
  const parents = pid === undefined || pid === s.id ? undefined : (byId.get(pid) ?? []); // a self-parent is reported as a cycle
  if (parents !== undefined && parents.length > 0 && s.seedLength !== undefined) return undefined;
  const orphan = parents !== undefined && parents.length === 0;
  if (s.diagnosticCount === 0 && folded.length === 0 && !orphan) return CLEAN;
  const out: Finding[] = s.diagnosticCount === 0 ? [] : s.diagnostics.map((d) => diagnosticFinding(d, s.id));
  for (const f of folded) out.push(named(s)(f));
  if (orphan) out.push({ code: 'ORPHAN_PARENT', severity: 'warning', session: s.id, file: s.file, message: `parent session ${q(pid!)} is not in this root` });
  return out;
}

/** The findings of a clean session: one shared, frozen empty list. */
const CLEAN: Finding[] = Object.freeze([]) as unknown as Finding[];

/**
 * auditSession in steps: it yields wherever `pause()` says so (between
 * chunks of a log being read, and every EVENTS_PER_LOOK events checked), so
 * a 50,000-event session is audited in slices; run to its end it gives what
 * auditSession gives. `events` reads a session's events (loadedEvents, slicedEvents).
 */
export function* auditSessionSteps(s: Session, byId: ReadonlyMap<string, readonly Session[]>, events: EventsOf, pause: () => boolean): Generator<void, Finding[], void> {
  const folded = auditFolded(s, byId);
  if (folded) return folded;
  const out: Finding[] = s.diagnostics.map((d) => diagnosticFinding(d, s.id));
  const pid = s.parentSession;
  const parents = pid === undefined || pid === s.id ? undefined : (byId.get(pid) ?? []); // a self-parent is reported as a cycle
  const orphan = (): Finding => ({ code: 'ORPHAN_PARENT', severity: 'warning', session: s.id, file: s.file, message: `parent session ${q(pid!)} is not in this root` });
  const a = expand(START)!;
  let i = 0;
  for (const batch of events(s)) {
    if (batch === undefined) {
      yield;
      continue;
    }
    for (const e of batch) {
      foldAudit(a, e);
      if (++i % EVENTS_PER_LOOK === 0 && pause()) yield;
    }
  }
  for (const f of a.found ?? []) out.push(named(s)(f));
  if (parents === undefined) return out;
  if (parents.length === 0) {
    out.push(orphan());
    return out;
  }
  if (s.seedLength !== undefined) out.push(...(yield* auditSeed(s, [...parents], events, pause)));
  return out;
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

/**
 * The child's first seedLength events against each parent's, event by event
 * as both logs are read (two batches held, never the seeds).
 */
function* auditSeed(s: Session, parents: Session[], events: EventsOf, pause: () => boolean): Generator<void, Finding[], void> {
  const n = s.seedLength!;
  const base = { session: s.id, file: s.file };
  if (s.length < n) return [{ ...base, code: 'SEED_MISMATCH', severity: 'error', message: `seedLength is ${n} but the child has only ${s.length} events` }];
  let firstDiff = '';
  let diffSeq: number | undefined;
  for (const p of parents) {
    let diff = '';
    if (p.length < n) diff = `parent ${q(p.id)} has only ${p.length} events, seedLength is ${n}`;
    else {
      const mine = { g: events(s, n), batch: [] as readonly SessionEvent[], k: 0 };
      const theirs = { g: events(p, n), batch: [] as readonly SessionEvent[], k: 0 };
      try {
        for (let i = 0; i < n; i++) {
          const c = yield* nextEvent(mine);
          const pe = yield* nextEvent(theirs);
          if (c === undefined || pe === undefined) throw new Error(`internal: a seed of ${n} events ended at ${i}`);
          const child = canonicalJson(c);
          if (canonicalJson(pe) !== child) {
            diffSeq ??= i;
            diff = `event seq ${i} differs from the parent's (${pe.type} vs ${child.slice(0, 80)})`;
            break;
          }
          if (i % EVENTS_PER_LOOK === EVENTS_PER_LOOK - 1 && pause()) yield;
        }
      } finally {
        mine.g.return?.(undefined);
        theirs.g.return?.(undefined);
      }
    }
    if (diff === '') {
      // the harness's own fork may cut inside a turn when the child's first events close it (harness-closers.ts)
      const cut = s.facts.forkCut;
      if (n > 0 && !isBoundary(p.facts, n - 1) && cut?.state !== 'closed')
        return [{ ...base, code: 'SEED_NOT_AT_BOUNDARY', severity: 'error', message: `seedLength ${n} cuts parent ${q(p.id)} inside a turn (seq ${n - 1} is not a boundary)${cut ? `, and the child's own first events do not close it as the harness's fork does (tool results, step/end, then turn/end "forked")` : ''}` }];
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
