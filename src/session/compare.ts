// Compare two sessions from their common ancestor. Pure: no I/O;
// parents are resolved among `sessions` (the store's list) the way the lineage
// graph resolves them (lineage.ts: ids repeat; an ambiguous parent is no guess).
//
// - The common ancestor is the nearest session both descend from through fork
//   edges (parentSession + seedLength; a session is its own ancestor, so a
//   parent and its child have the parent as ancestor). Spawn edges do not count:
//   a subagent shares no events with its parent.
// - `prefix` is how many leading events the two logs share (canonical JSON
//   equality), so the last seq where they agree is prefix - 1. It is measured,
//   never assumed from seedLength: a child whose seed was tampered with agrees
//   with its parent only up to the divergence. Unrelated sessions have no
//   ancestor; they share a prefix only if their first events are equal.
// - Turns that end inside the shared prefix are shared; the rest are each
//   branch's own, aligned turn by turn (longest common subsequence of equal
//   turns), so equal turns can be folded into one row.
import { canonicalJson } from './audit.js';
import { fileComparison, type FilePair } from './branch-files.js';
import { ChangesFold, changesJson, inheritedBefore, type Changes } from './changes.js';
import type { SessionEvent } from './events.js';
import { parentLink } from './lineage.js';
import type { Session } from './session.js';
import { SessionStore } from './store.js';
import { segmentSummaries, turnKey, type TurnSummary } from './turn-summary.js';
import { addUsage, emptyUsage, type TokenUsage } from './usage.js';

/** Sessions by id and by key, for resolving parents. Build once per comparison (or per store version). */
export interface SessionIndex {
  byId: ReadonlyMap<string, readonly Session[]>;
  byKey: ReadonlyMap<string, Session>;
}

export function indexSessions(sessions: readonly Session[]): SessionIndex {
  const byId = new Map<string, Session[]>();
  const byKey = new Map<string, Session>();
  for (const s of sessions) {
    byKey.set(SessionStore.keyOf(s), s);
    const list = byId.get(s.id);
    if (list) list.push(s);
    else byId.set(s.id, [s]);
  }
  return { byId, byKey };
}

/** The session `s` was spawned or forked from, when it can be told (see lineage.ts), else undefined. */
export function parentOf(s: Session, index: SessionIndex): Session | undefined {
  const link = parentLink(s, index.byId);
  return link.kind === 'resolved' ? index.byKey.get(link.key) : undefined;
}

export interface CompareTotals {
  turns: number;
  tools: number;
  toolErrors: number;
  usage: TokenUsage;
  ms: number;
}

export interface CompareSide {
  session: Session;
  /** the branch's own turns: those not wholly inside the shared prefix */
  turns: TurnSummary[];
  totals: CompareTotals;
  /** what the branch did to the code; the edits in the shared prefix are inherited */
  changes: Changes;
}

/** One aligned line: equal turns on both sides, or each side's own (either may be missing). */
export interface AlignedPair {
  left?: TurnSummary;
  right?: TurnSummary;
  equal: boolean;
}

export interface Comparison {
  /** nearest common fork ancestor and the last seq where the two logs agree (-1: none) */
  ancestor: { session: Session; seq: number } | null;
  /** number of leading events both logs share */
  prefix: number;
  /** turns wholly inside the shared prefix */
  sharedTurns: TurnSummary[];
  left: CompareSide;
  right: CompareSide;
  pairs: AlignedPair[];
  /** each file either branch changed on its own, side by side */
  files: FilePair[];
}

/** Number of leading events equal in both logs. */
export function commonPrefix(a: readonly SessionEvent[], b: readonly SessionEvent[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && (a[i] === b[i] || canonicalJson(a[i]) === canonicalJson(b[i]))) i++;
  return i;
}

/** The fork parent of `s` (spawned subagents share no events: not a fork edge). */
export function forkParent(s: Session, index: SessionIndex): Session | undefined {
  return s.kind === 'fork' ? parentOf(s, index) : undefined;
}

/** [s, its fork parent, its parent, …] up to a root, a missing parent, or a cycle. */
export function forkAncestry(s: Session, index: SessionIndex): Session[] {
  const chain: Session[] = [s];
  const seen = new Set<Session>([s]);
  let cur = forkParent(s, index);
  while (cur && !seen.has(cur)) {
    chain.push(cur);
    seen.add(cur);
    cur = forkParent(cur, index);
  }
  return chain;
}

/** The nearest session both descend from through fork edges, or undefined. */
export function commonAncestor(a: Session, b: Session, index: SessionIndex): Session | undefined {
  const bs = new Set(forkAncestry(b, index));
  return forkAncestry(a, index).find((x) => bs.has(x));
}

/** Aligns two turn lists: equal turns (by turnKey) matched by LCS; the gaps between paired index by index. */
export function alignTurns(left: readonly TurnSummary[], right: readonly TurnSummary[]): AlignedPair[] {
  const n = left.length;
  const m = right.length;
  const out: AlignedPair[] = [];
  // LCS is O(n*m): past a few million cells, pair by index instead.
  if (n * m > 4_000_000) {
    for (let i = 0; i < Math.max(n, m); i++) {
      const l = left[i];
      const r = right[i];
      out.push({ ...(l ? { left: l } : {}), ...(r ? { right: r } : {}), equal: !!l && !!r && turnKey(l) === turnKey(r) });
    }
    return out;
  }
  const lk = left.map(turnKey);
  const rk = right.map(turnKey);
  const w = m + 1;
  const L = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) L[i * w + j] = lk[i] === rk[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
  let i = 0;
  let j = 0;
  let gapL: TurnSummary[] = [];
  let gapR: TurnSummary[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(gapL.length, gapR.length); k++) {
      const p: AlignedPair = { equal: false };
      if (gapL[k]) p.left = gapL[k];
      if (gapR[k]) p.right = gapR[k];
      out.push(p);
    }
    gapL = [];
    gapR = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && lk[i] === rk[j] && L[i * w + j] === L[(i + 1) * w + j + 1] + 1) {
      flush();
      out.push({ left: left[i++], right: right[j++], equal: true });
    } else if (j >= m || (i < n && L[(i + 1) * w + j] >= L[i * w + j + 1])) gapL.push(left[i++]);
    else gapR.push(right[j++]);
  }
  flush();
  return out;
}

export function totalsOf(turns: readonly TurnSummary[]): CompareTotals {
  let usage = emptyUsage();
  let tools = 0;
  let toolErrors = 0;
  let ms = 0;
  for (const t of turns) {
    usage = addUsage(usage, t.usage);
    tools += t.tools.length;
    toolErrors += t.tools.filter((x) => x.error).length;
    ms += t.ms;
  }
  return { turns: turns.length, tools, toolErrors, usage, ms };
}

const PAUSED = Symbol('paused');
const NEVER = () => false;

/**
 * One log of a comparison, read in batches (Session.pausedBatches: a 10 GB log
 * is never held): its events one at a time for the common prefix, its turns
 * summarised a segment at a time as they pass (segmentSummaries).
 */
class SideRead {
  readonly turns: TurnSummary[] = [];
  readonly changes: ChangesFold;
  count = 0;
  private seg: SessionEvent[] = [];
  private batch: readonly SessionEvent[] = [];
  private i = 0;
  private ended = false;
  private readonly it: Iterator<readonly SessionEvent[] | undefined>;

  constructor(s: Session, pause: () => boolean) {
    this.it = s.pausedBatches(Infinity, pause);
    this.changes = new ChangesFold({ cwd: typeof s.header.cwd === 'string' ? s.header.cwd : undefined });
  }

  /** The next event; undefined at the end; PAUSED where the read pauses (ask again). */
  next(): SessionEvent | undefined | typeof PAUSED {
    while (this.i >= this.batch.length) {
      if (this.ended) return undefined;
      const r = this.it.next();
      if (r.done) {
        this.ended = true;
        if (this.seg.length > 0) segmentSummaries(this.seg, this.turns);
        this.seg = [];
        return undefined;
      }
      if (r.value === undefined) return PAUSED;
      this.batch = r.value;
      this.i = 0;
    }
    const e = this.batch[this.i++];
    if (e.type === 'turn/start' && this.seg.length > 0) {
      segmentSummaries(this.seg, this.turns);
      this.seg = [];
    }
    this.seg.push(e);
    this.changes.add(e);
    this.count++;
    return e;
  }

  close(): void {
    this.it.return?.(undefined);
  }
}

/**
 * Compares `a` (left) with `b` (right); `sessions` is every live session (the
 * store's list) or an index of them. Both logs are read once, side by side,
 * in batches: memory holds a turn's events and a summary per turn, whatever
 * the logs' sizes.
 */
export function compareSessions(a: Session, b: Session, sessions: readonly Session[] | SessionIndex): Comparison {
  const steps = compareSteps(a, b, sessions);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * compareSessions in steps: it yields where the reads pause (`pause()` says
 * when: the app's ~8 ms slices) the events read so far (of a.length +
 * b.length, or a.length when a is b), and returns the comparison; return()
 * closes the logs (a comparison cancelled).
 */
export function* compareSteps(a: Session, b: Session, sessions: readonly Session[] | SessionIndex, pause: () => boolean = NEVER): Generator<number, Comparison> {
  const index = Array.isArray(sessions) ? indexSessions(sessions) : (sessions as SessionIndex);
  const ra = new SideRead(a, pause);
  const rb = a === b ? ra : new SideRead(b, pause);
  const take = function* (r: SideRead): Generator<number, SessionEvent | undefined> {
    for (;;) {
      const e = r.next();
      if (e !== PAUSED) return e;
      yield ra.count + (rb === ra ? 0 : rb.count);
    }
  };
  try {
    let prefix = 0;
    // side by side while the two agree; then each read on alone to its end
    if (ra !== rb)
      for (;;) {
        const x = yield* take(ra);
        const y = yield* take(rb);
        if (x === undefined || y === undefined || (x !== y && canonicalJson(x) !== canonicalJson(y))) break;
        prefix++;
      }
    while ((yield* take(ra)) !== undefined);
    if (ra !== rb) while ((yield* take(rb)) !== undefined);
    if (ra === rb) prefix = ra.count;
    const anc = commonAncestor(a, b, index);
    const isShared = (t: TurnSummary) => t.lastSeq < prefix && !t.open;
    const sharedTurns = ra.turns.filter(isShared);
    const ownA = ra.turns.filter((t) => !isShared(t));
    const ownB = rb.turns.filter((t) => !isShared(t));
    const changesA = inheritedBefore(ra.changes.result(), prefix);
    const changesB = rb === ra ? changesA : inheritedBefore(rb.changes.result(), prefix);
    return {
      ancestor: anc ? { session: anc, seq: prefix - 1 } : null,
      prefix,
      sharedTurns,
      left: { session: a, turns: ownA, totals: totalsOf(ownA), changes: changesA },
      right: { session: b, turns: ownB, totals: totalsOf(ownB), changes: changesB },
      pairs: alignTurns(ownA, ownB),
      files: fileComparison(changesA, changesB),
    };
  } finally {
    ra.close();
    rb.close();
  }
}

/** The JSON of `dsh-browse diff --json`. */
export function comparisonJson(c: Comparison) {
  const equalL = new Set(c.pairs.filter((p) => p.equal).map((p) => p.left));
  const equalR = new Set(c.pairs.filter((p) => p.equal).map((p) => p.right));
  const side = (s: CompareSide, equal: Set<TurnSummary | undefined>) => ({
    id: s.session.id,
    file: s.session.file,
    turns: s.turns.map((t) => ({ ...t, equal: equal.has(t) })),
    totals: s.totals,
    changes: changesJson(s.changes),
  });
  return {
    ancestor: c.ancestor ? { id: c.ancestor.session.id, file: c.ancestor.session.file, seq: c.ancestor.seq } : null,
    prefix: c.prefix,
    sharedTurns: c.sharedTurns.length,
    files: c.files.map((f) => ({ path: f.path, verdict: f.verdict })),
    left: side(c.left, equalL),
    right: side(c.right, equalR),
  };
}
