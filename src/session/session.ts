// A live session: its header, the facts of its log, and its events, which a
// disk-backed session loads only when someone needs them (the index keeps facts).
import type { Diagnostic } from './diagnostics.js';
import type { SessionEvent, SessionHeader } from './events.js';
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
}

/** Loads the full log with events, up to the bytes the current state has consumed (`file`: the session's). */
export type Loader = (current: LogState, file: string) => LogState;

export class Session {
  private loaded?: LogState;

  constructor(
    readonly header: SessionHeader,
    readonly file: string | undefined,
    /** facts of the complete log; kept current by the live follower */
    public log: LogState,
    private readonly loader?: Loader,
  ) {
    if (!loader || log.events.length === log.facts.events) this.loaded = log;
  }

  get id(): string {
    return this.header.id;
  }
  get parentSession(): string | undefined {
    return this.header.parentSession;
  }
  /** Inherited events of a fork child: v0/v1 the header's seedLength, v2+ the last inherited end-seed marker's seq. */
  get seedLength(): number | undefined {
    return this.header.version >= 2 ? this.log.facts.seedFrom : this.header.seedLength;
  }
  get cwd(): string | undefined {
    return this.header.cwd;
  }
  get facts(): LogFacts {
    return this.log.facts;
  }
  get length(): number {
    return this.log.facts.events;
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

  /** The full log state with events; loads on first use. */
  ensureLoaded(): LogState {
    if (!this.loaded) {
      const state = this.loader!(this.log, this.file!);
      this.log = state;
      this.loaded = state;
    }
    return this.loaded;
  }

  /** Set when the file was deleted: the object stays readable but is no longer live. */
  gone = false;

  /** Key of the session this one was forked from in this process (ids can repeat; the file cannot). */
  forkedFrom?: string;

  /** Replaces the log state in place (a live re-read of the same file); `withEvents` when it holds events. */
  resetLog(state: LogState, withEvents: boolean): void {
    this.log = state;
    this.loaded = withEvents || !this.loader ? state : undefined;
  }

  /** Drops loaded events (keeps facts) to free memory; they are read again on the next use. */
  unload(): void {
    if (!this.loader || !this.loaded) return;
    this.log.release?.();
    this.loaded = undefined;
  }
}
