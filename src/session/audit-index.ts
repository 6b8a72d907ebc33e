// The audit, kept current in the background: each session's findings are
// computed once (reading its events and its parents' for the seed check) and
// again only when it or its parents change. `step` audits stale sessions until
// a time budget is spent, so the TUI runs it in small slices between frames
// and never blocks a key for long: a session's audit itself runs in steps
// (auditSessionSteps), so a 50,000-event session spans many slices.
// Most sessions are audited at once from their reader's fold (auditFolded).
// With a memory (AuditMemory: the findings cache of an earlier run), a
// session the fold cannot answer (a seed to compare), unchanged since it was
// audited, and its parents too, takes its findings from there instead of
// reading its log again.
import { sessionKey } from './session-key.js';
import { auditFolded, auditRoot, auditSessionSteps, slicedEvents, type Finding } from './audit.js';
import type { Diagnostic } from './diagnostics.js';
import { Journal } from './journal.js';
import { NumberedMap, type KeyTable } from './key-table.js';
import type { Session } from './session.js';


/** A session as audited: the parents it was audited against (the seed check), in order, and what was found. */
export interface AuditedSession {
  session: Session;
  parents: readonly Session[];
  findings: readonly Finding[];
}

/**
 * Findings kept between runs (storage/findings-cache.ts). recall: the
 * findings of `s` audited against these `parents`, when neither has changed
 * since (else undefined: audit it). keep: called once, when every session has
 * been audited the first time; `audited()` lists them.
 */
export interface AuditMemory {
  recall(s: Session, parents: readonly Session[]): readonly Finding[] | undefined;
  keep(audited: () => AuditedSession[]): void;
}

/** The live sessions by id and by key (SessionStore). */
export interface AuditSource {
  withId(id: string): readonly Session[];
  byFile(key: string): Session | undefined;
  /** the numbers of its keys, which the audit's results are kept by (key-table.ts) */
  readonly keys?: KeyTable;
}

/** What a session's findings depend on besides its own log: its parents' (the seed check). */
function parentsSig(s: Session, byId: ReadonlyMap<string, readonly Session[]>): string {
  if (s.parentSession === undefined) return '';
  const parents = byId.get(s.parentSession) ?? [];
  return parents.map((p) => `${sessionKey(p)}:${p.length}`).join(',');
}

const parentsOf = (s: Session, byId: ReadonlyMap<string, readonly Session[]>): readonly Session[] => (s.parentSession === undefined ? [] : (byId.get(s.parentSession) ?? []));

interface Entry {
  session: Session;
  /** its log when audited (numbers: checking 100,000 of them after each change stays cheap) */
  length: number;
  consumed: number;
  diagnostics: number;
  parents: string;
  findings: Finding[];
}

/** The id map of a drained work list (nothing left to audit). */
const NO_IDS: ReadonlyMap<string, readonly Session[]> = new Map();

/** The findings of a clean session: one shared empty array (most sessions have none). */
const NO_FINDINGS: Finding[] = Object.freeze([]) as unknown as Finding[];

/** A session's audit under way across slices, and its log as it was when it started (what its entry records). */
interface Job {
  /** the entry to keep once done (its findings filled in then): one object, one hidden class (a spread gave each its own) */
  entry: Entry;
  steps: Generator<void, Finding[], void>;
}

const current = (e: Entry | undefined, s: Session, byId: ReadonlyMap<string, readonly Session[]>): boolean =>
  e !== undefined && e.session === s && e.length === s.length && e.consumed === s.consumed && e.diagnostics === s.diagnosticCount && e.parents === parentsSig(s, byId);

export class AuditIndex {
  /** each session's audit, by key (kept by the store's key numbers when it has them) */
  private readonly done: Map<string, Entry>;
  /** the keys of sessions whose findings were (re)computed or dropped, in order */
  readonly changes = new Journal();
  /**
   * Moves when what the audit found can show: a session's findings set
   * non-empty, or non-empty ones replaced or dropped. A clean session audited
   * clean moves nothing (its badge and the Problems tab stay as they were):
   * at 100,000 clean sessions the audit's news drew ~40 frames that showed
   * nothing new, ~0.5 s of CPU.
   */
  findingsVersion = 0;

  /** Keeps `entry` as the audit of `key`. */
  private record(key: string, entry: Entry): void {
    if (entry.findings.length > 0 || (this.done.get(key)?.findings.length ?? 0) > 0) this.findingsVersion++;
    this.done.set(key, entry);
    this.changes.note(key);
  }
  /**
   * The sessions still to audit and the id map they are audited against,
   * as of the last look at the store; undefined after a change (invalidate):
   * the next step looks again. So a slice costs the sessions it audits, not a
   * pass over the whole root (which made the background work quadratic).
   */
  private work?: { todo: Session[]; next: number; byId: ReadonlyMap<string, readonly Session[]> };
  /** the session being audited, kept across slices (and across a change, while it is still to audit) */
  private job?: Job;
  /** the current step's pause (the job's reads and loops ask it) */
  private pause: () => boolean = () => false;
  /** the current step's pause, as one function for every audit (three closures a session were made here) */
  private readonly paused = (): boolean => this.pause();
  /** each session's events, read in slices that stop when the step's budget is spent */
  private readonly events = slicedEvents(this.paused);
  /** the memory was handed the findings (once: the first time every session was audited) */
  private kept = false;
  /** the sessions audited without their fold (recalled from the memory, or read): the ones the memory keeps */
  private readonly remembered = new Set<string>();

  /**
   * `store`: the live store the sessions come from (the browser's): its id map
   * and its keys stand in for the ones a refill otherwise builds of the whole
   * root (at 100,000 sessions a Map, an array per id and a Set: ~90 ms and
   * ~10 MB each time the store changed).
   */
  constructor(
    private readonly memory?: AuditMemory,
    private readonly store?: AuditSource,
  ) {
    this.done = store?.keys ? new NumberedMap<Entry>(store.keys) : new Map<string, Entry>();
  }

  /** The store changed: the next step finds what is stale anew. */
  invalidate(): void {
    this.work = undefined;
    this.refill = undefined;
  }

  /** The work list being rebuilt after a change, a few thousand sessions per step (at 100,000 sessions it was a 200 ms block). */
  private refill?: Generator<void, { todo: Session[]; next: number; byId: ReadonlyMap<string, readonly Session[]> }, void>;
  /** the refill dropped findings (sessions gone): the step that ends it says findings changed */
  private refillChanged = false;

  private *refillSteps(list: readonly Session[]): Generator<void, { todo: Session[]; next: number; byId: ReadonlyMap<string, readonly Session[]> }, void> {
    const CHUNK = 2048;
    let n = 0;
    let byId: ReadonlyMap<string, readonly Session[]>;
    let isLive: (key: string) => boolean;
    const store = this.store;
    if (store) {
      byId = { get: (id: string) => store.withId(id) } as ReadonlyMap<string, readonly Session[]>;
      isLive = (key) => store.byFile(key) !== undefined;
    } else {
      const ids = new Map<string, Session[]>();
      const live = new Set<string>();
      for (const s of list) {
        const same = ids.get(s.id);
        if (same) same.push(s);
        else ids.set(s.id, [s]);
        live.add(sessionKey(s));
        if (++n % CHUNK === 0) yield;
      }
      byId = ids;
      isLive = (key) => live.has(key);
    }
    // (a Map's own iteration goes on past deletions of keys it has visited)
    for (const key of this.done.keys()) {
      if (!isLive(key)) {
        if (this.done.get(key)!.findings.length > 0) this.findingsVersion++;
        this.done.delete(key);
        this.remembered.delete(key);
        this.changes.note(key);
        this.refillChanged = true;
      }
      if (++n % CHUNK === 0) yield;
    }
    const todo: Session[] = [];
    for (const s of list) {
      if (!current(this.done.get(sessionKey(s)), s, byId)) todo.push(s);
      if (++n % CHUNK === 0) yield;
    }
    return { todo, next: 0, byId };
  }

  /**
   * Audits stale sessions until `budgetMs` is spent (at least one). Returns
   * whether findings changed and whether every session is now current.
   * `sessions` is read only after invalidate() (or on the first step): call
   * invalidate() whenever the store changes.
   */
  step(sessions: readonly Session[] | (() => readonly Session[]), budgetMs: number, clock: () => number = () => performance.now()): { changed: boolean; done: boolean } {
    const start = clock();
    this.pause = () => clock() - start >= budgetMs;
    let changed = false;
    if (!this.work) {
      this.refill ??= this.refillSteps(typeof sessions === 'function' ? sessions() : sessions);
      let r = this.refill.next();
      while (!r.done && !this.pause()) r = this.refill.next();
      if (this.refillChanged) changed = true;
      if (!r.done) {
        this.refillChanged = false;
        return { changed, done: false };
      }
      this.refill = undefined;
      this.refillChanged = false;
      const { todo, byId } = r.value;
      const job = this.job;
      if (job) {
        // the audit under way goes on while its session still needs one (it was stale, and a change keeps it so); else it is dropped
        const i = todo.indexOf(job.entry.session);
        if (i < 0) this.cancel();
        else todo.unshift(...todo.splice(i, 1));
      }
      this.work = { todo, next: 0, byId };
    }
    const w = this.work;
    let progressed = false;
    while (w.next < w.todo.length) {
      if (!this.job) {
        if (progressed && this.pause()) break;
        const s = w.todo[w.next];
        const entry: Entry = { session: s, length: s.length, consumed: s.consumed, diagnostics: s.diagnosticCount, parents: parentsSig(s, w.byId), findings: NO_FINDINGS };
        // most sessions are audited by their reader's fold, at once: the memory is asked only
        // for those it cannot answer (a seed to compare with a parent's log, a fold not known)
        const key = sessionKey(s);
        const folded = auditFolded(s, w.byId);
        if (folded) {
          this.remembered.delete(key);
          if (folded.length > 0) entry.findings = folded;
          this.record(key, entry);
          w.next++;
          changed = progressed = true;
          continue;
        }
        this.remembered.add(key);
        const recalled = this.memory?.recall(s, parentsOf(s, w.byId));
        if (recalled) {
          if (recalled.length > 0) entry.findings = [...recalled];
          this.record(key, entry);
          w.next++;
          changed = progressed = true;
          continue;
        }
        this.job = { entry, steps: auditSessionSteps(s, w.byId, this.events, this.paused) };
      }
      const { entry, steps } = this.job;
      const s = entry.session;
      let findings: Finding[];
      try {
        const r = steps.next();
        progressed = true;
        if (!r.done) break; // paused: the budget is spent; the next step goes on from here
        findings = r.value;
      } catch (e) {
        // unreadable now (deleted meanwhile): say so as a finding; a later change re-audits it
        findings = [{ code: 'READ_FAILED', severity: 'error', session: s.id, file: s.file, message: `could not audit: ${(e as Error).message}` }];
      }
      this.job = undefined;
      if (findings.length > 0) entry.findings = findings;
      this.record(sessionKey(s), entry);
      w.next++;
      changed = true;
    }
    const done = w.next >= w.todo.length;
    if (done && this.memory && !this.kept) {
      this.kept = true;
      const { byId } = w;
      // only what the fold could not answer (a fold answers again next run); an audit that could not read its log is no finding to keep
      const entries: Entry[] = [];
      for (const key of this.remembered) {
        const e = this.done.get(key);
        if (e && !e.findings.some((f) => f.code === 'READ_FAILED')) entries.push(e);
      }
      this.memory.keep(() => entries.map((e) => ({ session: e.session, parents: parentsOf(e.session, byId), findings: e.findings })));
    }
    // drained: let go of the list and the id map (a root's worth of references) until the next change
    if (done) this.work = { todo: [], next: 0, byId: NO_IDS };
    return { changed, done };
  }

  /** Stops the audit under way (its reads are closed); the next step starts it over. */
  cancel(): void {
    this.job?.steps.return([]);
    this.job = undefined;
  }

  /** The findings of this session instance, when it has been audited as it is now (else undefined: its diagnostics stand in). */
  findingsOf(s: Session): readonly Finding[] | undefined {
    const e = this.done.get(sessionKey(s));
    return e && e.session === s ? e.findings : undefined;
  }

  /** Every finding known so far: the root's (cheap, always current) and the audited sessions'. */
  findings(sessions: readonly Session[], refused: readonly Diagnostic[]): Finding[] {
    const out = auditRoot(sessions, refused);
    for (const s of sessions) {
      const e = this.done.get(sessionKey(s));
      // not audited yet: its reader diagnostics at least
      if (e && e.session === s) out.push(...e.findings);
      else out.push(...s.diagnostics.map((d) => ({ code: d.code, severity: d.severity, session: s.id, file: d.file, line: d.line, message: d.message })));
    }
    return out;
  }
}
