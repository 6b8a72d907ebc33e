// One row of the Turns view: a tree node, a part of a tool call, a fork
// boundary marker or a seed divider, its label built when it is first drawn.
// Pure: no Ink, no I/O. Every string from a file is sanitised (turn-row-text).
import type { TurnFacts } from '../../session/turn-index.js';
import { addUsage, emptyUsage, usageText } from '../../session/usage.js';
import { SUBAGENT_TOOLS } from '../../session/subagents.js';
import type { LogFacts } from '../../session/log-facts.js';
import type { HistoryEntry, TreeNode } from '../../session/replay.js';
import * as label from './turn-row-text.js';
import type { SubagentView } from './reads.js';
import type { RowColor, Segment } from './turn-row-text.js';

export type RowKind = 'turn' | 'step' | 'message' | 'tool' | 'chunks' | 'event' | 'boundary' | 'inherited-divider';

export interface TurnRow {
  /** stable across rebuilds and live appends (derived from the node's kind and first seq) */
  key: string;
  depth: number;
  kind: RowKind;
  seq: number;
  /** last seq the row covers (a fork at this row cuts here; both seed dividers: seedLength - 1) */
  lastSeq: number;
  /** the one-line label, sanitised: the segments joined */
  text: string;
  segments: Segment[];
  expandable: boolean;
  expanded: boolean;
  /** the row stands for seed events of a fork child (seq < seedLength) */
  inherited: boolean;
  /** main colour hint of the row */
  color: RowColor;
  /** turn rows: the end reason (`open` for an open turn) */
  reason?: string;
  /** index of the parent row, -1 at the top level */
  parent: number;
  /** the tree node the row shows (not for boundary/divider rows) */
  node?: TreeNode;
  /** tool rows: 'args' / 'result' for the lines of an expanded call */
  part?: 'args' | 'result';
  /** history rows: the entry */
  entry?: HistoryEntry;
}

export interface RowsContext {
  facts: LogFacts;
  /** a turn's usage and the time of its last event (the age of an open turn) */
  turnFacts(n: TurnNode): TurnFacts;
  fork?: { parent: string; seedLength: number };
  /** the clock ages are told from; the owner moves it on (rows relabel by themselves: Row) */
  now: number;
  /** the session's subagent calls linked to their children, as of the owner's latest snapshot (rows relabel by themselves) */
  subagents?: () => SubagentView;
}


export type TurnNode = Extract<TreeNode, { kind: 'turn' }>;

export const nodeKey = (n: TreeNode): string => `${n.kind === 'tool' ? 'x' : n.kind[0]}${n.seq}`;

/**
 * A row whose label is built on first use: flattening 50k events makes cheap
 * objects of one shape, and only the rows Ink shows pay for sanitising. The
 * label is kept as long as its clock stamp holds, so an open turn's age follows
 * `ctx.now` (the world's clock) and only that row is relabelled as it moves.
 */
export class Row implements TurnRow {
  private segs?: Segment[];
  private stamp = '';
  private joined?: { of: Segment[]; text: string };
  constructor(
    readonly key: string,
    readonly depth: number,
    readonly kind: RowKind,
    readonly seq: number,
    readonly lastSeq: number,
    readonly expandable: boolean,
    readonly expanded: boolean,
    readonly inherited: boolean,
    readonly color: RowColor,
    readonly parent: number,
    readonly node: TreeNode | undefined,
    readonly part: 'args' | 'result' | undefined,
    readonly reason: string | undefined,
    private readonly label: Segment[] | ((r: Row) => Segment[]),
    readonly ctx?: RowsContext,
  ) {}
  get segments(): Segment[] {
    const stamp = clockStamp(this);
    if (this.segs === undefined || stamp !== this.stamp) {
      this.stamp = stamp;
      this.segs = typeof this.label === 'function' ? this.label(this) : this.label;
    }
    return this.segs;
  }
  get text(): string {
    const segs = this.segments;
    if (this.joined?.of !== segs) this.joined = { of: segs, text: label.segmentsText(segs) };
    return this.joined.text;
  }
}

/**
 * The part of a row's label that moves without its log changing: an open
 * turn's age as drawn, a subagent call's child and a turn's subagents'
 * usage as the latest snapshot tells them ('' for every other row).
 */
function clockStamp(r: Row): string {
  const n = r.node;
  if (!r.ctx || r.part !== undefined || !n) return '';
  if (n.kind === 'tool') return SUBAGENT_TOOLS.has(n.name) ? label.subagentText(r.ctx.subagents?.().links.get(n.seq)) : '';
  if (n.kind !== 'turn') return '';
  const incl = usageText(r.ctx.subagents?.().byTurn.get(n.seq));
  return n.open ? `${label.ageText(r.ctx.turnFacts(n).time, r.ctx.now)}|${incl}` : incl;
}

export function nodeLabel(r: Row): Segment[] {
  const n = r.node!;
  switch (n.kind) {
    case 'turn': {
      const f = r.ctx?.turnFacts(n);
      const sub = r.ctx?.subagents?.().byTurn.get(n.seq);
      // the turn's tokens with what the children its calls started spent
      return label.turnSegments(n, f?.time, r.ctx?.now ?? Date.now(), f ? usageText(f.usage) : '', sub ? usageText(addUsage(f?.usage ?? emptyUsage(), sub)) : '');
    }
    case 'step':
      return label.stepSegments(n);
    case 'message':
      return label.messageSegments(n);
    case 'tool':
      if (r.part === 'args') return label.toolArgsSegments(n);
      if (r.part === 'result') return label.toolResultSegments(n);
      return SUBAGENT_TOOLS.has(n.name) ? label.subagentCallSegments(n, r.ctx?.subagents?.().links.get(n.seq)) : label.toolSegments(n);
    case 'chunks':
      return label.chunksSegments(n);
    case 'event':
      return label.eventSegments(n);
  }
}

export function nodeColor(n: TreeNode): RowColor {
  switch (n.kind) {
    case 'turn':
      return n.open ? 'yellow' : label.reasonColor(n.reason ?? '?');
    case 'message':
      return label.roleColor(n.role);
    case 'tool':
      return label.resultBadge(n).color;
    case 'chunks':
    case 'event':
      return 'gray';
    default:
      return undefined;
  }
}

export const marker = (text: string, color: RowColor): Segment[] => [{ text, color, bold: true }];

