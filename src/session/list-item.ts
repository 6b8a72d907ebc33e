// A session as the list keeps it: the item the root model holds per session
// (its header's fields, its list facts, what the root decides) and the
// orders the Sessions list sorts items in. Raw and unsanitised: the views
// draw their rows from items.
import { listFactsOf, type ListFacts } from './catalog-row.js';
import type { ForkBlock, SessionState } from './log-facts.js';
import type { Session } from './session.js';
import { SessionStore } from './store.js';

export type SortOrder = 'recent' | 'created' | 'id' | 'threaded';
/** The orders kept sorted incrementally (threaded is a tree: built from the items when asked). */
export type FlatOrder = Exclude<SortOrder, 'threaded'>;

/** What a list's reader keeps of a kept order (the Sessions header's counts and widths), told as items enter and leave it. */
export interface ItemStats {
  add(item: SessionListItem): void;
  remove(item: SessionListItem): void;
}

/** What the list needs from one session (raw, unsanitised): its header's fields, its list facts (catalog-row.ts), and what the root decides. */
export interface SessionListItem extends ListFacts {
  key: string;
  id: string;
  kind: 'root' | 'fork' | 'spawn';
  createdAt: number;
  /** rc.8 `origin: "subagent"`: a subagent's fork or spawn, not the user's */
  subagent?: boolean;
  cwd?: string;
  parentSession?: string;
  seedLength?: number;
  /** the parent's key when it can be told (ids repeat: src/session/lineage.ts) */
  parentKey?: string;
  /** several sessions carry the parent id and none is provably the parent */
  parentAmbiguous?: boolean;
  /** the worst problem of the session (a diagnostic or an audit finding: SEED_MISMATCH, DUPLICATE_ID…) and how many it has */
  problem?: { severity: 'error' | 'warning'; code: string; count: number };
  /** in a harness root: why `dsh --resume` would refuse it (undefined: it would resume it, or not a harness file) */
  notResumable?: string;
  /** the current release would refuse it on upgrade (upgradeRefusal; undefined: it would not, or not in the harness's layout) */
  upgradeRefused?: string;
  /** its file was deleted: the selection kept on screen, no longer one of the root's sessions */
  gone?: boolean;
  /** listed from its log's head and tail while the scan reads the rest (Session.partial): its counts are not known */
  partial?: boolean;
}

/** Every field of a SessionListItem: two items show the same when each of these is equal (sameItem). */
export const ITEM_FIELDS = [
  'key', 'id', 'kind', 'createdAt', 'subagent', 'cwd', 'parentSession', 'seedLength', 'parentKey', 'parentAmbiguous', 'problem', 'notResumable', 'upgradeRefused', 'gone', 'partial',
  'turns', 'events', 'state', 'diagnostics', 'forkBlock', 'tokens', 'title', 'lastEventTime', 'lastEventType',
] as const satisfies ReadonlyArray<keyof SessionListItem>;
/** (a field added to SessionListItem and not to ITEM_FIELDS fails to compile here: sameItem would not see it change) */
const everyField: [Exclude<keyof SessionListItem, (typeof ITEM_FIELDS)[number]>] extends [never] ? true : never = true;
void everyField;

/**
 * A list item: what its session showed when the item was built. It refers to
 * the session for its header's fields (a session's header never changes) and
 * to its list facts (a catalog session's row itself, else the facts taken
 * then: neither changes after), and holds as fields of its own only what
 * may change in place on the session (its kind, seed, gone, partial) and
 * what the root decides. Copied into fields, the header's and the facts'
 * values were ~100 bytes more an item at 100,000 sessions (two timestamps
 * boxed on their own). A class, its optional fields declared only: absent
 * until set, inside the object when they are.
 */
export class ListItem implements SessionListItem {
  declare seedLength?: number;
  declare parentKey?: string;
  declare parentAmbiguous?: boolean;
  declare problem?: SessionListItem['problem'];
  declare notResumable?: string;
  declare upgradeRefused?: string;
  declare gone?: boolean;
  declare partial?: boolean;
  constructor(
    readonly key: string,
    readonly kind: 'root' | 'fork' | 'spawn',
    private s: Session,
    private f: ListFacts,
  ) {}

  get id(): string {
    return this.s.header.id;
  }
  get createdAt(): number {
    return this.s.header.createdAt;
  }
  get subagent(): boolean | undefined {
    return this.s.header.origin === 'subagent' ? true : undefined;
  }
  get cwd(): string | undefined {
    return this.s.header.cwd;
  }
  get parentSession(): string | undefined {
    return this.s.header.parentSession;
  }
  get turns(): number {
    return this.f.turns;
  }
  get events(): number {
    return this.f.events;
  }
  get state(): SessionState {
    return this.f.state;
  }
  get diagnostics(): number {
    return this.f.diagnostics;
  }
  get forkBlock(): ForkBlock | undefined {
    return this.f.forkBlock;
  }
  get tokens(): number | undefined {
    return this.f.tokens;
  }
  get title(): string | undefined {
    return this.f.title;
  }
  get lastEventTime(): number | undefined {
    return this.f.lastEventTime;
  }
  get lastEventType(): string | undefined {
    return this.f.lastEventType;
  }

  /**
   * Takes `other`'s session and facts, which show the same (sameItem): the
   * item kept in the orders then holds no session the store has let go of
   * (a log read again, and its events with it).
   */
  adopt(other: ListItem): void {
    this.s = other.s;
    this.f = other.f;
  }
}

export function listItemOf(s: Session): ListItem {
  // (a catalog session's facts from its row: no log state is built for the list)
  const item = new ListItem(SessionStore.keyOf(s), s.kind, s, listFactsOf(s));
  const seed = s.seedLength;
  if (seed !== undefined) item.seedLength = seed;
  if (s.gone) item.gone = true;
  if (s.partial) item.partial = true;
  return item;
}

/** a timestamp, or 0 where it is missing or not a number (sorted last) */
export const num = (n: number | undefined): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
/** when the session last moved (its last event, else its creation): the recent order's key */
export const activity = (s: SessionListItem): number => num(s.lastEventTime ?? s.createdAt);
/** ties by key: a total order */
export const byKey = (a: SessionListItem, b: SessionListItem): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
export const byRecent = (a: SessionListItem, b: SessionListItem): number => activity(b) - activity(a) || byKey(a, b);
const byCreated = (a: SessionListItem, b: SessionListItem): number => num(b.createdAt) - num(a.createdAt) || byKey(a, b);
const byId = (a: SessionListItem, b: SessionListItem): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : byKey(a, b));

/** The comparator of a flat order (ties by key: a total order, so a kept list can be merged into). */
export const byOrder = (order: Exclude<SortOrder, 'threaded'>): ((a: SessionListItem, b: SessionListItem) => number) =>
  order === 'recent' ? byRecent : order === 'created' ? byCreated : byId;
