/**
 * Lineage layout: sessions (roots, fork children, spawned subagents) -> rows of
 * a `git log --graph` / lazygit-like drawing. Pure: no React, no fs.
 *
 * Drawing:
 * - Roots in createdAt order (a missing createdAt sorts last), ties by key.
 * - Every edge is drawn: each child row starts with `├─` or `└─` under its
 *   parent, an only child included, with `│ ` lanes (2 columns each) down to
 *   its later siblings. So a chain of forks is a staircase, never a column of
 *   look-alike roots, and a spawned subagent never looks like a new root.
 * - A parent's children: fork children grouped by fork point (seedLength),
 *   in fork-point order, then spawned children in createdAt order. A fork point
 *   with two or more children gets one `⑂ @turn 2 · seed 38 · 3 forks` row and
 *   its children under it without repeating the label; a lone fork child
 *   carries its label (`fork @turn 2 · seed 38`) itself.
 * - Markers: root `●`, fork `◆`, spawn `◇`, fork point `⑂`, missing or
 *   ambiguous parent `?`, cycle `↻`.
 * - `collapsed` (a set of node keys) hides those nodes' subtrees; their rows
 *   say so (`collapsed`, `hidden` descendants).
 * - Lanes beyond `maxLanes` fold into one `⋯ ` lane, so prefixes stay bounded
 *   at any depth; `depth` stays exact.
 *
 * Parent resolution: a node has a parent iff `parentId` is a non-empty string.
 * `parentKey` on the input, when set, names the parent node directly (the
 * model resolves duplicate ids by seed prefix there); `parentAmbiguous` puts
 * the node under an `ambiguous parent <id>` row. Otherwise, when several nodes
 * share the id, the child attaches to the first of them in (createdAt, key)
 * order. The edge is a spawn for `kind: 'spawn'`, a fork for `kind: 'fork'`;
 * a `kind: 'root'` node that still names a parent counts as a fork when it has
 * a seedLength and as a spawn otherwise.
 *
 * Orphans (parentId names no node) are grouped under one synthetic
 * `missing parent <id>` row per missing id, after the roots. Cycles (a node
 * that is its own ancestor, self-parent included) get one synthetic
 * `cycle: a → b → a` row each, after the orphan groups, with every member
 * shown once under it (in child order, starting from the first member by
 * (createdAt, key)); members' other descendants hang under them as usual.
 * Everything is iterative: depth costs no stack.
 */
import { sanitizeInline } from '../text/sanitize.js';

export { visibleWindow, type VisibleWindow } from '../app/window.js';

export interface LineageNodeInput {
  /** Unique: the session file path. */
  key: string;
  /** Session id; may repeat across nodes. */
  id: string;
  parentId?: string;
  kind: 'root' | 'fork' | 'spawn';
  seedLength?: number;
  /** Turn number the fork was cut after, if known. */
  forkTurn?: number;
  /** the cut is inside turn forkTurn (the harness's own fork, which closes that turn in the child) */
  forkInside?: boolean;
  /** Already-sanitised one-line text to show (the renderer fits it to the width). */
  label: string;
  createdAt?: number;
  /** The parent node's key, already resolved (ids repeat: see src/session/lineage.ts); overrides resolution by id. */
  parentKey?: string;
  /** Several nodes have the parent id and none could be chosen: drawn under `ambiguous parent <id>`. */
  parentAmbiguous?: boolean;
}

export type LineageRowKind = 'root' | 'fork' | 'spawn' | 'fork-point' | 'missing-parent' | 'cycle';

export interface LineageRow {
  /** Node key; null for synthetic rows (missing parent, cycle). */
  key: string | null;
  /** Indentation level: grows only at branch points and under synthetic rows. */
  depth: number;
  /** Box-drawing lanes and connector, without the marker. */
  prefix: string;
  /** e.g. `fork @turn 2 · seed 38`, `spawn`, or `` for roots and synthetic rows. */
  edgeLabel: string;
  kind: LineageRowKind;
  text: string;
  /** The key of the node this row hangs under (a fork-point row: the forking node); absent for roots and synthetic groups. */
  parentKey?: string;
  /** The node has children (shown or collapsed). */
  hasChildren?: boolean;
  /** The node is in the collapsed set and has children: they are hidden. */
  collapsed?: boolean;
  /** How many descendants a collapsed node hides. */
  hidden?: number;
}

export interface LineageEdge {
  /** Parent session id. */
  parent: string;
  /** Child session id. */
  child: string;
  /** Resolved parent node; undefined for orphans. */
  parentKey?: string;
  childKey: string;
  kind: 'fork' | 'spawn';
  seedLength?: number;
}

export interface LineageLayout {
  rows: LineageRow[];
  edges: LineageEdge[];
  /** Keys whose parentId is not any node's id. */
  orphans: string[];
  /** Keys whose parentId names several nodes, none of them provably the parent. */
  ambiguous: string[];
  /** Keys of each cycle's members, in child order. */
  cycles: string[][];
}

export interface LineageLayoutOptions {
  /**
   * Most lanes drawn in a prefix (default 64). Deeper branch points keep their
   * exact `depth`, but the leftmost lanes fold into one `⋯  ` lane so prefixes
   * stay bounded.
   */
  maxLanes?: number;
  /** Node keys whose subtrees are hidden. */
  collapsed?: ReadonlySet<string>;
}

export const LINEAGE_MARKERS: Readonly<Record<LineageRowKind, string>> = {
  root: '●',
  fork: '◆',
  spawn: '◇',
  'fork-point': '⑂',
  'missing-parent': '?',
  cycle: '↻',
};

const TEE = '├─';
const ELBOW = '└─';
const PIPE = '│ ';
const BLANK = '  ';
const FOLD = '⋯ ';
const LANE = 2; // every lane segment above is 2 code units (and columns) wide

/** One line naming every marker, for under the graph. */
export const LINEAGE_LEGEND = '● root  ◆ fork  ◇ spawn  ⑂ fork point (its forks below)  ? missing parent  ↻ cycle  ⊞ collapsed';

export function lineageMarker(kind: LineageRowKind): string {
  return LINEAGE_MARKERS[kind];
}

const NO_PARENT = -1;
const MISSING = -2;
const AMBIGUOUS = -3;

interface Resolved {
  /** Nodes in (createdAt, key) order. */
  sorted: LineageNodeInput[];
  /** Index into `sorted`, NO_PARENT or MISSING. */
  parent: Int32Array;
}

function compareNodes(a: LineageNodeInput, b: LineageNodeInput): number {
  const ta = typeof a.createdAt === 'number' && !Number.isNaN(a.createdAt) ? a.createdAt : Infinity;
  const tb = typeof b.createdAt === 'number' && !Number.isNaN(b.createdAt) ? b.createdAt : Infinity;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function hasParent(n: LineageNodeInput): n is LineageNodeInput & { parentId: string } {
  return typeof n.parentId === 'string' && n.parentId !== '';
}

function resolve(nodes: readonly LineageNodeInput[]): Resolved {
  const sorted = [...nodes].sort(compareNodes);
  const firstById = new Map<string, number>();
  const byKey = new Map<string, number>();
  sorted.forEach((n, i) => {
    if (!firstById.has(n.id)) firstById.set(n.id, i);
    byKey.set(n.key, i);
  });
  const parent = new Int32Array(sorted.length);
  sorted.forEach((n, i) => {
    if (!hasParent(n)) parent[i] = NO_PARENT;
    else if (n.parentAmbiguous) parent[i] = AMBIGUOUS;
    else if (n.parentKey !== undefined) parent[i] = byKey.get(n.parentKey) ?? MISSING;
    else parent[i] = firstById.get(n.parentId) ?? MISSING;
  });
  return { sorted, parent };
}

function edgeKind(n: LineageNodeInput): 'fork' | 'spawn' {
  if (n.kind === 'fork' || n.kind === 'spawn') return n.kind;
  return n.seedLength !== undefined ? 'fork' : 'spawn';
}

function edgeLabelOf(n: LineageNodeInput): string {
  if (!hasParent(n)) return '';
  if (edgeKind(n) === 'spawn') return 'spawn';
  let s = 'fork';
  if (n.forkTurn !== undefined) s += n.forkInside ? ` inside turn ${n.forkTurn}` : ` @turn ${n.forkTurn}`;
  if (n.seedLength !== undefined) s += ` · seed ${n.seedLength}`;
  return s;
}

/** Cycles as index lists in child order, each starting at its smallest index. */
function findCycles(parent: Int32Array): number[][] {
  const n = parent.length;
  const state = new Uint8Array(n); // 0 new, 1 on the current walk, 2 done
  const pos = new Int32Array(n);
  const cycles: number[][] = [];
  const path: number[] = [];
  for (let start = 0; start < n; start++) {
    if (state[start] !== 0) continue;
    path.length = 0;
    let i = start;
    while (i >= 0 && state[i] === 0) {
      state[i] = 1;
      pos[i] = path.length;
      path.push(i);
      i = parent[i];
    }
    if (i >= 0 && state[i] === 1) {
      // path[pos[i]..] runs parent-ward around the cycle; reverse for child order.
      const members = path.slice(pos[i]).reverse();
      let min = 0;
      for (let k = 1; k < members.length; k++) if (members[k] < members[min]) min = k;
      cycles.push([...members.slice(min), ...members.slice(0, min)]);
    }
    for (const p of path) state[p] = 2;
  }
  return cycles.sort((a, b) => a[0] - b[0]);
}

interface Frame {
  /** Node index, or -1 for a synthetic row (then `synthetic` is set). */
  idx: number;
  synthetic?: { kind: 'missing-parent' | 'cycle' | 'fork-point'; text: string; members: number[]; parentKey?: string; memberLabel?: string };
  prefix: string;
  lanes: string;
  depth: number;
  /** Overrides the node's edge label (children under a fork-point row). */
  label?: string;
}

function forkPointText(n: LineageNodeInput, count: number): string {
  const at = [n.forkTurn !== undefined ? (n.forkInside ? `inside turn ${n.forkTurn}` : `@turn ${n.forkTurn}`) : '', n.seedLength !== undefined ? `seed ${n.seedLength}` : ''].filter(Boolean).join(' · ');
  return `${at || 'fork point'} · ${count} forks`;
}

export function layoutLineage(
  nodes: readonly LineageNodeInput[],
  opts: LineageLayoutOptions = {},
): LineageLayout {
  const maxLanes = Math.max(2, Math.floor(opts.maxLanes ?? 64));
  const collapsed = opts.collapsed;
  const { sorted, parent } = resolve(nodes);
  const n = sorted.length;

  const children: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  const missing = new Map<string, number[]>(); // in order of first orphan
  const ambiguous = new Map<string, number[]>();
  const edges: LineageEdge[] = [];
  const orphans: string[] = [];
  const ambiguousKeys: string[] = [];
  for (let i = 0; i < n; i++) {
    const node = sorted[i];
    const p = parent[i];
    if (p === NO_PARENT) {
      roots.push(i);
      continue;
    }
    const edge: LineageEdge = { parent: node.parentId as string, child: node.id, childKey: node.key, kind: edgeKind(node) };
    if (p >= 0) {
      edge.parentKey = sorted[p].key;
      children[p].push(i);
    } else {
      (p === AMBIGUOUS ? ambiguousKeys : orphans).push(node.key);
      const groups = p === AMBIGUOUS ? ambiguous : missing;
      const group = groups.get(edge.parent);
      if (group) group.push(i);
      else groups.set(edge.parent, [i]);
    }
    if (node.seedLength !== undefined) edge.seedLength = node.seedLength;
    edges.push(edge);
  }

  const cycleIdx = findCycles(parent);
  const inCycle = new Uint8Array(n);
  for (const c of cycleIdx) for (const i of c) inCycle[i] = 1;
  const kidsOf = (i: number): number[] => (inCycle[i] ? children[i].filter((c) => !inCycle[c]) : children[i]);

  /** Descendants of i (cycle members are not re-entered), iteratively. */
  const countBelow = (i: number): number => {
    let count = 0;
    const todo = [...kidsOf(i)];
    while (todo.length) {
      const k = todo.pop()!;
      count++;
      for (const c of kidsOf(k)) todo.push(c);
    }
    return count;
  };

  const addLane = (lanes: string, seg: string): string => {
    if (lanes.length < maxLanes * LANE) return lanes + seg;
    return FOLD + lanes.slice(2 * LANE) + seg;
  };

  // Top-level frames, pushed in reverse so they pop in order.
  const top: Frame[] = roots.map((idx) => ({ idx, prefix: '', lanes: '', depth: 0 }));
  for (const [id, members] of missing) top.push({ idx: -1, synthetic: { kind: 'missing-parent', text: `missing parent ${sanitizeInline(id)}`, members }, prefix: '', lanes: '', depth: 0 });
  for (const [id, members] of ambiguous) top.push({ idx: -1, synthetic: { kind: 'missing-parent', text: `ambiguous parent ${sanitizeInline(id)}`, members }, prefix: '', lanes: '', depth: 0 });
  for (const c of cycleIdx) {
    const ids = c.map((i) => sanitizeInline(sorted[i].id));
    const text = `cycle: ${ids.join(' → ')} → ${ids[0]}`;
    top.push({ idx: -1, synthetic: { kind: 'cycle', text, members: c }, prefix: '', lanes: '', depth: 0 });
  }
  const stack: Frame[] = top.reverse();

  /** Pushes items (a node index, or a fork-point group) as connected children of frame f. */
  type Item = { idx: number } | { group: number[] };
  const pushItems = (items: Item[], f: Frame, parentKey: string | undefined, memberLabel?: string): void => {
    for (let k = items.length - 1; k >= 0; k--) {
      const last = k === items.length - 1;
      const it = items[k];
      const base = { prefix: f.lanes + (last ? ELBOW : TEE), lanes: addLane(f.lanes, last ? BLANK : PIPE), depth: f.depth + 1 };
      if ('idx' in it) stack.push({ idx: it.idx, ...base, label: memberLabel });
      else stack.push({ idx: -1, synthetic: { kind: 'fork-point', text: forkPointText(sorted[it.group[0]], it.group.length), members: it.group, parentKey, memberLabel: 'fork' }, ...base });
    }
  };

  /** A node's children as items: fork points in seedLength order (two or more forks make a group), then spawns. */
  const itemsOf = (kids: number[]): Item[] => {
    const bySeed = new Map<number, number[]>();
    const spawns: number[] = [];
    for (const c of kids) {
      const node = sorted[c];
      if (edgeKind(node) === 'spawn') spawns.push(c);
      else {
        const key = node.seedLength ?? -1;
        const g = bySeed.get(key);
        if (g) g.push(c);
        else bySeed.set(key, [c]);
      }
    }
    const seeds = [...bySeed.keys()].sort((a, b) => (a === -1 ? 1 : b === -1 ? -1 : a - b));
    const items: Item[] = seeds.map((sd) => {
      const g = bySeed.get(sd)!;
      return g.length === 1 || sd === -1 ? { idx: g[0] } : { group: g };
    });
    for (const sd of seeds) if (sd === -1) for (const c of bySeed.get(sd)!.slice(1)) items.push({ idx: c });
    for (const c of spawns) items.push({ idx: c });
    return items;
  };

  const rows: LineageRow[] = [];
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (f.synthetic) {
      const s = f.synthetic;
      const row: LineageRow = { key: null, depth: f.depth, prefix: f.prefix, edgeLabel: '', kind: s.kind, text: s.text };
      if (s.parentKey !== undefined) row.parentKey = s.parentKey;
      rows.push(row);
      pushItems(s.members.map((idx) => ({ idx })), f, s.parentKey, s.memberLabel);
      continue;
    }
    const node = sorted[f.idx];
    const p = parent[f.idx];
    const row: LineageRow = {
      key: node.key,
      depth: f.depth,
      prefix: f.prefix,
      edgeLabel: f.label ?? edgeLabelOf(node),
      kind: hasParent(node) ? edgeKind(node) : 'root',
      text: node.label,
    };
    if (p >= 0 && !inCycle[f.idx]) row.parentKey = sorted[p].key;
    const kids = kidsOf(f.idx);
    if (kids.length > 0) {
      row.hasChildren = true;
      if (collapsed?.has(node.key)) {
        row.collapsed = true;
        row.hidden = countBelow(f.idx);
      } else pushItems(itemsOf(kids), f, node.key);
    }
    rows.push(row);
  }

  return { rows, edges, orphans, ambiguous: ambiguousKeys, cycles: cycleIdx.map((c) => c.map((i) => sorted[i].key)) };
}

/**
 * The sessions of a layout: every node, shown or hidden under a collapsed one
 * (counting only the rows drew `20 sessions` as `14 sessions` after `h`).
 */
export function lineageSessionCounts(layout: LineageLayout): { sessions: number; hidden: number } {
  let shown = 0;
  let hidden = 0;
  for (const r of layout.rows) {
    if (r.key !== null) shown++;
    if (r.collapsed) hidden += r.hidden ?? 0;
  }
  return { sessions: shown + hidden, hidden };
}

const parentKeyCache = new WeakMap<LineageLayout, Map<string, string>>();

function parentKeysOf(layoutOrNodes: LineageLayout | readonly LineageNodeInput[]): Map<string, string> {
  if (!Array.isArray(layoutOrNodes)) {
    const layout = layoutOrNodes as LineageLayout;
    let map = parentKeyCache.get(layout);
    if (!map) {
      map = new Map();
      for (const e of layout.edges) if (e.parentKey !== undefined) map.set(e.childKey, e.parentKey);
      parentKeyCache.set(layout, map);
    }
    return map;
  }
  const { sorted, parent } = resolve(layoutOrNodes as readonly LineageNodeInput[]);
  const map = new Map<string, string>();
  sorted.forEach((node, i) => {
    if (parent[i] >= 0) map.set(node.key, sorted[parent[i]].key);
  });
  return map;
}

/**
 * `key` and all its ancestors' keys (same parent resolution as the layout), for
 * highlighting the selected session's ancestry. Stops at a root, a missing
 * parent, or on coming round a cycle (then the whole cycle is included).
 */
export function ancestryKeys(
  layoutOrNodes: LineageLayout | readonly LineageNodeInput[],
  key: string,
): Set<string> {
  const parents = parentKeysOf(layoutOrNodes);
  const out = new Set<string>([key]);
  for (let p = parents.get(key); p !== undefined && !out.has(p); p = parents.get(p)) out.add(p);
  return out;
}

const SGR: Readonly<Record<LineageRowKind, string>> = {
  root: '\x1b[32m', // green
  fork: '\x1b[36m', // cyan
  spawn: '\x1b[35m', // magenta
  'fork-point': '\x1b[36m', // cyan
  'missing-parent': '\x1b[33m', // yellow
  cycle: '\x1b[31m', // red
};
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/**
 * One line per row: `<prefix><marker> <text>  [<edgeLabel>]` (the bracket part
 * only when there is an edge label), `  [+N hidden]` on a collapsed node.
 * Lines are joined with `\n`, no trailing newline; `legend` adds the legend
 * line last. `color` adds ANSI colours: dim lanes and labels, a colour per kind.
 */
export function renderLineageText(layout: LineageLayout, opts: { color?: boolean; legend?: boolean } = {}): string {
  const color = opts.color === true;
  const lines = layout.rows.map((r) => {
    const marker = LINEAGE_MARKERS[r.kind];
    const more = r.collapsed ? `  [+${r.hidden} hidden]` : '';
    if (!color) return `${r.prefix}${marker} ${r.text}${r.edgeLabel ? `  [${r.edgeLabel}]` : ''}${more}`;
    const prefix = r.prefix ? `${DIM}${r.prefix}${RESET}` : '';
    const label = r.edgeLabel ? `  ${DIM}[${r.edgeLabel}]${RESET}` : '';
    return `${prefix}${SGR[r.kind]}${marker}${RESET} ${r.kind === 'fork-point' ? `${SGR[r.kind]}${r.text}${RESET}` : r.text}${label}${more ? `${DIM}${more}${RESET}` : ''}`;
  });
  if (opts.legend && layout.rows.length > 0) lines.push(color ? `${DIM}${LINEAGE_LEGEND}${RESET}` : LINEAGE_LEGEND);
  return lines.join('\n');
}
