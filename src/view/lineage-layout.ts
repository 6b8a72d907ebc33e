/**
 * Lineage layout: sessions (roots, fork children, spawned subagents) -> rows of
 * a `git log --graph`-like drawing. Pure: no React, no fs.
 *
 * Drawing (pi's `/tree` reading):
 * - Roots in createdAt order (a missing createdAt sorts last), ties by key.
 *   Children under their parent in the same order.
 * - Indentation grows only where a node has more than one child. A chain of
 *   single children stays in the same column with the same prefix; its edge
 *   label (`fork @turn 2 · seed 38`, `spawn`) tells it apart from a sibling.
 * - `├─ ` / `└─ ` / `│  ` appear only at branch points.
 * - Markers: root `●`, fork `◆`, spawn `◇`, missing parent `?`, cycle `↻`.
 *
 * Parent resolution: a node has a parent iff `parentId` is a non-empty string.
 * When several nodes share that id, the child attaches to the first of them in
 * (createdAt, key) order. The edge is a spawn for `kind: 'spawn'`, a fork for
 * `kind: 'fork'`; a `kind: 'root'` node that still names a parent counts as a
 * fork when it has a seedLength and as a spawn otherwise. A node without a
 * parent is drawn as a root whatever its `kind`.
 *
 * Orphans (parentId names no node) are grouped under one synthetic
 * `missing parent <id>` row per missing id, after the roots. Cycles (a node
 * that is its own ancestor, self-parent included) get one synthetic
 * `cycle: a → b → a` row each, after the orphan groups, with every member
 * shown once under it (in child order, starting from the first member by
 * (createdAt, key)); members' other descendants hang under them as usual.
 * Synthetic groups always draw `├─`/`└─`, even for one child, so the group
 * reads as a group. Everything is iterative: depth costs no stack.
 */
import { sanitizeInline } from './sanitize.js';

export { visibleWindow, type VisibleWindow } from './window.js';

export interface LineageNodeInput {
  /** Unique: the session file path. */
  key: string;
  /** Session id; may repeat across nodes. */
  id: string;
  parentId?: string;
  /** the resolved parent node (ids repeat: see src/session/lineage.ts); default: the first node with parentId */
  parentKey?: string;
  /** several nodes have parentId and none can be told to be the parent */
  parentAmbiguous?: boolean;
  kind: 'root' | 'fork' | 'spawn';
  seedLength?: number;
  /** Turn number the fork was cut after, if known. */
  forkTurn?: number;
  /** Already-sanitised one-line text to show. */
  label: string;
  createdAt?: number;
}

export type LineageRowKind = 'root' | 'fork' | 'spawn' | 'missing-parent' | 'cycle';

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
}

export const LINEAGE_MARKERS: Readonly<Record<LineageRowKind, string>> = {
  root: '●',
  fork: '◆',
  spawn: '◇',
  'missing-parent': '?',
  cycle: '↻',
};

const TEE = '├─ ';
const ELBOW = '└─ ';
const PIPE = '│  ';
const BLANK = '   ';
const FOLD = '⋯  ';
const LANE = 3; // every lane segment above is 3 code units wide

export function lineageMarker(kind: LineageRowKind): string {
  return LINEAGE_MARKERS[kind];
}

const NO_PARENT = -1;
const MISSING = -2;

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
    else if (n.parentAmbiguous) parent[i] = MISSING;
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
  if (n.forkTurn !== undefined) s += ` @turn ${n.forkTurn}`;
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
  synthetic?: { kind: 'missing-parent' | 'cycle'; text: string; members: number[] };
  prefix: string;
  lanes: string;
  depth: number;
}

export function layoutLineage(
  nodes: readonly LineageNodeInput[],
  opts: LineageLayoutOptions = {},
): LineageLayout {
  const maxLanes = Math.max(2, Math.floor(opts.maxLanes ?? 64));
  const { sorted, parent } = resolve(nodes);
  const n = sorted.length;

  const children: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  const missing = new Map<string, number[]>(); // in order of first orphan
  const edges: LineageEdge[] = [];
  const orphans: string[] = [];
  const ambiguous: string[] = [];
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
      (node.parentAmbiguous ? ambiguous : orphans).push(node.key);
      const groupKey = (node.parentAmbiguous ? 'ambiguous parent ' : 'missing parent ') + edge.parent;
      const group = missing.get(groupKey);
      if (group) group.push(i);
      else missing.set(groupKey, [i]);
    }
    if (node.seedLength !== undefined) edge.seedLength = node.seedLength;
    edges.push(edge);
  }

  const cycleIdx = findCycles(parent);
  const inCycle = new Uint8Array(n);
  for (const c of cycleIdx) for (const i of c) inCycle[i] = 1;

  const addLane = (lanes: string, seg: string): string => {
    if (lanes.length < maxLanes * LANE) return lanes + seg;
    return FOLD + lanes.slice(2 * LANE) + seg;
  };

  // Top-level frames, pushed in reverse so they pop in order.
  const top: Frame[] = roots.map((idx) => ({ idx, prefix: '', lanes: '', depth: 0 }));
  for (const [label, members] of missing) {
    top.push({ idx: -1, synthetic: { kind: 'missing-parent', text: sanitizeInline(label), members }, prefix: '', lanes: '', depth: 0 });
  }
  for (const c of cycleIdx) {
    const ids = c.map((i) => sanitizeInline(sorted[i].id));
    const text = `cycle: ${ids.join(' → ')} → ${ids[0]}`;
    top.push({ idx: -1, synthetic: { kind: 'cycle', text, members: c }, prefix: '', lanes: '', depth: 0 });
  }
  const stack: Frame[] = top.reverse();

  const rows: LineageRow[] = [];
  const pushKids = (kids: number[], f: Frame, branch: boolean): void => {
    if (kids.length === 1 && !branch) {
      stack.push({ idx: kids[0], prefix: f.lanes, lanes: f.lanes, depth: f.depth });
      return;
    }
    for (let k = kids.length - 1; k >= 0; k--) {
      const last = k === kids.length - 1;
      stack.push({
        idx: kids[k],
        prefix: f.lanes + (last ? ELBOW : TEE),
        lanes: addLane(f.lanes, last ? BLANK : PIPE),
        depth: f.depth + 1,
      });
    }
  };

  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (f.synthetic) {
      const s = f.synthetic;
      rows.push({ key: null, depth: f.depth, prefix: f.prefix, edgeLabel: '', kind: s.kind, text: s.text });
      pushKids(s.members, f, true);
      continue;
    }
    const node = sorted[f.idx];
    rows.push({
      key: node.key,
      depth: f.depth,
      prefix: f.prefix,
      edgeLabel: edgeLabelOf(node),
      kind: hasParent(node) ? edgeKind(node) : 'root',
      text: node.label,
    });
    const all = children[f.idx];
    const kids = inCycle[f.idx] ? all.filter((c) => !inCycle[c]) : all;
    if (kids.length > 0) pushKids(kids, f, false);
  }

  return { rows, edges, orphans, ambiguous, cycles: cycleIdx.map((c) => c.map((i) => sorted[i].key)) };
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
  'missing-parent': '\x1b[33m', // yellow
  cycle: '\x1b[31m', // red
};
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/**
 * One line per row: `<prefix><marker> <text>  [<edgeLabel>]` (the bracket part
 * only when there is an edge label). Lines are joined with `\n`, no trailing
 * newline. `color` adds ANSI colours: dim lanes and labels, a colour per kind.
 */
export function renderLineageText(layout: LineageLayout, opts: { color?: boolean } = {}): string {
  const color = opts.color === true;
  return layout.rows
    .map((r) => {
      const marker = LINEAGE_MARKERS[r.kind];
      if (!color) return `${r.prefix}${marker} ${r.text}${r.edgeLabel ? `  [${r.edgeLabel}]` : ''}`;
      const prefix = r.prefix ? `${DIM}${r.prefix}${RESET}` : '';
      const label = r.edgeLabel ? `  ${DIM}[${r.edgeLabel}]${RESET}` : '';
      return `${prefix}${SGR[r.kind]}${marker}${RESET} ${r.text}${label}`;
    })
    .join('\n');
}
