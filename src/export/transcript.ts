// A session (up to a seq) as a readable transcript: the model every export
// format renders, made a turn at a time as the session reads its log
// (Session.eventBatches: the only I/O). Text here is raw (as in the log);
// each format escapes it for itself.
import { isBoundary } from '../session/log-facts.js';
import { textOf } from '../session/json-safe.js';
import type { TreeNode } from '../session/replay.js';
import { topNodes, type TurnWhole } from '../session/turn-pieces.js';
import { indexSessions, parentOf, type SessionIndex } from '../session/compare.js';
import type { Session } from '../session/session.js';
import { ChangesFold, type Changes } from '../session/changes.js';
import { spanMs, type SessionEvent } from '../session/events.js';
import { emptyUsage, foldSessionUsage, usageOf, withSplit, type SessionUsage, type TokenUsage } from '../session/usage.js';
import { TurnTimesFold, type TurnTimes } from './turn-times.js';

export interface LineageStep {
  id: string;
  /** missing: no session has the parent id; ambiguous: several do and none can be told apart */
  kind: 'root' | 'fork' | 'spawn' | 'missing' | 'ambiguous';
  seedLength?: number;
}

export type Item =
  | { kind: 'step'; seq: number; step: number }
  | { kind: 'message'; seq: number; role: string; text: string; reasoning?: string }
  | { kind: 'tool'; seq: number; name: string; arguments: string; result?: { seq: number; isError: boolean; text: string } }
  | { kind: 'stream'; seq: number; count: number }
  | { kind: 'event'; seq: number; type: string; summary: string };

export type TurnBlock = { kind: 'turn'; turn: number; seq: number; lastSeq: number; open: boolean; reason?: string; detail?: string; ms: number; usage: TokenUsage; boundary: boolean; items: Iterable<Item> };

export type Block =
  | TurnBlock
  | { kind: 'seed-end'; seq: number; parent?: string }
  | { kind: 'between'; item: Item };

export interface Transcript {
  id: string;
  file?: string;
  createdAt: number;
  cwd?: string;
  /** root first, this session last */
  lineage: LineageStep[];
  /** events exported: seqs 0..upTo inclusive */
  upTo: number;
  events: number;
  usage: SessionUsage;
  blocks: Block[];
  /** what the events exported did to the code */
  changes: Changes;
}

export type Sessions = readonly Session[] | SessionIndex;
const asIndex = (sessions: Sessions): SessionIndex => (Array.isArray(sessions) ? indexSessions(sessions) : (sessions as SessionIndex));

/** Ancestors by parentSession (forks and spawns, resolved as the lineage graph does), root first, ending with `s`. */
export function lineageChain(s: Session, sessions: Sessions): LineageStep[] {
  const index = asIndex(sessions);
  const chain: LineageStep[] = [];
  const seen = new Set<Session>();
  let cur: Session | undefined = s;
  while (cur && !seen.has(cur)) {
    seen.add(cur);
    chain.unshift({ id: cur.id, kind: cur.kind, ...(cur.seedLength !== undefined ? { seedLength: cur.seedLength } : {}) });
    const pid: string | undefined = cur.parentSession;
    if (pid === undefined) break;
    const p = parentOf(cur, index);
    if (!p) chain.unshift({ id: pid, kind: (index.byId.get(pid) ?? []).length ? 'ambiguous' : 'missing' });
    cur = p;
  }
  return chain;
}

function items(nodes: Iterable<TreeNode>, out: Item[]): void {
  for (const n of nodes) {
    switch (n.kind) {
      case 'step':
        out.push({ kind: 'step', seq: n.seq, step: n.step });
        items(n.children, out);
        break;
      case 'turn':
        items(n.children, out);
        break;
      case 'message':
        out.push({ kind: 'message', seq: n.seq, role: n.role, text: n.text, ...(n.reasoning ? { reasoning: n.reasoning } : {}) });
        break;
      case 'tool':
        out.push({ kind: 'tool', seq: n.seq, name: n.name, arguments: n.arguments, ...(n.result ? { result: n.result } : {}) });
        break;
      case 'chunks':
        out.push({ kind: 'stream', seq: n.seq, count: n.count });
        break;
      case 'event':
        out.push({ kind: 'event', seq: n.seq, type: n.type, summary: n.summary });
        break;
    }
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a turn/end reason says besides its kind: an error's message and code (both eras), an abort's cause. */
export function reasonDetail(r: unknown): string | undefined {
  if (!isObj(r)) return undefined;
  const err = isObj(r.error) ? r.error : r;
  const parts: string[] = [];
  if (err.message !== undefined) parts.push(textOf(err.message));
  if (err.code !== undefined) parts.push(`(${textOf(err.code)})`);
  if (!parts.length && r.reason !== undefined) parts.push(isObj(r.reason) && typeof r.reason.kind === 'string' ? r.reason.kind : textOf(r.reason));
  const s = parts.join(' ').slice(0, 500);
  return s || undefined;
}

/** A transcript's blocks, one at a time (streamTranscript). */
export interface TranscriptStream {
  head: Omit<Transcript, 'blocks' | 'changes'>;
  blocks: Iterable<Block>;
  /** what the events exported did to the code (src/session/changes.ts): whole once the blocks are read */
  changes(): Changes;
  /** a turn's timeline, tokens and duration, once its items are read; each turn's once (then dropped) */
  turnTimes(b: TurnBlock): TurnTimes | undefined;
}

/** The transcript of `s` up to seq `upTo` inclusive (default: the whole log), its turns' items in arrays. */
export function buildTranscript(s: Session, sessions: Sessions, upTo?: number): Transcript {
  const t = streamTranscript(s, sessions, upTo);
  const blocks: Block[] = [];
  for (const b of t.blocks) blocks.push(b.kind === 'turn' ? { ...b, items: [...b.items] } : b);
  return { ...t.head, blocks, changes: t.changes() };
}

/** How the events of a transcript are read: the default reads the log here; an export in the app's slices reads it itself. */
export interface TranscriptRead {
  /** the usage of the events exported, folded by the caller (foldPrefixUsage) when they are not the whole log */
  usage?: SessionUsage;
  /** the log's first `count` events in batches (default: Session.eventBatches) */
  batches?: (count: number) => Iterable<readonly SessionEvent[]>;
}

/** How many events a transcript up to `upTo` (inclusive; default all) holds. */
export const transcriptCount = (s: Session, upTo?: number): number => (upTo === undefined ? s.length : Math.min(upTo, s.length - 1) + 1);

/** The usage of a transcript that stops early: its events folded batch by batch (`u` from emptyUsage; withSplit when done). */
export function foldPrefixUsage(u: SessionUsage, batch: readonly SessionEvent[], seedLength: number | undefined): void {
  for (const e of batch) foldSessionUsage(u, e, seedLength);
}

/**
 * buildTranscript as a head and its blocks made one turn at a time from the
 * log read in batches (Session.eventBatches): a 10 GB session exports in the
 * memory of its largest turn. The whole log's usage is its facts' (folded as
 * it was read); a transcript that stops early reads its events once more for
 * it, unless `read.usage` brings it.
 */
export function streamTranscript(s: Session, sessions: Sessions, upTo?: number, read: TranscriptRead = {}): TranscriptStream {
  const count = transcriptCount(s, upTo);
  const last = count - 1;
  const seedLength = s.seedLength;
  const batches = read.batches ?? ((n: number) => s.eventBatches(n));
  let usage: SessionUsage;
  if (count === s.length) usage = withSplit(s.facts.usage, seedLength);
  else if (read.usage) usage = read.usage;
  else {
    const u = emptyUsage() as SessionUsage;
    for (const b of batches(count)) foldPrefixUsage(u, b, seedLength);
    usage = withSplit(u, seedLength);
  }
  const head: Omit<Transcript, 'blocks' | 'changes'> = {
    id: s.id,
    ...(s.file !== undefined ? { file: s.file } : {}),
    createdAt: s.header.createdAt,
    ...(s.cwd !== undefined ? { cwd: s.cwd } : {}),
    lineage: lineageChain(s, sessions),
    upTo: last,
    events: Math.max(0, count),
    usage,
  };
  // the changes and the turns' times are folded from the very batches the blocks read: one read of the log
  const fold = new ChangesFold({ cwd: s.cwd, inheritedBefore: s.kind === 'fork' ? seedLength : undefined });
  const times = new TurnTimesFold();
  let folded = -1;
  const tee = function* (n: number): Generator<readonly SessionEvent[]> {
    for (const b of batches(n)) {
      for (const e of b)
        if (e.seq > folded) {
          folded = e.seq;
          fold.add(e);
          times.add(e);
        }
      yield b;
    }
  };
  return { head, blocks: transcriptBlocks(s, count, tee), changes: () => fold.result(), turnTimes: (b) => times.take(b) };
}

/** A turn's items, made as they are iterated (a turn in pieces: as its pieces are read). */
function* itemsOf(children: Iterable<TreeNode>): Generator<Item> {
  const out: Item[] = [];
  for (const c of children) {
    items([c], out);
    yield* out;
    out.length = 0;
  }
}

function* transcriptBlocks(s: Session, count: number, batches: (count: number) => Iterable<readonly SessionEvent[]>): Generator<Block> {
  const seedLength = s.seedLength;
  let seedMarked = seedLength === undefined || seedLength === 0 || seedLength > count;
  function* markSeed(beforeSeq: number): Generator<Block> {
    if (!seedMarked && beforeSeq >= seedLength!) {
      seedMarked = true;
      yield { kind: 'seed-end', seq: seedLength!, ...(s.parentSession !== undefined ? { parent: s.parentSession } : {}) };
    }
  }
  // (a turn in pieces is summed up by a second read: the log's own, not counted as the export's progress)
  for (const top of topNodes(() => batches(count), () => s.eventBatches(count))) {
    if ('turn' in top) {
      yield* markSeed(top.turn.seq);
      yield turnBlock(s, top.turn, top.whole, itemsOf(top.children));
      continue;
    }
    const { node: n, seg } = top;
    yield* markSeed(n.seq);
    if (n.kind === 'turn') {
      const its: Item[] = [];
      items(n.children, its);
      // a turn starts its segment: its events are the segment's first ones, up to its last seq
      const evs = seg.events;
      let k = 0;
      while (k + 1 < evs.length && evs[k + 1].seq <= n.lastSeq) k++;
      yield turnBlock(s, n, { ...n, ms: spanMs(evs[0], evs[k]), usage: usageOf(evs, 0, k + 1) }, its);
    } else {
      const its: Item[] = [];
      items([n], its);
      for (const it of its) yield { kind: 'between', item: it };
    }
  }
  if (!seedMarked && seedLength !== undefined && seedLength === count) yield* markSeed(seedLength);
}

/** A turn's block: its node's number and start, what it is whole (its end, time, usage), its items. */
function turnBlock(s: Session, n: { turn: number; seq: number }, w: TurnWhole, items: Iterable<Item>): TurnBlock {
  return {
    kind: 'turn',
    turn: n.turn,
    seq: n.seq,
    lastSeq: w.lastSeq,
    open: w.open,
    ...(w.reason !== undefined ? { reason: w.reason } : {}),
    ...(reasonDetail(w.reasonData) !== undefined ? { detail: reasonDetail(w.reasonData) } : {}),
    ms: w.ms,
    usage: w.usage,
    boundary: !w.open && isBoundary(s.facts, w.lastSeq),
    items,
  };
}

/** "root → child (fork @44) → this (fork @57)" — raw ids; escape per format. */
export function lineageParts(chain: readonly LineageStep[]): Array<{ id: string; note: string }> {
  return chain.map((c) => ({
    id: c.id,
    note: c.kind === 'missing' || c.kind === 'ambiguous' ? c.kind : c.kind === 'fork' ? `fork @${c.seedLength}` : c.kind === 'spawn' ? 'spawned' : '',
  }));
}
