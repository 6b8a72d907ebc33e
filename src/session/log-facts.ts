// The incremental fold that every view of a log shares: a full load and a
// live append run the same code, so a followed session equals a fresh load.
import { indexIn } from './sorted.js';
import { envelopeProblem, foldRc8Event } from './rc8-rules.js';
import { contentText, endReason, isHumanPrompt, type SessionEvent } from './events.js';
import { isInheritedEndSeed } from './formats.js';
import type { RowRefusal } from './row-rules.js';
import { foldMigration, type MigrationFacts } from './upgrade.js';
import { emptyUsage, foldSessionUsage, USAGE_TYPES, type SessionUsage } from './usage.js';

export type SessionState = 'empty' | 'at-boundary' | 'open-turn';

export interface LogFacts {
  events: number;
  turns: number;
  openTurn: number | null;
  /** true once any turn/end was seen: standalone events after it are at a boundary (rc8) */
  sawTurnEnd: boolean;
  lastEventType?: string;
  lastEventTime?: number;
  lastReason?: string;
  /** seq of every turn/start, in order (turn k starts at turnStarts[k-1]) */
  turnStarts: number[];
  /** set at the first seq gap: only events before it form a valid (forkable) log */
  validLength?: number;
  /** the last event leaves the log between turns (structurally, gap or not) */
  endsAtBoundary: boolean;
  /** Inclusive seqs where a fork may cut (never past a seq gap). */
  boundaries: number[];
  /**
   * the first prompt line; for a fork child, the first prompt after its seed
   * (a child with none of its own: the store sets its parent's, inherited-title.ts)
   */
  title?: string;
  /**
   * A fork child's cut (v0/v1: the header's seedLength; v2+: the seq of the
   * last inherited session/end-seed): events before it are inherited, a title
   * from them is provisional.
   */
  seedFrom?: number;
  /**
   * v2+ logs only: the header's isSeeded, which says whether an inherited
   * session/end-seed marker must (seeded) or must not (unseeded) be there.
   */
  seedMarker?: 'seeded' | 'unseeded';
  /**
   * v2+: seq of the first step/end or turn/end reached with a tool call still
   * unanswered (the harness refuses such a log: assertReleasedV4Relationships).
   */
  unresolvedCallSeq?: number;
  /**
   * -1 once a step/start came first; the seq of a surface event that came
   * before any step/start (v2→v3 refuses it); undefined while neither has (upgrade.ts)
   */
  stepHead?: number;
  /**
   * v2+: the inherited cut falls inside a turn (the harness's own fork may cut
   * there): the tool results that follow the marker, and whether the child's
   * own first events then close that turn as the harness's fork does
   * (harness-closers.ts: results, step/end, turn/end "forked"): `closing`
   * while they may, then `closed` or `unclosed`
   */
  forkCut?: { turn: unknown; results: number; state: 'closing' | 'closed' | 'unclosed' };
  /** what a migration edge refuses in the events (upgrade.ts), when any */
  migration?: MigrationFacts;
  /** v2+: the row the harness names when it refuses the log by its row rules (row-rules.ts) */
  rowRefusal?: RowRefusal;
  /** v2+: line of the first event whose type the harness does not know (not ignorable): it refuses the log */
  unknownEventLine?: number;
  /** a compressed log whose complete frames hold a damaged row or end inside a line: rc.8 refuses it whole */
  zstdTornRecord?: true;
  /** rc.8 v0: the legacy event rc.8 names on resume (kind: index into LEGACY_KINDS, rc8-rules.ts) */
  rc8Legacy?: { seq: number; kind: number };
  /** rc.8 v0: the first event of a type rc.8 does not know, not marked ignorable */
  rc8Unknown?: { seq: number; type: string };
  /** rc.8 v0: the first event rc.8's envelope check refuses, and why */
  rc8Envelope?: { seq: number; why: string };
  /** seq of an inherited end-seed marker in an unseeded v2+ log (the harness refuses it) */
  strayInheritedMarker?: number;
  titleInherited?: boolean;
  /** seq of the prompt the title comes from (what a child forked before it did not inherit) */
  titleSeq?: number;
  /** tool/call ids not yet answered, in the open turn */
  pendingCalls: number;
  /** token usage and models (usage.ts); split by seedFrom once a part has events (see withSplit) */
  usage: SessionUsage;
  /**
   * The rc.8 boundary rule (set from the header/layout before folding): any
   * point outside a turn is a boundary, including standalone events before the
   * first turn. Without it, the RFC rule: a boundary follows a turn/end.
   */
  rc8Rule?: boolean;
  /** rc.8-only vocabulary was seen (session/end-seed, request/header, ...) */
  rc8Vocabulary?: boolean;
  /** the latest session/title (a rename sticks) */
  sessionTitle?: string;
  /**
   * Line of the first turn/end read after a damaged line or a seq gap: the
   * harness calls such a log corrupt (damage in its committed region) and will
   * not resume it. Set by the reader.
   */
  damagedBeforeTurnEnd?: number;
}

const RC8_VOCABULARY = new Set(['session/end-seed', 'session/title', 'request/header', 'request/context']);

/**
 * The event types whose fold (foldEvent, foldSessionUsage) reads more than
 * type, seq, time and ignorable. The index reads every other event without
 * parsing its data (storage/envelope-scan.ts): a fold that starts reading the
 * data of another type must add it here.
 */
export const FOLD_READS_DATA: ReadonlySet<string> = new Set(['turn/start', 'turn/end', 'user/message', 'session/title', 'session/end-seed', 'subagent/descriptor', ...USAGE_TYPES]);

/** The usage of a log that has folded none: one frozen object shared by all (its own was ~100 bytes a session). */
const NO_USAGE: SessionUsage = Object.freeze(emptyUsage());

/**
 * The fields that nearly every log sets, the optional ones undefined, in one
 * literal: the object holds them in itself (added one by one later, they
 * went to a second, separate property store: ~90 bytes a session at 100,000
 * sessions). The rare fields (a seq gap, a fork's cut, damage) still go
 * there in the few logs that have them; each one listed here costs 8 bytes in
 * every log. The usage is the shared empty one until a usage event is folded
 * (ownUsage).
 */
export const emptyFacts = (): LogFacts => ({
  events: 0,
  turns: 0,
  openTurn: null,
  sawTurnEnd: false,
  lastEventType: undefined,
  lastEventTime: undefined,
  lastReason: undefined,
  turnStarts: [],
  endsAtBoundary: false,
  boundaries: [],
  title: undefined,
  titleSeq: undefined,
  titleInherited: undefined,
  seedMarker: undefined,
  stepHead: undefined,
  pendingCalls: 0,
  usage: NO_USAGE,
  rc8Rule: undefined,
});

/** `f`'s own usage, made before the first fold writes to it. */
function ownUsage(f: LogFacts): SessionUsage {
  return f.usage === NO_USAGE ? (f.usage = emptyUsage()) : f.usage;
}

/** Folds a usage event's usage into `f` (with f.seedFrom); the shared empty usage is kept while the events carry none. */
function foldUsageOf(f: LogFacts, e: SessionEvent): void {
  if (f.usage !== NO_USAGE) return foldSessionUsage(f.usage, e, f.seedFrom);
  const u: SessionUsage = emptyUsage();
  foldSessionUsage(u, e, f.seedFrom);
  if (u.messages > 0 || u.models !== undefined || u.inherited !== undefined || u.own !== undefined) f.usage = u;
}

/**
 * `f` (facts read back from the fact cache) in emptyFacts()'s shape, an empty
 * usage the shared one, short seq lists shared: what a read of the log holds
 * once its reader is compacted.
 */
export function packFacts(f: LogFacts): LogFacts {
  const out = Object.assign(emptyFacts(), f);
  const u = out.usage;
  if (u.input === 0 && u.output === 0 && u.messages === 0 && Object.keys(u).length === 3) out.usage = NO_USAGE;
  compactSeqs(out);
  return out;
}

/**
 * Seq lists of a few entries, shared between logs: frozen, and copied by
 * foldEvent before it pushes. Most logs hold a turn or two ([0], [0, 7]),
 * and two arrays of their own were ~110 bytes a log at 100,000 sessions.
 * Bounded: past MAX_SHARED_SEQS lists, a log keeps its own.
 */
const sharedSeqs = new Map<string, number[]>();
const MAX_SHARED_SEQS = 4096;
const SHARED_SEQS_UP_TO = 4;

function shareSeqs(a: number[]): number[] {
  if (Object.isFrozen(a)) return a;
  // a longer list keeps its own, trimmed to its length (a pushed array keeps room for 16 more)
  if (a.length > SHARED_SEQS_UP_TO) return a.slice();
  const key = a.join(',');
  const known = sharedSeqs.get(key);
  if (known !== undefined) return known;
  if (sharedSeqs.size >= MAX_SHARED_SEQS) return a.slice();
  const frozen = Object.freeze(a.slice()) as number[];
  sharedSeqs.set(key, frozen);
  return frozen;
}

/** For facts that are read no further for now (an index's reader after its read): their seq lists shared or trimmed. */
export function compactSeqs(f: LogFacts): void {
  f.turnStarts = shareSeqs(f.turnStarts);
  f.boundaries = shareSeqs(f.boundaries);
}

export function stateOf(f: LogFacts): SessionState {
  if (f.events === 0) return 'empty';
  return f.endsAtBoundary ? 'at-boundary' : 'open-turn';
}

/** What refuses a fork of the whole log: an open turn, or a seq gap (only seqs before it can be forked). */
export type ForkBlock = 'open-turn' | 'seq-gap';

/** Why a fork of the whole log is refused, or undefined when it is allowed. The one verdict behind `forkable` and the STATE column. */
export function forkBlockOf(f: LogFacts): ForkBlock | undefined {
  if (stateOf(f) === 'open-turn') return 'open-turn';
  return f.validLength === undefined ? undefined : 'seq-gap';
}

/** At a boundary and with no seq gap: a fork of the whole log is allowed. */
export const isForkable = (f: LogFacts): boolean => forkBlockOf(f) === undefined;

function firstLine(s: string): string {
  const t = s.trim();
  const i = t.indexOf('\n');
  return (i < 0 ? t : t.slice(0, i)).trim();
}

/** The rc.8 refusals (rc8Legacy, rc8Unknown, rc8Envelope) `e` adds to `f`, the events before it folded. */
function rc8Refusals(f: LogFacts, e: SessionEvent): void {
  foldRc8Event(f, e);
  if (f.rc8Envelope === undefined) {
    const why = envelopeProblem(e as unknown as Record<string, unknown>);
    if (why !== undefined) f.rc8Envelope = { seq: e.seq, why };
  }
}

/** Folds one event (already seq-checked) into the facts. Mutates `f`. */
export function foldEvent(f: LogFacts, e: SessionEvent): void {
  if (f.seedMarker !== undefined && e.type === 'session/end-seed' && isInheritedEndSeed(e)) {
    markSeedCut(f, e.seq);
    // the last marker is the cut: an earlier one's closers are the parent's
    if (f.openTurn !== null && f.seedMarker === 'seeded') f.forkCut = { turn: f.openTurn, results: 0, state: 'closing' };
    else if (f.forkCut !== undefined) delete f.forkCut; // set only when it is: a fact read back from the cache has no key for undefined
  } else if (f.forkCut?.state === 'closing') foldForkCloser(f.forkCut, e);
  f.events++;
  f.lastEventType = e.type;
  foldMigration(f, e);
  if (typeof e.time === 'number') f.lastEventTime = e.time; // a v0 row may have none
  if (USAGE_TYPES.has(e.type)) foldUsageOf(f, e);
  switch (e.type) {
    case 'turn/start':
      f.turns++;
      if (Object.isFrozen(f.turnStarts)) f.turnStarts = f.turnStarts.slice(); // a shared list (shareSeqs)
      f.turnStarts.push(e.seq);
      f.openTurn = typeof e.data?.turn === 'number' ? e.data.turn : f.turns;
      f.pendingCalls = 0;
      break;
    case 'step/end':
      if (f.seedMarker !== undefined && f.pendingCalls > 0) f.unresolvedCallSeq ??= e.seq;
      break;
    case 'turn/end':
      if (f.seedMarker !== undefined && f.pendingCalls > 0) f.unresolvedCallSeq ??= e.seq;
      f.openTurn = null;
      f.sawTurnEnd = true;
      f.lastReason = endReason(e);
      f.pendingCalls = 0;
      break;
    case 'tool/call':
      f.pendingCalls++;
      break;
    case 'tool/result':
      if (f.pendingCalls > 0) f.pendingCalls--;
      break;
    case 'user/message':
      if (f.sessionTitle === undefined && (f.title === undefined || f.titleInherited) && isHumanPrompt(e)) {
        const t = firstLine(contentText(e.data?.content ?? e.data?.message?.content));
        const inherited = f.seedFrom !== undefined && e.seq < f.seedFrom;
        if (t && (f.title === undefined || !inherited)) {
          f.title = t;
          f.titleSeq = e.seq;
          f.titleInherited = inherited;
        }
      }
      break;
    case 'session/title':
      if (typeof e.data?.title === 'string') {
        // rc.8 shows the latest session/title: a rename sticks, and a fork child keeps its parent's.
        const t = firstLine(e.data.title);
        if (t) {
          f.sessionTitle = t;
          f.title = t;
          f.titleInherited = false;
        }
      }
      break;
  }
  if (RC8_VOCABULARY.has(e.type)) f.rc8Vocabulary = true;
  f.endsAtBoundary = e.type === 'turn/end' || (f.openTurn === null && (f.sawTurnEnd || f.rc8Rule === true));
  if (f.endsAtBoundary && f.validLength === undefined) {
    if (Object.isFrozen(f.boundaries)) f.boundaries = f.boundaries.slice(); // a shared list (shareSeqs)
    f.boundaries.push(e.seq);
  }
}

/** The child's own events after a cut inside a turn, while they may still be the harness's fork closers. */
function foldForkCloser(c: NonNullable<LogFacts['forkCut']>, e: SessionEvent): void {
  if (e.type === 'tool/result') c.results++;
  else if (e.type === 'turn/end') c.state = endReason(e) === 'forked' ? 'closed' : 'unclosed';
  else if (e.type !== 'step/end') c.state = 'unclosed';
}

/**
 * A v2+ inherited end-seed marker at `seq`: every event before it is
 * inherited (the last marker wins, so a grandchild's cut supersedes its
 * parent's). The usage folded so far becomes the inherited part.
 */
function markSeedCut(f: LogFacts, seq: number): void {
  if (f.seedMarker === 'unseeded') {
    f.strayInheritedMarker ??= seq;
    return;
  }
  f.seedFrom = seq;
  const u = ownUsage(f);
  const { inherited: _i, own: _o, ...total } = u;
  u.inherited = { ...total, ...(total.models ? { models: [...total.models] } : {}) };
  u.own = emptyUsage();
  if (f.title !== undefined && f.sessionTitle === undefined) f.titleInherited = true;
}

/** Binary search: is `seq` a fork boundary? */
export function isBoundary(f: LogFacts, seq: number): boolean {
  const b = f.boundaries;
  return indexIn(b.length, (i) => b[i], seq) >= 0;
}

/** The nearest boundaries before and after `seq` (for "jump to the nearest boundary"). */
export function nearestBoundaries(f: LogFacts, seq: number): { before?: number; after?: number } {
  let before: number | undefined;
  let after: number | undefined;
  for (const b of f.boundaries) {
    if (b <= seq) before = b;
    else {
      after = b;
      break;
    }
  }
  return { before, after };
}

/** How many turns began before event `seq` (a fork at seedLength n was cut after turn turnsBefore(n)). */
export function turnsBefore(f: LogFacts, seq: number): number {
  let n = 0;
  for (const s of f.turnStarts) if (s < seq) n++;
  return n;
}

/**
 * The facts of the first `n` events of a log whose facts are `parent`, where
 * seq n-1 is a fork boundary — without folding the whole prefix again (a fork
 * of a 50k-event session would spend as long folding as writing). Equal to
 * folding events[0..n) into emptyFacts() with seedFrom = `seedFrom`; a test
 * checks that on every boundary of the sample and real corpora. One pass over
 * `events` (only its first n are taken): a fork of a 10 GB log folds them as
 * they are read, never holding them.
 */
export function prefixFacts(parent: LogFacts, events: Iterable<SessionEvent>, n: number, seedFrom?: number): LogFacts {
  const f = emptyFacts();
  if (seedFrom !== undefined) f.seedFrom = seedFrom;
  if (parent.rc8Rule) f.rc8Rule = true;
  if (parent.seedMarker !== undefined) f.seedMarker = parent.seedMarker;
  if (n === 0) return f;
  // The title is decided by the first prompt (or session/title): fold only until then.
  const t = emptyFacts();
  t.seedFrom = seedFrom;
  let seen = 0;
  let last: SessionEvent | undefined;
  let sawTurnEnd = false;
  // what rc.8 refuses in the parent's events (rc8-rules.ts), looked for again in the prefix
  const rc8 = parent.rc8Legacy !== undefined || parent.rc8Unknown !== undefined || parent.rc8Envelope !== undefined;
  for (const e of events) {
    if (seen++ === n) break;
    if (t.title === undefined) foldEvent(t, e);
    if (rc8) rc8Refusals(f, e);
    foldMigration(f, e);
    // the latest session/title and the vocabulary need the whole prefix (cheap: a type test per event)
    if (e.type === 'session/title' && typeof e.data?.title === 'string' && firstLine(e.data.title)) f.sessionTitle = firstLine(e.data.title);
    if (RC8_VOCABULARY.has(e.type)) f.rc8Vocabulary = true;
    if (USAGE_TYPES.has(e.type)) foldUsageOf(f, e); // one Set lookup per event
    // lastReason and pendingCalls: what the events after the last turn/end leave
    if (e.type === 'turn/end') {
      sawTurnEnd = true;
      f.lastReason = endReason(e);
      f.pendingCalls = 0;
    } else if (e.type === 'tool/call') f.pendingCalls++;
    else if (e.type === 'tool/result' && f.pendingCalls > 0) f.pendingCalls--;
    last = e;
  }
  if (seen < n) throw new Error(`internal: a prefix of ${n} events from a log of ${seen}`);
  // a v2+ child copies the parent's rows as they are: a refused row in the prefix is refused in it too
  if (parent.rowRefusal !== undefined && parent.rowRefusal.seq < n) f.rowRefusal = parent.rowRefusal;
  if (t.title !== undefined) f.title = t.title;
  if (t.titleSeq !== undefined) f.titleSeq = t.titleSeq;
  if (t.titleInherited !== undefined) f.titleInherited = t.titleInherited;
  if (f.sessionTitle !== undefined) {
    f.title = f.sessionTitle;
    f.titleInherited = false;
  }
  f.events = n;
  f.turnStarts = parent.turnStarts.filter((s) => s < n);
  f.turns = f.turnStarts.length;
  f.boundaries = parent.boundaries.filter((b) => b < n);
  // n-1 is a boundary: under the RFC rule boundaries follow a turn/end; under rc.8's, one may precede the first turn.
  f.sawTurnEnd = parent.rc8Rule ? sawTurnEnd : true;
  f.endsAtBoundary = true;
  f.lastEventType = last!.type;
  f.lastEventTime = last!.time ?? f.lastEventTime;
  return f;
}
