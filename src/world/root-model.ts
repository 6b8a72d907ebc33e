// The root's derived facts, kept current from what changed: each
// session's list item with its marks (worst problem, resume verdict, parent
// link), the list in each sort order, and the count of diagnostics. The store
// and the audit keep journals of the keys they changed; sync() reads them and
// rebuilds only those items and the items that depend on them (the sessions
// sharing their id, the children naming it as parent). So a frame after a
// background slice costs what the slice changed, not a pass over the root,
// and a 100,000-session root stays as quick to browse while it is scanned
// and audited as a small one.
import { upgradeRefusal } from '../session/upgrade.js';
import { NumberedMap } from '../session/key-table.js';
import type { AuditIndex } from '../session/audit-index.js';
import { lineageCycles } from '../session/audit.js';
import { parentLink } from '../session/lineage.js';
import { compareSeverity, type ProblemRow, type SessionBadge } from '../session/problems.js';
import type { Session } from '../session/session.js';
import { SessionStore } from '../session/store.js';
import { layoutOf } from '../storage/layout.js';
import { resumeVerdict } from '../storage/resume.js';
import { rootRefusalOf } from '../storage/root-refusals.js';
import { activity, byOrder, ITEM_FIELDS, listItemOf, type FlatOrder, type ItemStats, type ListItem, type SessionListItem, type SortOrder } from '../session/list-item.js';

const keyOf = SessionStore.keyOf;
const NO_REFUSALS: ReadonlyMap<string, string> = new Map();

export class RootModel {
  private readonly items: NumberedMap<ListItem>;
  /** parent id -> keys of the sessions naming it (their parent link changes with that id's sessions) */
  private readonly children = new Map<string, Set<string>>();
  private storeAt = -1;
  private auditAt = -1;
  private refusals: ReadonlyMap<string, string> = NO_REFUSALS;
  /** ids that enter a lineage cycle (LINEAGE_CYCLE is reported on each session with that id) */
  private cycleIds = new Set<string>();
  private diagnosticSum = 0;
  private list?: SessionListItem[];
  /** the kept orders, by order (and " scoped" for the project scope's) */
  private readonly sorted = new Map<string, SortedList>();

  constructor(
    private readonly store: SessionStore,
    private readonly audit?: AuditIndex,
    /** the project scope's test: the scoped orders keep the items it passes */
    private readonly inScope?: (item: SessionListItem) => boolean,
  ) {
    this.items = new NumberedMap<ListItem>(store.keys);
  }

  /** Moves whenever an item is added, replaced or removed (what the list shows changed). */
  version = 0;

  /** How many items there are. */
  get size(): number {
    return this.items.size;
  }

  /** keys whose item is rebuilt in the coming steps (taken from the journals, with what depends on them) */
  private readonly pending = new Set<string>();
  /** keys the audit has news about: only a changed badge rebuilds them */
  private readonly auditPending = new Set<string>();
  /** a parent link came or went among the pending keys: lineage cycles are found again once they are done */
  private lineageMoved = false;

  /**
   * Brings the items up to date with the store, the audit and rc.8's root
   * refusals, at once. Returns whether anything was to be done.
   */
  sync(refusals: ReadonlyMap<string, string> = NO_REFUSALS): boolean {
    const news = this.intake(refusals);
    this.work(() => false);
    return news;
  }

  /**
   * The same in steps: rebuilds pending items until `pause()` says stop
   * (asked after each item). Returns true when the model is current. A scan
   * adds tens of thousands of sessions between two frames at 100,000: their
   * items are built in these steps, with keys answered between them, and the
   * frame that draws them has little left to do.
   */
  syncStep(refusals: ReadonlyMap<string, string> = NO_REFUSALS, pause: () => boolean): boolean {
    this.intake(refusals);
    return this.work(pause);
  }

  /** Whether the journals hold news not yet taken, or taken news wait to be applied. */
  behind(refusals: ReadonlyMap<string, string> = NO_REFUSALS): boolean {
    return (
      this.pending.size > 0 ||
      this.auditPending.size > 0 ||
      this.lineageMoved ||
      refusals !== this.refusals ||
      this.store.changes.version !== this.storeAt ||
      (this.audit?.changes.version ?? 0) !== this.auditAt
    );
  }

  /**
   * Takes what the journals noted since the last look into the work lists:
   * each changed key, the sessions sharing its id (their verdict, duplicate
   * badge) and its children (their parent link). A key taken before its item
   * was rebuilt is looked at again from the same old item, so no id it had
   * is missed. Returns whether there was news.
   */
  private intake(refusals: ReadonlyMap<string, string>): boolean {
    const storeKeys = this.store.changes.since(this.storeAt);
    const auditKeys = this.audit ? this.audit.changes.since(this.auditAt) : [];
    const all = storeKeys === undefined || auditKeys === undefined || refusals !== this.refusals;
    this.storeAt = this.store.changes.version;
    this.auditAt = this.audit?.changes.version ?? 0;
    this.refusals = refusals;
    if (all) {
      // every item is looked at again; those that show the same stay (no order is merged for them)
      for (const key of this.items.keys()) this.pending.add(key);
      for (const s of this.store.list()) this.pending.add(keyOf(s));
      this.lineageMoved = true;
      return true;
    }
    if (storeKeys.length === 0 && auditKeys.length === 0) return false;
    for (const key of storeKeys) {
      this.pending.add(key);
      const before = this.items.get(key);
      const now = this.store.byFile(key);
      // a cycle needs a parent link: it comes or goes only with a session that names a parent or is named as one
      const moved = !before || !now || before.id !== now.id || before.parentSession !== now.parentSession;
      const linked = (i?: { id: string; parentSession?: string }) => i !== undefined && (i.parentSession !== undefined || this.children.has(i.id));
      if (moved && (linked(before) || linked(now))) this.lineageMoved = true;
      // its id's sessions and children, under the old id and the new (a Set of the two per key was an
      // allocation per session of a scan)
      const was = before?.id;
      const is = now?.id;
      if (was !== undefined) this.takeId(was);
      if (is !== undefined && is !== was) this.takeId(is);
    }
    for (const key of auditKeys) this.auditPending.add(key);
    return true;
  }

  /** The sessions sharing `id` and the children naming it go on the work list. */
  private takeId(id: string): void {
    if (this.store.idCount(id) === 1) this.pending.add(keyOf(this.store.firstWithId(id)!));
    else for (const t of this.store.withId(id)) this.pending.add(keyOf(t));
    const children = this.children.get(id);
    if (children) for (const c of children) this.pending.add(c);
  }

  /** Applies the work lists until `pause()`; true when all is done. */
  private work(pause: () => boolean): boolean {
    for (;;) {
      for (const key of this.pending) {
        this.pending.delete(key);
        this.auditPending.delete(key); // rebuilt whole: its badge is current
        this.refresh(key);
        if (pause()) return this.pending.size === 0 && this.auditPending.size === 0 && !this.lineageMoved;
      }
      if (this.lineageMoved) {
        // once the items are current (the children map says who names whom)
        this.lineageMoved = false;
        this.updateCycles(this.pending);
        if (this.pending.size > 0) continue;
      }
      // the audit's news alone change only a badge: most sessions are clean before and after (a warm start recalls 100,000)
      for (const key of this.auditPending) {
        this.auditPending.delete(key);
        if (!this.sameBadge(key)) this.refresh(key);
        if (pause()) return this.auditPending.size === 0 && this.pending.size === 0;
      }
      return true;
    }
  }

  /** The item of `key` is there and its badge is what the audit says now (so nothing else of it changed). */
  private sameBadge(key: string): boolean {
    const item = this.items.get(key);
    const s = this.store.byFile(key);
    if (!item || !s) return false;
    const a = item.problem;
    const b = this.badgeOf(s);
    return a === b || (a !== undefined && b !== undefined && a.severity === b.severity && a.code === b.code && a.count === b.count);
  }

  /** A lineage cycle comes or goes only when sessions come or go: the ids whose cycle mark changed are affected. */
  private updateCycles(affected: Set<string>): void {
    const next = cycleIdsOf(this.store.list());
    for (const id of new Set([...this.cycleIds, ...next]))
      if (this.cycleIds.has(id) !== next.has(id)) for (const t of this.store.withId(id)) affected.add(keyOf(t));
    this.cycleIds = next;
  }

  private refresh(key: string): void {
    const before = this.items.get(key);
    const s = this.store.byFile(key);
    const item = s && this.itemOf(s);
    // nothing it shows changed (the audit found nothing new, an append that moved no fact): the same
    // object stays, so no order is merged again and no row rebuilt (after the scan of 100,000
    // sessions, the audit's notes replaced every item once more: a 100k merge per frame)
    if (item && before && sameItem(item, before)) {
      before.adopt(item);
      return;
    }
    if (item || before) this.version++;
    if (before) {
      this.unlinkChild(before);
      this.diagnosticSum -= before.diagnostics;
      for (const st of this.sorted.values()) st.gone.add(before);
    }
    if (!item) {
      if (before) {
        this.items.delete(key);
        this.list = undefined;
      }
      return;
    }
    this.items.set(key, item);
    this.list = undefined;
    this.diagnosticSum += item.diagnostics;
    if (item.parentSession !== undefined) {
      let set = this.children.get(item.parentSession);
      if (!set) this.children.set(item.parentSession, (set = new Set()));
      set.add(key);
    }
    for (const [name, st] of this.sorted) {
      st.added.push(item);
      // an order nobody asked for in a long while is dropped (sorted afresh when asked) rather than kept growing
      if (st.added.length > st.list.length + 4096) this.sorted.delete(name);
    }
  }

  private unlinkChild(item: SessionListItem): void {
    if (item.parentSession === undefined) return;
    const set = this.children.get(item.parentSession);
    set?.delete(item.key);
    if (set?.size === 0) this.children.delete(item.parentSession);
  }

  private itemOf(s: Session): ListItem {
    const item = listItemOf(s);
    const badge = this.badgeOf(s);
    if (badge) item.problem = badge;
    // only harness files can be resumed at all: elsewhere the badge would be noise
    if (s.file !== undefined && layoutOf(s.file) !== 'flat') item.notResumable = this.resumeRefusal(s);
    const upgrade = upgradeRefusal(s);
    if (upgrade !== undefined) item.upgradeRefused = upgrade;
    const link = parentLink(s, this.byId);
    if (link.kind === 'resolved') item.parentKey = link.key;
    else if (link.kind === 'ambiguous') item.parentAmbiguous = true;
    return item;
  }

  private readonly byId: ReadonlyMap<string, readonly Session[]> = {
    get: (id: string) => this.store.withId(id),
  } as ReadonlyMap<string, readonly Session[]>;

  /** Why `dsh --resume` would refuse `s` (undefined: it would resume it). */
  resumeRefusal(s: Session): string | undefined {
    const v = resumeVerdict(s, this.store.withId(s.id), rootRefusalOf(this.refusals, s));
    return v.resumable ? undefined : v.reason;
  }

  /**
   * The session's worst problem and how many it has, as the Problems tab
   * lists them (problemRows): its audit findings (its reader diagnostics until
   * it is audited), a finding about its id made while auditing a session that
   * shares it, DUPLICATE_ID when its id is shared, LINEAGE_CYCLE when its id
   * enters a cycle.
   */
  private badgeOf(s: Session): SessionBadge | undefined {
    let badge: SessionBadge | undefined;
    const add = (f: { severity: 'error' | 'warning'; code: string }) => {
      if (!badge) badge = { severity: f.severity, code: f.code, count: 1 };
      else {
        badge.count++;
        if (compareSeverity(f, badge) < 0) {
          badge.severity = f.severity;
          badge.code = f.code;
        }
      }
    };
    // problemRows' rule: a finding with a file belongs to that file's session, one without to every session with its id
    const mine = (f: { file?: string; session?: string }) => (f.file !== undefined ? f.file === s.file : f.session === s.id);
    const same = this.store.withId(s.id);
    for (const t of same) {
      const own = this.audit?.findingsOf(t);
      if (own) {
        for (const f of own) if (mine(f)) add(f);
      } else if (t.diagnosticCount > 0) for (const d of t.diagnostics) if (mine({ file: d.file, session: t.id })) add(d);
    }
    if (same.length > 1) add({ severity: 'warning', code: 'DUPLICATE_ID' });
    if (upgradeRefusal(s) !== undefined) add({ severity: 'warning', code: 'UPGRADE_REFUSED' });
    if (this.cycleIds.has(s.id)) add({ severity: 'error', code: 'LINEAGE_CYCLE' });
    return badge;
  }

  private problemsMemo?: { store: number; audit: number; files: number; rows: ProblemRow[] };

  /**
   * The Problems tab's rows (built by `compute` from the whole root), kept
   * until the store, the audit or the count of `files` changes (refused files
   * are not sessions): only that tab reads them.
   */
  problems(files: number, compute: () => ProblemRow[]): ProblemRow[] {
    const store = this.store.changes.version;
    const audit = this.audit?.changes.version ?? 0;
    const m = this.problemsMemo;
    if (m && m.store === store && m.audit === audit && m.files === files) return m.rows;
    const rows = compute();
    this.problemsMemo = { store, audit, files, rows };
    return rows;
  }

  /** The newest activity (last event, else creation) of any item: a walk over the items, no array of them. */
  newestActivity(): number {
    // the kept recent order, when nothing changed since its last merge, starts with the newest (the clock's
    // tick asks every 5 s: a walk over 100,000 items each time was most of an idle browser's CPU)
    const recent = this.sorted.get('recent');
    if (recent && recent.gone.size === 0 && recent.added.length === 0) return recent.list.length ? activity(recent.list[0]) : 0;
    let newest = 0;
    for (const i of this.items.values()) newest = Math.max(newest, activity(i));
    return newest;
  }

  /** Every item, in the store's order. */
  all(): readonly SessionListItem[] {
    return (this.list ??= this.items.valueList());
  }

  get(key: string): SessionListItem | undefined {
    return this.items.get(key);
  }

  /** Diagnostics of the sessions (refused files and skipped entries are the index's). */
  get diagnostics(): number {
    return this.diagnosticSum;
  }

  /**
   * The items in a flat order (in the project scope: `scoped`), kept sorted:
   * what changed since the last call is taken out and merged back in (one
   * linear pass, no comparisons for the items that did not move), and the
   * list's stats follow the same changes.
   */
  sortedBy(order: FlatOrder, scoped = false): readonly SessionListItem[] {
    return this.sortedList(order, scoped).list;
  }

  /**
   * Merges what changed into a kept order now (when it is kept and stale), so
   * that the frame reading it next has only the news since: the merge is a
   * pass over the whole order (10-25 ms at 100,000 while a scan adds).
   * Returns whether it merged.
   */
  prepare(order: SortOrder, scoped = false): boolean {
    if (order === 'threaded') return false;
    const kept = this.sorted.get(scoped && this.inScope ? `${order} scoped` : order);
    if (!kept || (kept.gone.size === 0 && kept.added.length === 0)) return false;
    this.sortedList(order, scoped);
    return true;
  }

  /**
   * The stats of sortedBy(order, scoped) (the Sessions header's deleted
   * count, the STATE column's width): made by `make` and filled from the
   * order the first time they are asked for, then kept through its changes.
   */
  statsOf<S extends ItemStats>(order: FlatOrder, scoped: boolean, make: () => S): S {
    const kept = this.sortedList(order, scoped);
    if (!kept.stats) {
      const stats = make();
      for (const i of kept.list) stats.add(i);
      kept.stats = stats;
    }
    return kept.stats as S;
  }

  private sortedList(order: FlatOrder, scoped: boolean): SortedList {
    const name = scoped && this.inScope ? `${order} scoped` : order;
    const keep = scoped && this.inScope ? this.inScope : undefined;
    const cmp = byOrder(order);
    const kept = this.sorted.get(name);
    if (!kept) {
      const list: SessionListItem[] = [];
      for (const i of this.items.values()) if (!keep || keep(i)) list.push(i);
      list.sort(cmp);
      const fresh: SortedList = { list, gone: new Set(), added: [], keep };
      this.sorted.set(name, fresh);
      return fresh;
    }
    const { list, gone, stats } = kept;
    if (gone.size === 0 && kept.added.length === 0) return kept;
    const added = kept.added.filter((i) => this.items.get(i.key) === i && (!keep || keep(i))).sort(cmp);
    const rest = gone.size
      ? list.filter((i) => {
          if (!gone.has(i)) return true;
          stats?.remove(i);
          return false;
        })
      : list;
    if (stats) for (const i of added) stats.add(i);
    const merged: SessionListItem[] = new Array(rest.length + added.length);
    let a = 0;
    let b = 0;
    let o = 0;
    while (a < rest.length && b < added.length) merged[o++] = cmp(rest[a], added[b]) <= 0 ? rest[a++] : added[b++];
    while (a < rest.length) merged[o++] = rest[a++];
    while (b < added.length) merged[o++] = added[b++];
    kept.list = merged;
    kept.gone = new Set();
    kept.added = [];
    return kept;
  }
}

/** One kept order: its items, their stats, and what changed since it was last merged. */
interface SortedList {
  list: SessionListItem[];
  /** its reader's stats, once asked for (statsOf) */
  stats?: ItemStats;
  /** items replaced or dropped since the last merge */
  gone: Set<SessionListItem>;
  /** items added since (some may be gone again, or outside the scope) */
  added: SessionListItem[];
  /** the scope's test (a scoped order) */
  keep?: (i: SessionListItem) => boolean;
}

const cycleIdsOf = (sessions: readonly Session[]): Set<string> => new Set(lineageCycles(sessions).flatMap((f) => (f.session !== undefined ? [f.session] : [])));

/** Two items show the same (every field equal; the problem badge by its severity, code and count). */
function sameItem(a: SessionListItem, b: SessionListItem): boolean {
  for (const k of ITEM_FIELDS) {
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (k === 'problem' && a.problem && b.problem && a.problem.severity === b.problem.severity && a.problem.code === b.problem.code && a.problem.count === b.problem.count) continue;
    return false;
  }
  return true;
}
