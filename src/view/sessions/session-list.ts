/**
 * The Sessions view's model, pure: sessions -> sorted, filtered rows with
 * sanitised cells. No React, no fs.
 *
 * Orders (`s` cycles them):
 * - recent:   newest activity first (last event time, else createdAt)
 * - created:  newest createdAt first
 * - id:       id ascending (code units), ties by key
 * - threaded: children under their parent (depth-first), each level newest
 *             activity first; a child's parent is its resolved parentKey,
 *             else the first session with that id in (createdAt, key) order,
 *             as in the lineage layout. Sessions whose parent is missing,
 *             ambiguous or filtered out, and members of cycles, are drawn as roots.
 * Filter: case-insensitive substring of id, title or cwd.
 */
import type { RowSeq } from '../app/window.js';
import { compact } from '../../session/usage.js';
import { ageText, ageTextUntil } from '../text/age.js';
import type { ForkBlock, SessionState } from '../../session/log-facts.js';
import { byKey, byOrder, byRecent, num, type SessionListItem, type SortOrder } from '../../session/list-item.js';
import { displayWidth, sanitizeInline } from '../text/sanitize.js';

export const SORT_ORDERS: readonly SortOrder[] = ['recent', 'created', 'id', 'threaded'];

export function nextOrder(o: SortOrder): SortOrder {
  return SORT_ORDERS[(SORT_ORDERS.indexOf(o) + 1) % SORT_ORDERS.length];
}

export type BadgeTone = 'green' | 'yellow' | 'gray' | 'red';

/** One row, every cell already sanitised (not yet truncated). */
export interface SessionRow {
  key: string;
  depth: number;
  /** the tree drawn before the mark in threaded order (`│ ├ `), '' at depth 0: treeGuides */
  guide: string;
  kind: 'root' | 'fork' | 'spawn';
  /** `◆` fork child, `◈` a subagent's fork child, `◇` spawned subagent, `` root */
  mark: string;
  id: string;
  title: string;
  cwd: string;
  turns: string;
  events: string;
  /** tokens in + out, compact (`1.2k`), '' when the log records no usage */
  tokens: string;
  /** age of the last activity */
  age: string;
  state: SessionState;
  /** e.g. `boundary`, `open 23h`, `empty`, `seq gap`, each with ` ⚠2` when damaged: what a fork meets (forkBlockOf) */
  badge: string;
  tone: BadgeTone;
  diagnostics: number;
  forkable: boolean;
  /** a deleted session kept on screen (the selection): not counted among the sessions shown */
  gone: boolean;
}

export function filterSessions(items: readonly SessionListItem[], query: string): SessionListItem[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...items];
  return items.filter((s) => [s.id, s.title, s.cwd].some((v) => v !== undefined && v.toLowerCase().includes(q)));
}

/** Sorted items with their depth (0 except in threaded order). */
export function sortSessions(items: readonly SessionListItem[], order: SortOrder): Array<{ item: SessionListItem; depth: number }> {
  if (order !== 'threaded') {
    return [...items].sort(byOrder(order)).map((item) => ({ item, depth: 0 }));
  }
  return threaded(items);
}

function threaded(items: readonly SessionListItem[]): Array<{ item: SessionListItem; depth: number }> {
  const firstById = new Map<string, SessionListItem>();
  for (const s of [...items].sort((a, b) => num(a.createdAt) - num(b.createdAt) || byKey(a, b))) {
    if (!firstById.has(s.id)) firstById.set(s.id, s);
  }
  const itemByKey = new Map(items.map((s) => [s.key, s]));
  const children = new Map<string, SessionListItem[]>();
  const roots: SessionListItem[] = [];
  for (const s of items) {
    const p =
      s.parentSession === undefined || s.parentSession === '' || s.parentAmbiguous
        ? undefined
        : s.parentKey !== undefined
          ? itemByKey.get(s.parentKey)
          : firstById.get(s.parentSession);
    if (!p || p === s) roots.push(s);
    else {
      const list = children.get(p.key);
      if (list) list.push(s);
      else children.set(p.key, [s]);
    }
  }
  const out: Array<{ item: SessionListItem; depth: number }> = [];
  const seen = new Set<string>();
  const walk = (start: SessionListItem[]): void => {
    const stack = start.sort(byRecent).reverse().map((item) => ({ item, depth: 0 }));
    while (stack.length) {
      const { item, depth } = stack.pop()!;
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      out.push({ item, depth });
      const kids = [...(children.get(item.key) ?? [])].sort(byRecent);
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ item: kids[i], depth: depth + 1 });
    }
  };
  walk(roots);
  // Cycle members are nobody's descendants from a root: show them as roots.
  const rest = items.filter((s) => !seen.has(s.key));
  while (rest.length) {
    walk([rest.shift()!]);
    for (let i = rest.length - 1; i >= 0; i--) if (seen.has(rest[i].key)) rest.splice(i, 1);
  }
  return out;
}

/**
 * BADGE cell widths of the items that are not in an open turn: such a cell's
 * text depends only on the verdict, whether the session resumes and its
 * diagnostics count (badgeOf, badgeCell), so one width is kept per such
 * triple: a handful at any size (a width per item, in a WeakMap, was ~40
 * bytes a session at 100,000 sessions and an ephemeron for the collector to
 * trace). An open turn's cell shows its age, which moves: measured each time.
 */
const badgeWidths = {
  measure: undefined as ((text: string) => number) | undefined,
  byKind: new Map<number, number>(),
  of(item: SessionListItem, now: number, measure: (text: string) => number): number {
    const block = forkBlockOfItem(item);
    if (block === 'open-turn') return measure(badgeCell(item, now).badge);
    if (measure !== this.measure) {
      this.measure = measure;
      this.byKind.clear();
    }
    const verdict = block === 'seq-gap' ? 0 : item.state === 'empty' ? 1 : 2;
    const key = ((item.diagnostics * 3 + verdict) * 2 + (item.notResumable !== undefined ? 1 : 0)) * 2 + (item.upgradeRefused !== undefined ? 1 : 0);
    let w = this.byKind.get(key);
    if (w === undefined) this.byKind.set(key, (w = measure(badgeCell(item, now).badge)));
    return w;
  },
};

/** The item's fork verdict: its own, or for an item built without facts, an open turn's. */
const forkBlockOfItem = (s: SessionListItem): ForkBlock | undefined => s.forkBlock ?? (s.state === 'open-turn' ? 'open-turn' : undefined);

/**
 * The STATE column, from the same verdict as the row's `forkable`: `boundary`
 * only where a fork of the whole log is allowed (the legend says so); a log
 * that ends between turns past a seq gap says `seq gap`.
 */
function badgeOf(s: SessionListItem, now: number): { badge: string; tone: BadgeTone } {
  const damage = s.diagnostics > 0 ? ` ⚠${s.diagnostics}` : '';
  const block = forkBlockOfItem(s);
  if (block === 'open-turn') return { badge: `open ${ageText(s.lastEventTime, now)}${damage}`, tone: s.diagnostics ? 'red' : 'yellow' };
  if (block === 'seq-gap') return { badge: 'seq gap' + damage, tone: 'red' };
  if (s.state === 'empty') return { badge: 'empty' + damage, tone: s.diagnostics ? 'red' : 'gray' };
  return { badge: 'boundary' + damage, tone: s.diagnostics ? 'red' : 'green' };
}

const TEE = '├ ';
const ELBOW = '└ ';
const PIPE = '│ ';
const BLANK = '  ';
const FOLD = '⋯ ';
/** Lanes drawn before a row's own connector at most; deeper ones fold into one `⋯ ` (the id column is narrow). */
const MAX_LANES = 6;

/**
 * The tree guide of each row of a depth-first list (as `threaded` orders it),
 * from the depths alone, as the Lineage view draws its edges: `├ ` for a child
 * with a later sibling, `└ ` for the last one, and under each ancestor that
 * has a later sibling a `│ ` lane down to it. One pass from the end: `open[k]`
 * says a row at depth k follows before any shallower one.
 */
export function treeGuides(depths: readonly number[]): string[] {
  const out = new Array<string>(depths.length);
  const open: boolean[] = [];
  for (let i = depths.length - 1; i >= 0; i--) {
    const d = depths[i];
    if (d <= 0) out[i] = '';
    else {
      const lanes: string[] = [];
      for (let k = Math.max(1, d - MAX_LANES); k < d; k++) lanes.push(open[k] ? PIPE : BLANK);
      if (d - 1 > MAX_LANES) lanes.splice(0, 1, FOLD);
      out[i] = lanes.join('') + (open[d] ? TEE : ELBOW);
    }
    open.length = Math.max(0, d + 1); // a shallower row ends every deeper run
    open[d] = true;
  }
  return out;
}

/**
 * What the Sessions header and the STATE column need from a whole list,
 * kept by whoever keeps the list (the root model, per order) and updated as
 * items enter and leave it: a frame then reads them instead of walking
 * 100,000 items. Widths are counted per value; an open turn's badge shows its
 * age (it moves), so those items are kept apart and measured when asked.
 */
export class ListStats {
  private readonly widths: number[] = [];
  private readonly timed = new Set<SessionListItem>();
  gone = 0;

  add(item: SessionListItem): void {
    if (item.gone === true) this.gone++;
    if (forkBlockOfItem(item) === 'open-turn') this.timed.add(item);
    else {
      const w = badgeWidth(item, 0); // only an open turn's badge reads the clock
      this.widths[w] = (this.widths[w] ?? 0) + 1;
    }
  }

  remove(item: SessionListItem): void {
    if (item.gone === true) this.gone--;
    if (!this.timed.delete(item)) {
      const w = badgeWidth(item, 0);
      this.widths[w]--;
    }
  }

  /** The widest badge at `now`, at least `min` and at most `max`. */
  widest(now: number, min: number, max: number): number {
    let widest = min;
    for (let w = this.widths.length - 1; w > widest; w--)
      if (this.widths[w]) {
        widest = w;
        break;
      }
    for (const item of this.timed) if (widest < max) widest = Math.max(widest, badgeWidth(item, now));
    return Math.min(widest, max);
  }
}

/** The display width of an item's BADGE cell (kept per kind of cell: badgeWidths). */
export function badgeWidth(item: SessionListItem, now: number): number {
  return badgeWidths.of(item, now, displayWidth);
}

/**
 * The Sessions rows of items in their order, each built when read: a frame
 * reads a window's worth. Building all of them (and keeping each in the memo)
 * was ~500 bytes a session and a 100,000-element array per new order.
 */
export class ItemRows implements RowSeq<SessionRow> {
  private goneCount?: number;
  constructor(
    readonly items: readonly SessionListItem[],
    readonly now: number,
    /** the list's counts, when its keeper has them (else they are counted here) */
    private readonly stats?: ListStats,
  ) {}
  get length(): number {
    return this.items.length;
  }
  /** the same items and stats, their rows at another time (the ages move on) */
  withNow(now: number): ItemRows {
    return now === this.now ? this : new ItemRows(this.items, now, this.stats);
  }
  at(i: number): SessionRow | undefined {
    const item = this.items.at(i);
    return item && rowFor(item, 0, this.now);
  }
  slice(start?: number, end?: number): SessionRow[] {
    return this.items.slice(start, end).map((item) => rowFor(item, 0, this.now));
  }
  /** the row of `key` (-1: none), found among the items (no row is built) */
  indexOfKey(key: string): number {
    return this.items.findIndex((item) => item.key === key);
  }
  /**
   * The width of the widest BADGE cell (its display width), at least `min`
   * and at most `max`: from the list's stats, else from each item's width
   * (kept while the item lives).
   */
  widestBadge(min: number, max: number): number {
    if (this.stats) return this.stats.widest(this.now, min, max);
    let widest = min;
    for (const item of this.items) if (badgeWidth(item, this.now) > widest && (widest = badgeWidth(item, this.now)) >= max) return max;
    return widest;
  }
  /** deleted sessions kept among the rows */
  gone(): number {
    return (this.goneCount ??= this.stats ? this.stats.gone : this.items.filter((item) => item.gone === true).length);
  }
}

/**
 * Rows survive snapshots: an item's row is built again only when the item
 * changed (a new object), its place in the tree did, or the clock moved its
 * age or its open turn's age. A frame then costs a lookup per row.
 */
const rowMemo = new WeakMap<SessionListItem, { from: number; until: number; depth: number; guide: string; row: SessionRow }>();

export function rowFor(s: SessionListItem, depth: number, now: number, guide = ''): SessionRow {
  const m = rowMemo.get(s);
  if (m && m.depth === depth && m.guide === guide && m.from <= now && now < m.until) return m.row;
  const row = rowOf(s, depth, now, guide);
  // the AGE column and an open turn's badge read the same time
  const until = Math.min(ageTextUntil(s.lastEventTime ?? s.createdAt, now), ageTextUntil(s.lastEventTime, now));
  rowMemo.set(s, { from: now, until, depth, guide, row });
  return row;
}

/**
 * The BADGE cell and its tone: the fork verdict, ⊘ where dsh --resume would
 * refuse the session, else ⇡ where the current release would refuse it on
 * upgrade (the reasons are in Turns, the action menu and Problems).
 */
function badgeCell(s: SessionListItem, now: number): { badge: string; tone: BadgeTone } {
  const b = badgeOf(s, now);
  const mark = s.notResumable !== undefined ? '⊘ ' : s.upgradeRefused !== undefined ? '⇡ ' : '';
  return mark ? { badge: mark + b.badge, tone: b.tone === 'green' ? 'yellow' : b.tone } : b;
}

export function rowOf(s: SessionListItem, depth: number, now: number, guide = ''): SessionRow {
  const { badge, tone } = badgeCell(s, now);
  return {
    key: s.key,
    depth,
    guide,
    kind: s.kind,
    // ◈ a subagent's fork (rc.8 origin "subagent"), told apart from a fork the user made
    mark: s.kind === 'fork' ? (s.subagent ? '◈' : '◆') : s.kind === 'spawn' ? '◇' : '',
    id: sanitizeInline(s.id),
    // the worst problem where the row is read (the badge column is too narrow for a code)
    title: (s.problem ? `⚠ ${s.problem.code}${s.problem.count > 1 ? ` +${s.problem.count - 1}` : ''} · ` : '') + sanitizeInline(s.title ?? ''),
    cwd: sanitizeInline(s.cwd ?? ''),
    // (a log still being read: its counts are not known, and the head's would be too small)
    turns: s.partial ? '…' : String(s.turns),
    events: s.partial ? '…' : String(s.events),
    tokens: s.partial ? '…' : s.tokens === undefined ? '' : compact(s.tokens),
    age: ageText(s.lastEventTime ?? s.createdAt, now),
    state: s.state,
    badge,
    tone,
    diagnostics: s.diagnostics,
    forkable: !s.partial && forkBlockOfItem(s) === undefined,
    gone: s.gone === true,
  };
}

/** Deleted rows kept on screen, counted once per rows array (it is drawn on every key). */
const goneMemo = new WeakMap<object, number>();
function goneRows(rows: RowSeq<Pick<SessionRow, 'gone'>>): number {
  if (rows instanceof ItemRows) return rows.gone();
  let n = goneMemo.get(rows);
  if (n === undefined) goneMemo.set(rows, (n = rows.slice().filter((r) => r.gone).length));
  return n;
}

/**
 * The Sessions header's count: the live rows shown of the root's `total`
 * sessions, and apart from them a deleted selection kept on screen (it is no
 * longer one of the total: counting it read `19 of 18 sessions`).
 */
export function sessionsCountText(rows: RowSeq<Pick<SessionRow, 'gone'>>, total: number, filtered: boolean): string {
  const deleted = goneRows(rows);
  const shown = rows.length - deleted;
  const count = filtered || shown !== total ? `${shown} of ${total}` : `${total}`;
  return `${count} session${total === 1 ? '' : 's'}${deleted ? ` (+${deleted} deleted)` : ''}`;
}

export interface SessionListOptions {
  order: SortOrder;
  filter: string;
  now: number;
}

/** The whole pipeline: filter, sort, rows. */
export function sessionRows(items: readonly SessionListItem[], opts: SessionListOptions): SessionRow[] {
  const sorted = sortSessions(filterSessions(items, opts.filter), opts.order);
  const guides = treeGuides(sorted.map((r) => r.depth));
  return sorted.map(({ item, depth }, i) => rowFor(item, depth, opts.now, guides[i]));
}
