// SessionStore with the RFC's snapshot() and fork() (docs/formats.md,
// "Fork semantics").
// Pure policy: durable work goes through a SessionPersistence.
import { Journal } from './journal.js';
import { KeyTable, NumberedMap } from './key-table.js';
import { eraOf, type Era } from './era.js';
import { isSessionForkError, SessionForkError } from './errors.js';
import { newChildId } from './ids.js';
import { inheritedTitle, takesParentTitle } from './inherited-title.js';
import { parentLink } from './lineage.js';
import { sessionKey } from './session-key.js';
import type { SessionEvent, SessionHeader } from './events.js';
import { foreignFormat, foreignFormatText, seedByMarker, type FormatVersion } from './formats.js';
import { safeClone } from './json-safe.js';
import { emptyFacts, foldEvent, isBoundary } from './log-facts.js';
import { Session, type LogState } from './session.js';

export type SessionId = string;
export type SessionForkSource = Session | SessionId;

export interface SessionForkMeta {
  parentSession: SessionId;
  seedLength: number;
  cwd?: string;
}

/** What create() writes beyond the RFC meta: the era of the harness the child must look like. */
export interface CreateOptions {
  seed?: readonly SessionEvent[];
  /**
   * A fork's seed that the store does not hold: the parent's first
   * prefix.length events, which the persistence copies from its log; `seed`
   * then holds only what follows them, so a fork of a 10 GB parent never
   * holds the parent's events.
   */
  prefix?: SeedPrefix;
  meta?: Partial<SessionForkMeta>;
  /** rc8: header with delegationDepth (0, as rc.8's own fork) and a session/end-seed marker after the seed */
  era?: Era;
  /** the format version to write (the parent's: a v3 parent gets a v3 child); default 0 */
  version?: FormatVersion;
}

export interface SessionForkSeed {
  source: Session;
  seed: SessionEvent[];
  meta: SessionForkMeta;
}

export interface ForkSessionOptions {
  source: SessionForkSource;
  sessionId?: SessionId;
  /** inclusive seq to cut at; omitted = the whole log */
  boundary?: number;
}

/** The first `length` events of a parent's log, scanned once by the persistence (storage's PrefixScan adds what it copies). */
export interface SeedPrefix {
  readonly length: number;
  /** the type and time of its last event (a v2+ marker is stamped with it) */
  readonly last?: { type: string; time: number };
}

/** How the store makes a new session durable (the disk writer, or nothing in memory). */
export interface SessionPersistence {
  /** true when a file for `id` already exists where a child of `parent` would be written */
  exists(id: SessionId, parent?: Session): boolean;
  /** why `id` cannot name a child of `parent` the harness could use (undefined: it can) */
  invalidId?(id: SessionId, parent?: Session): string | undefined;
  /** a refusal that concerns the place a child of `parent` goes (e.g. MIXED_ENCODING), or null */
  placementError?(id: SessionId, parent?: Session): SessionForkError | null;
  /**
   * Durably creates the session file and returns the new live Session.
   * `parent`/`seedLength` allow copying the seed bytes from the parent's file.
   * Throws SessionForkError (SESSION_ALREADY_EXISTS, WRITE_FAILED).
   */
  write(header: SessionHeader, seed: readonly SessionEvent[], parent?: Session, inherited?: number, prefix?: SeedPrefix): Session;
  /**
   * The seed of a fork of `parent` cut after `n` events, read in one pass and
   * not held (`seedFrom` as prefixFacts takes it); write() then copies it.
   * Throws what the read throws.
   */
  scanPrefix?(parent: Session, n: number, seedFrom: number | undefined): SeedPrefix;
}

const quote = (id: string) => JSON.stringify(id);
const NO_SESSIONS: readonly Session[] = [];

/**
 * One event of a large log read without reading the log up to it (its
 * offset index, storage/indexed-turns.ts): what an OPEN_TURN message names,
 * for a cut deep in a 10 GB log, in a keypress. `turnStartAtOrBefore`: the
 * latest turn/start at or before a seq, null when there is none, undefined
 * when it cannot tell (an index of the log's tail only).
 */
export interface EventLookup {
  event(seq: number): SessionEvent | undefined;
  turnStartAtOrBefore(seq: number): SessionEvent | null | undefined;
}

export class SessionStore {
  /** the numbers of the root's keys, which the per-log tables share (key-table.ts): the file index, the audit and the root model too */
  readonly keys = new KeyTable();
  private readonly byKey = new NumberedMap<Session>(this.keys);
  /** id -> its session, or its sessions when several carry it (an array for each of 100,000 ids was ~60 bytes a session) */
  private readonly byId = new Map<string, Session | Session[]>();
  /** byId as parentLink reads it */
  private readonly idGroups = { get: (id: string) => this.withId(id) } as ReadonlyMap<string, readonly Session[]>;
  private readonly listeners = new Set<() => void>();
  /** the keys of sessions added, removed or changed in place, in order (journal.ts) */
  readonly changes = new Journal();
  /** fork children showing an inherited title (forks not continued yet: few), see inherited-title.ts */
  private readonly titleCandidates = new Set<Session>();

  constructor(
    readonly persistence?: SessionPersistence,
    private readonly generateId: () => string = () => newChildId(),
  ) {}

  /** The key it is kept by (session-key.ts). */
  static readonly keyOf = sessionKey;

  // ---- registry -------------------------------------------------------

  /** Makes `s` the live instance for its file (replacing any earlier instance). */
  add(s: Session): void {
    const key = SessionStore.keyOf(s);
    const old = this.byKey.get(key);
    if (old) {
      this.detachId(old);
      // a re-read of our own fork child still knows which file it came from
      if (old.forkedFrom !== undefined && s.forkedFrom === undefined && old.id === s.id && old.parentSession === s.parentSession) s.forkedFrom = old.forkedFrom;
    }
    this.byKey.set(key, s);
    this.changes.note(key);
    const had = this.byId.get(s.id);
    if (had === undefined) this.byId.set(s.id, s);
    else if (Array.isArray(had)) had.push(s);
    else this.byId.set(s.id, [had, s]);
    if (takesParentTitle(s)) this.titleCandidates.add(s);
    this.emit();
  }

  remove(s: Session): void {
    const key = SessionStore.keyOf(s);
    if (this.byKey.get(key) !== s) return;
    this.byKey.delete(key);
    this.changes.note(key);
    this.detachId(s);
    this.titleCandidates.delete(s);
    this.emit();
  }

  private detachId(s: Session): void {
    const had = this.byId.get(s.id);
    if (had === s) this.byId.delete(s.id);
    if (!Array.isArray(had)) return;
    const i = had.indexOf(s);
    if (i >= 0) had.splice(i, 1);
    if (had.length === 1) this.byId.set(s.id, had[0]);
    else if (had.length === 0) this.byId.delete(s.id);
  }

  /** By file path first, then by id (the first of several with that id). */
  get(idOrFile: string): Session | undefined {
    return this.byKey.get(idOrFile) ?? this.withId(idOrFile)[0];
  }

  /** The live session of exactly this key (file path, or `mem:<id>`). */
  byFile(key: string): Session | undefined {
    return this.byKey.get(key);
  }

  /** Every live session with this id (ids can repeat across files). */
  getAll(id: SessionId): Session[] {
    return [...this.withId(id)];
  }

  /**
   * A live session changed in place (its log grew or was re-read, its
   * title settled): derived data of it is stale. Callers emit() afterwards.
   */
  touch(s: Session): void {
    if (this.isLive(s)) this.changes.note(SessionStore.keyOf(s));
  }

  /** The live sessions with this id (the store's own array when several carry it: do not keep or change it). */
  withId(id: SessionId): readonly Session[] {
    const had = this.byId.get(id);
    return had === undefined ? NO_SESSIONS : Array.isArray(had) ? had : [had];
  }

  /** The first live session with this id, without an array made for it (most ids have one session). */
  firstWithId(id: SessionId): Session | undefined {
    const had = this.byId.get(id);
    return Array.isArray(had) ? had[0] : had;
  }

  /** How many live sessions carry this id (getAll without the copy). */
  idCount(id: SessionId): number {
    const had = this.byId.get(id);
    return had === undefined ? 0 : Array.isArray(had) ? had.length : 1;
  }

  /** The live sessions, in the order their keys were first seen. */
  list(): Session[] {
    return this.byKey.valueList();
  }

  get size(): number {
    return this.byKey.size;
  }

  isLive(s: Session): boolean {
    return this.byKey.get(SessionStore.keyOf(s)) === s;
  }

  /** Called after any change to the set of sessions or their logs. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * While held (a scan's batch: hold() ... release()), add and remove do not
   * emit: the batch emits once at its end. The listeners' work per added
   * session (the browser's model step) came 100,000 times in a scan of
   * 100,000 sessions.
   */
  private held = 0;
  private missed = false;
  hold(): void {
    this.held++;
  }
  /**
   * Ends a hold(). When no other hold remains, emits if a change was held
   * back, or in any case with `always` (a batch that tells its end even when
   * no session changed: a refused file moves the counts too). True when it emitted.
   */
  release(always = false): boolean {
    if (this.held > 0 && --this.held === 0 && (this.missed || always)) {
      this.emit();
      return true;
    }
    return false;
  }

  emit(): void {
    if (this.held > 0) {
      this.missed = true;
      return;
    }
    this.missed = false;
    this.settleTitles();
    for (const fn of this.listeners) fn();
  }

  /**
   * A fork child with no prompt of its own shows the title its parent showed
   * at the cut (its log alone only knows the root's first prompt). Settled on
   * every change: the parent may be added after the child, or re-read.
   */
  private settleTitles(): void {
    if (this.titleCandidates.size === 0) return;
    const parentOf = (c: Session): Session | undefined => {
      const link = parentLink(c, this.idGroups);
      return link.kind === 'resolved' ? this.byKey.get(link.key) : undefined;
    };
    for (const s of [...this.titleCandidates]) {
      if (!this.isLive(s) || !takesParentTitle(s)) {
        this.titleCandidates.delete(s); // it has a prompt of its own now, or is gone
        continue;
      }
      const title = inheritedTitle(s, parentOf);
      if (title !== undefined && title !== s.facts.title) {
        s.facts.title = title;
        this.touch(s);
      }
    }
  }

  // ---- the RFC operations ---------------------------------------------

  /** The primitive: a new live session seeded with `seed` (validated: contiguous seqs from 0). */
  create(id: SessionId, opts: CreateOptions = {}, parent?: Session): Session {
    this.checkIdShape(id, parent);
    if (this.byId.has(id)) throw new SessionForkError('SESSION_ALREADY_EXISTS', `session ${quote(id)} already exists`);
    let seed = opts.seed ?? [];
    const prefix = opts.prefix;
    const base = prefix?.length ?? 0;
    seed.forEach((e, i) => {
      if (!e || typeof e.type !== 'string' || e.seq !== base + i)
        throw new SessionForkError('INVALID_SEED', `seed event ${base + i} is not a valid event with seq ${base + i}`);
    });
    const version = opts.version ?? 0;
    const header: SessionHeader = { type: 'session', version, id, createdAt: Date.now() };
    const meta = opts.meta ?? {};
    if (meta.cwd !== undefined) header.cwd = meta.cwd;
    if (meta.parentSession !== undefined) header.parentSession = meta.parentSession;
    const inherited = meta.seedLength;
    if (seedByMarker(header)) {
      // v2+ (core/session fork.ts buildForkSeed): isSeeded, delegationDepth 0 and no origin for a plain
      // fork, and the cut marked by session/end-seed {inherited: true} at seq = the inherited count,
      // stamped with the time of the boundary event.
      header.isSeeded = inherited !== undefined;
      header.delegationDepth = 0;
      if (inherited !== undefined && prefix) {
        if (inherited !== base) throw new SessionForkError('INVALID_SEED', `a seed of ${base} events cannot inherit ${inherited}`);
        seed = [{ type: 'session/end-seed', seq: inherited, time: prefix.last?.time ?? Date.now(), data: { inherited: true } }, ...seed.map((e) => ({ ...e, seq: e.seq + 1 }))];
      } else if (inherited !== undefined) {
        const head = seed.slice(0, inherited);
        const time = head.at(-1)?.time ?? Date.now();
        seed = [...head, { type: 'session/end-seed', seq: inherited, time, data: { inherited: true } }, ...seed.slice(inherited).map((e, i) => ({ ...e, seq: inherited + 1 + i }))];
      }
    } else if (inherited !== undefined) header.seedLength = inherited;
    if (opts.era === 'rc8' && !seedByMarker(header)) {
      // As rc.8's own fork: origin and agentPreset are not carried over, delegationDepth is 0,
      // and a seeded session marks where its seed ended (unless the seed already ends with the marker).
      header.delegationDepth = 0;
      if ((opts.seed !== undefined || prefix) && (seed.at(-1)?.type ?? prefix?.last?.type) !== 'session/end-seed')
        seed = [...seed, { type: 'session/end-seed', seq: base + seed.length, time: Date.now(), data: {} }];
    }
    // In memory the child owns a deep clone; on disk it reloads from its own file.
    if (prefix && !this.persistence) throw new Error('internal: a seed prefix needs a persistence to copy it');
    const child = this.persistence ? this.persistence.write(header, seed, parent, inherited, prefix) : memorySession(header, structuredClone(seed) as SessionEvent[]);
    if (parent) child.forkedFrom = SessionStore.keyOf(parent);
    this.add(child);
    return child;
  }

  /** Resolves a source to its live instance, or throws NOT_FOUND / NOT_LIVE. */
  resolve(source: SessionForkSource): Session {
    if (typeof source === 'string') {
      const s = this.get(source);
      if (!s) throw new SessionForkError('SESSION_NOT_FOUND', `session ${quote(source)} not found`);
      return s;
    }
    if (this.isLive(source)) return source;
    if (this.byKey.has(SessionStore.keyOf(source)) || this.byId.has(source.id))
      throw new SessionForkError('SESSION_NOT_LIVE', `session ${quote(source.id)} is not the live store instance`);
    throw new SessionForkError('SESSION_NOT_FOUND', `session ${quote(source.id)} not found`);
  }

  /**
   * Why a fork of `s` cut at `boundary` (inclusive seq; undefined = whole log)
   * is refused, or null when it is allowed. Needs only the log's facts, except
   * for the type of the last event in an OPEN_TURN message.
   */
  boundaryError(s: Session, boundary?: number, lookup?: EventLookup): SessionForkError | null {
    // a fork's own format is read by its shape: a child in it would be a guess at that fork's rules
    const foreign = foreignFormat(s.header as SessionHeader & Record<string, unknown>);
    if (foreign)
      return new SessionForkError('UNSUPPORTED_FORMAT', `session ${quote(s.id)} is in ${foreignFormatText(foreign)}, which the browser reads but does not write: fork it with ${foreign.fork ? foreign.fork.name : 'the harness fork that wrote it'} (nothing written)`, { version: foreign.version });
    const len = s.length;
    if (boundary !== undefined && !(Number.isInteger(boundary) && boundary >= 0 && boundary < len)) {
      const range = len === 0 ? 'the log is empty' : `expected an integer in [0, ${len - 1}]`;
      return new SessionForkError('INVALID_BOUNDARY', `invalid boundary ${String(boundary)} for session ${quote(s.id)} of length ${len}: ${range}`, {
        boundary,
        length: len,
      });
    }
    const valid = s.facts.validLength;
    if (valid !== undefined && (boundary === undefined || boundary >= valid))
      return new SessionForkError(
        'INVALID_BOUNDARY',
        `invalid boundary ${boundary ?? len - 1} for session ${quote(s.id)}: the log has a seq gap after seq ${valid - 1}; only seqs in [0, ${valid - 1}] can be forked`,
        { boundary, length: len, validLength: valid },
      );
    const cut = boundary ?? len - 1;
    if (cut < 0 || isBoundary(s.facts, cut)) return null;
    if (s.facts.rc8Rule) {
      // rc.8's rule and wording: the latest turn/start or turn/end in the prefix is an unmatched turn/start.
      let turn: unknown = cut === len - 1 ? s.facts.openTurn : undefined;
      const start = turn === undefined || turn === null ? lookup?.turnStartAtOrBefore(cut) : undefined;
      if (start !== undefined) turn = start?.data?.turn;
      else if (turn === undefined || turn === null)
        this.eachEvent(s, cut, (e) => {
          if (e.type === 'turn/start') turn = e.data?.turn;
        });
      // v4: the harness's own fork may cut here (harness-closers.ts); the RFC's fork, ours, only at a boundary
      const v4 = s.header.version === 4 ? `; the harness's own fork would close that turn in the child with results it writes itself (TOOL_OUTCOME_UNKNOWN, TOOL_NOT_STARTED) and turn/end "forked", but this browser forks only at a boundary` : '';
      return new SessionForkError('OPEN_TURN', `fork boundary ${cut} in session ${quote(s.id)} ends inside open turn ${String(turn)}${v4}`, { boundary: cut });
    }
    let last = cut === len - 1 ? s.facts.lastEventType : undefined;
    last ??= lookup?.event(cut)?.type;
    if (last === undefined) this.eachEvent(s, cut, (e) => (last = e.type));
    return new SessionForkError('OPEN_TURN', `cannot fork session ${quote(s.id)} inside an open turn (last event: ${last})`, { boundary: cut });
  }

  /** INVALID_SESSION_ID: an id the harness cannot use (empty, or a file name it cannot have). Nothing is written. */
  private checkIdShape(id: SessionId, parent?: Session): void {
    const why = typeof id !== 'string' || id.length === 0 ? 'a session id must not be empty' : this.persistence?.invalidId?.(id, parent);
    if (why !== undefined) throw new SessionForkError('INVALID_SESSION_ID', `invalid session id ${quote(String(id))}: ${why}`, { id });
  }

  private checkNewId(id: SessionId | undefined, parent?: Session): void {
    if (id === undefined) return;
    this.checkIdShape(id, parent);
    if (this.byId.has(id) || this.persistence?.exists(id, parent))
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session ${quote(id)} already exists`);
  }

  /** Validates the cut and returns the meta; shared by snapshot() and fork(). */
  private prepare(source: SessionForkSource, boundary: number | undefined, sessionId?: SessionId): { src: Session; meta: SessionForkMeta } {
    if (sessionId !== undefined && sessionId.length === 0) this.checkIdShape(sessionId);
    if (sessionId !== undefined && this.byId.has(sessionId))
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session ${quote(sessionId)} already exists`);
    const src = this.resolve(source);
    this.checkNewId(sessionId, src);
    const err = this.boundaryError(src, boundary);
    if (err) throw err;
    const placement = this.persistence?.placementError?.(sessionId ?? '', src);
    if (placement) throw placement;
    const seedLength = boundary === undefined ? src.length : boundary + 1;
    const meta: SessionForkMeta = { parentSession: src.id, seedLength };
    if (src.cwd !== undefined) meta.cwd = src.cwd;
    return { src, meta };
  }

  /** The reusable half: a deep-cloned seed and the child's meta, at a boundary. */
  snapshot(source: SessionForkSource, opts: { boundary?: number } = {}): SessionForkSeed {
    const { src, meta } = this.prepare(source, opts.boundary);
    // safeClone: structuredClone recurses and throws RangeError on event data
    // nested ~10,000+ deep (hostile files); it falls back to an iterative copy.
    const seed = safeClone(src.events.slice(0, meta.seedLength)) as SessionEvent[];
    return { source: src, seed, meta };
  }

  /**
   * The convenience half: snapshot + create. The seed is not cloned here: the
   * writer copies the parent's bytes and the child loads its own events.
   */
  fork(opts: ForkSessionOptions): Session {
    const { src, meta } = this.prepare(opts.source, opts.boundary, opts.sessionId);
    const id = opts.sessionId ?? this.freshId(src);
    const era = eraOf(src);
    const version = src.header.version;
    if (this.persistence?.scanPrefix) {
      // the seed is read once and copied, never held (a v2+ child's own marker sets its seedFrom)
      const n = meta.seedLength;
      const prefix = this.read(src, () => this.persistence!.scanPrefix!(src, n, seedByMarker({ version }) ? undefined : n));
      return this.create(id, { prefix, meta, era, version }, src);
    }
    const seed = this.readEvents(src).slice(0, meta.seedLength);
    return this.create(id, { seed, meta, era, version }, src);
  }

  /** The source's events; an I/O error (file gone, unreadable) becomes READ_FAILED. */
  private readEvents(s: Session): readonly SessionEvent[] {
    return this.read(s, () => s.events);
  }

  /**
   * Visits the events of `s` up to index `last`, in order: the loaded ones, or
   * the log read in batches and not kept (a refusal inside a turn of a 10 GB
   * log reads only up to the cut, and loads nothing). An I/O error is READ_FAILED.
   */
  private eachEvent(s: Session, last: number, visit: (e: SessionEvent) => void): void {
    this.read(s, () => {
      if (s.isLoaded) {
        const events = s.events;
        for (let i = 0; i <= last && i < events.length; i++) visit(events[i]);
      } else for (const batch of s.eventBatches(last + 1)) for (const e of batch) visit(e);
    });
  }

  /** A read of `s`'s log; an I/O error (file gone, unreadable) becomes READ_FAILED. */
  private read<T>(s: Session, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (isSessionForkError(e)) throw e;
      throw new SessionForkError('READ_FAILED', `could not read session ${quote(s.id)}: ${(e as Error).message}`);
    }
  }

  private freshId(parent: Session): string {
    for (;;) {
      const id = this.generateId();
      if (!this.byId.has(id) && !this.persistence?.exists(id, parent)) return id;
    }
  }
}

/** A session that lives only in memory (no persistence configured). */
export function memorySession(header: SessionHeader, events: readonly SessionEvent[]): Session {
  const facts = emptyFacts();
  if (header.version >= 1) facts.rc8Rule = true;
  if (seedByMarker(header)) facts.seedMarker = header.isSeeded ? 'seeded' : 'unseeded';
  for (const e of events) foldEvent(facts, e);
  const log: LogState = {
    facts,
    events: [...events],
    eventEnds: [],
    headerEnd: 0,
    firstAnomaly: Infinity,
    consumed: 0,
    diagnostics: [],
  };
  return new Session(header, undefined, log);
}
