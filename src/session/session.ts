// A live session: its header, the facts of its log, and its events, which a
// disk-backed session loads only when someone needs them (the index keeps facts).
import type { Diagnostic } from './diagnostics.js';
import type { StructureFinding } from './event-audit.js';
import type { SessionEvent, SessionHeader } from './events.js';
import type { CatalogRow } from './catalog-row.js';
import { stateOf, type LogFacts, type SessionState } from './log-facts.js';

/** What a log reader knows about one file (implemented by storage's LogReader). */
export interface LogState {
  facts: LogFacts;
  events: SessionEvent[];
  eventEnds: number[];
  headerEnd: number;
  firstAnomaly: number;
  consumed: number;
  diagnostics: Diagnostic[];
  /** drops the retained events (facts stay, later appends are folded only) */
  release?(): void;
  /** the audit's structural findings of every event so far, folded as they were read (event-audit.ts); undefined: not known, read the log */
  structure?(): readonly StructureFinding[] | undefined;
}

/** How far a load has got: bytes read of `end`, and the start of an over-long line it is skipping through. */
export interface LoadProgress {
  read: number;
  end: number;
  /** set while the load skips an over-long line (unread, searching for its end) */
  skipFrom?: number;
  /** the line it is on (1-based) */
  line: number;
}

/**
 * A load of the full log in steps (storage's startReadLog): step(pause) reads
 * until done (true) or until pause() says stop, which it asks between two
 * chunks (false: call step again later). The file stays open until done or close().
 */
export interface LoadJob {
  step(pause?: () => boolean): boolean;
  /** the loaded state, once step returned true */
  result(): LogState;
  close(): void;
  progress(): LoadProgress;
  /** reads on up to `end` (the log grew while it loaded); false when it cannot (then it is loaded again) */
  extend?(end: number): boolean;
  /** the events read since the last drain, handed over: the load no longer holds them (Session.eventBatches) */
  drain?(): SessionEvent[];
  /** drain with the byte offset just after the line that held each event (the offset index) */
  drainRetained?(): { events: SessionEvent[]; ends: number[] };
}

/** Starts loading the full log with events, up to the bytes the current state has consumed (`file`: the session's). */
export type Loader = (current: LogState, file: string) => LoadJob;

/** Runs a load to its end at once. */
export function runLoad(job: LoadJob): LogState {
  while (!job.step()) {
    /* no pause: runs to the end */
  }
  return job.result();
}

/**
 * A pause for opening a session: never while ordinary lines are read (a
 * normal log loads at once, as before), only once `ms` are spent while an
 * over-long line is being skipped (a multi-GB line: the rest runs in slices).
 */
export function pauseWhileSkipping(job: () => LoadJob | undefined, ms: number): () => boolean {
  const until = performance.now() + ms;
  return () => job()?.progress().skipFrom !== undefined && performance.now() > until;
}

const ALWAYS = () => true;
const NEVER = () => false;

/** A log read again ended before the events its facts count: it was truncated or replaced meanwhile. */
export class LogShrankError extends Error {
  constructor(
    readonly file: string,
    readonly read: number,
    readonly expected: number,
  ) {
    super(`the log ended after ${read} of its ${expected} events (truncated or replaced since it was read)`);
  }
}

/**
 * Reads on in a pausedBatches generator until it ends (true), `each` says
 * stop (true: the rest is not needed), or `spent()` says the slice is over
 * (false: call again later, the place kept). One loop for every reader of a
 * log in the app's slices (a search, a history, the filter's count).
 */
export function readOn(batches: Iterator<readonly SessionEvent[] | undefined>, spent: () => boolean, each: (batch: readonly SessionEvent[]) => boolean | void): boolean {
  for (;;) {
    const r = batches.next();
    if (r.done) return true;
    if (r.value !== undefined && each(r.value) === true) return true;
    if (spent()) return false;
  }
}

/**
 * A catalog session's row, which also builds the session's log state from
 * where the catalog keeps it (one object a session: a closure and its
 * context were ~130 bytes a session at 100,000 sessions, a separate object
 * ~50, kept until each is opened).
 */
export interface ThawingRow extends CatalogRow {
  thaw(file: string, header: SessionHeader): LogState;
}

export class Session {
  // The fields most sessions never set are declared only (no own property
  // until set; reads find undefined, or `gone`'s false on the prototype):
  // ~40 bytes a session at 100,000 sessions.
  /** the log state with its events, once loaded (or from the start: no loader, or created with them) */
  declare private loaded?: LogState;
  /** a load under way in steps (load(pause)), and the log state it started from */
  declare private job?: { job: LoadJob; base: LogState; upTo: number };
  /** why the last load in steps failed: load(pause) says it again (no retry loop in the background) until ensureLoaded, cancelLoad or a re-read */
  declare private failed?: unknown;
  /**
   * Listed from its log's head and tail while the first scan reads the rest
   * (a large log): its id, title, cwd, state and last activity are known,
   * its counts, turns and boundaries are not. Nothing acts on it (its facts
   * would give wrong verdicts) until the whole read replaces it in the store.
   */
  declare partial?: true;

  /** the log state (undefined until a catalog session is thawed) */
  private state_: LogState | undefined;
  /**
   * What the root's passes need of a session listed from the catalog, while
   * its log state is not built (catalog-row.ts): set only until the first use
   * of `log` (the row builds it), after which everything is computed from the
   * facts again.
   */
  declare row?: ThawingRow;

  constructor(
    readonly header: SessionHeader,
    readonly file: string | undefined,
    /** facts of the complete log; kept current by the live follower */
    log: LogState | undefined,
    private readonly loader?: Loader,
  ) {
    this.state_ = log;
    // (a log of no events yet is not loaded: a reader of facts only would keep its appends' events from us)
    if (log && (!loader || (log.events.length === log.facts.events && log.events.length > 0))) this.loaded = log;
  }

  /**
   * A session of the catalog: its header and row now, its log state built by
   * the row when something asks for it (a warm start of 100,000 sessions
   * builds none for the list, the counts and the audit's clean pass).
   */
  static fromCatalog(header: SessionHeader, file: string, row: ThawingRow, loader: Loader): Session {
    const s = new Session(header, file, undefined, loader);
    s.row = row;
    return s;
  }

  /** Facts of the complete log; kept current by the live follower. */
  get log(): LogState {
    if (this.state_ === undefined) {
      this.state_ = this.row!.thaw(this.file!, this.header);
      this.row = undefined;
    }
    return this.state_;
  }
  set log(state: LogState) {
    this.state_ = state;
    if (this.row !== undefined) this.row = undefined;
  }

  /** Whether the log state is built (false: a catalog session not used yet). */
  get thawed(): boolean {
    return this.state_ !== undefined;
  }

  get id(): string {
    return this.header.id;
  }
  get parentSession(): string | undefined {
    return this.header.parentSession;
  }
  /** Inherited events of a fork child: v0/v1 the header's seedLength, v2+ the last inherited end-seed marker's seq. */
  get seedLength(): number | undefined {
    if (this.header.version < 2) return this.header.seedLength;
    return this.row ? this.row.seedFrom : this.log.facts.seedFrom;
  }
  get cwd(): string | undefined {
    return this.header.cwd;
  }
  get facts(): LogFacts {
    return this.log.facts;
  }
  get length(): number {
    return this.row ? this.row.events : this.log.facts.events;
  }
  /** Bytes of the log its facts describe. */
  get consumed(): number {
    return this.row ? this.row.consumed : this.log.consumed;
  }
  /** How many diagnostics its read made (without building a catalog session's log state). */
  get diagnosticCount(): number {
    return this.row ? this.row.diagnostics : this.log.diagnostics.length;
  }
  get state(): SessionState {
    return stateOf(this.log.facts);
  }
  get diagnostics(): Diagnostic[] {
    return this.log.diagnostics;
  }
  get kind(): 'root' | 'fork' | 'spawn' {
    if (this.header.parentSession === undefined) return 'root';
    return this.seedLength !== undefined ? 'fork' : 'spawn';
  }
  get isLoaded(): boolean {
    return this.loaded !== undefined;
  }

  /** The events, loading them from disk on first use. */
  get events(): readonly SessionEvent[] {
    return this.ensureLoaded().events;
  }

  /**
   * The events in order, in batches: the loaded ones at once, else read from
   * the file up to what the facts describe, a chunk at a time, and never kept.
   * Why: a command that writes a 10 GB session's tree or transcript holds one
   * batch and what it makes of it, not the log. `count`: only
   * the first so many events (the read stops there). Stop early by leaving
   * the loop: the file is closed. A log that ends before the events its facts
   * count (truncated or replaced since it was read) throws LogShrankError
   * after the events it still had: a caller never takes a short log for a whole one.
   */
  *eventBatches(count = Infinity): Generator<readonly SessionEvent[]> {
    for (const b of this.pausedBatches(count, NEVER)) if (b !== undefined) yield b;
  }

  /**
   * eventBatches with places to pause: `undefined` after a chunk of the file
   * whenever `pause()` says so (the background audit reads in time slices).
   * The events are handed over after every chunk either way, so a batch is
   * one chunk's worth whatever pause() says.
   */
  *pausedBatches(count: number, pause: () => boolean): Generator<readonly SessionEvent[] | undefined> {
    if (count <= 0) return;
    const job = this.loaded || !this.loader ? undefined : this.loader(this.log, this.file!);
    if (!job?.drain) {
      job?.close(); // a loader that cannot hand over its events: load them
      yield count < this.events.length ? this.events.slice(0, count) : this.events;
      return;
    }
    try {
      let seen = 0;
      for (let done = false; !done; ) {
        done = job.step(ALWAYS);
        const batch = job.drain();
        if (seen + batch.length >= count) {
          yield batch.slice(0, count - seen);
          return;
        }
        seen += batch.length;
        if (batch.length > 0) yield batch;
        if (!done && pause()) yield undefined;
      }
      if (seen < Math.min(count, this.length)) throw new LogShrankError(this.file!, seen, Math.min(count, this.length));
    } finally {
      job.close();
    }
  }

  /** The full log state with events; loads on first use (finishing a load under way at once; a failed one is tried again). */
  ensureLoaded(): LogState {
    if (this.failed !== undefined) this.failed = undefined;
    this.load();
    return this.loaded!;
  }

  /**
   * Loads the events in steps: true once loaded; false when pause() stopped
   * it (asked between two chunks of the file), and the load waits here for
   * the next call, its state kept. A log that grew meanwhile (the follower
   * fed it) is read on to its new end. Throws what the read threw.
   */
  load(pause?: () => boolean): boolean {
    if (this.loaded) return true;
    if (this.failed !== undefined) throw this.failed;
    let j = this.job;
    if (j && (j.base !== this.log || (j.upTo !== this.log.consumed && !j.job.extend?.(this.log.consumed)))) {
      this.cancelLoad();
      j = undefined;
    }
    if (j) j.upTo = this.log.consumed;
    else j = this.job = { job: this.loader!(this.log, this.file!), base: this.log, upTo: this.log.consumed };
    let done: boolean;
    try {
      done = j.job.step(pause);
    } catch (e) {
      this.cancelLoad();
      this.failed = e;
      throw e;
    }
    if (!done) return false;
    if (this.job !== undefined) this.job = undefined;
    const state = j.job.result();
    this.log = state;
    this.loaded = state;
    return true;
  }

  /** How far a load under way has got (undefined when none is). */
  get loading(): LoadProgress | undefined {
    return this.job?.job.progress();
  }

  /** A load under way, if any (pauseWhileSkipping reads its progress). */
  get loadJob(): LoadJob | undefined {
    return this.job?.job;
  }

  /** Stops a load under way (its file is closed); the next load starts over. */
  cancelLoad(): void {
    this.job?.job.close();
    if (this.job !== undefined) this.job = undefined;
    if (this.failed !== undefined) this.failed = undefined;
  }

  /**
   * A separate load of the full log in steps, not kept by this session (the
   * background audit reads a log it will drop again); undefined when the
   * events are in memory anyway (loaded, or no file behind them).
   */
  readJob(): LoadJob | undefined {
    return this.loaded || !this.loader ? undefined : this.loader(this.log, this.file!);
  }

  /** Set when the file was deleted: the object stays readable but is no longer live (false on the prototype). */
  declare gone: boolean;

  /** Key of the session this one was forked from in this process (ids can repeat; the file cannot). */
  declare forkedFrom?: string;

  /** Replaces the log state in place (a live re-read of the same file); `withEvents` when it holds events. */
  resetLog(state: LogState, withEvents: boolean): void {
    this.cancelLoad();
    this.log = state;
    this.loaded = withEvents || !this.loader ? state : undefined;
  }

  /** Drops loaded events (keeps facts) to free memory; they are read again on the next use. */
  unload(): void {
    if (!this.loader || !this.loaded) return;
    this.log.release?.();
    if (this.loaded !== undefined) this.loaded = undefined;
  }
}

Object.assign(Session.prototype, { gone: false });
