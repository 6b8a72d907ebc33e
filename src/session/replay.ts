// Replay: the turn tree (turn -> steps -> messages, tool calls with their
// results, other events in place) and the model history (docs/formats.md,
// "Replay and invariants").
import { callEffect, editCounts, EDIT_TOOLS } from './call-effect.js';
import { advertisedCalls, callIdOf, syntheticResult, type Advertised, type Synthetic } from './harness-closers.js';
import { contentText, endReason, isHumanPrompt, isSurfaceType, messageOf, type SessionEvent } from './events.js';
// Event data is hostile input: JSON.stringify, String() and `${}` recurse and
// overflow the stack on values nested ~10,000+ deep (a file can hold 100,000).
// Every data value becomes text through textOf / safeStringify, which never do.
import { safeStringify, textOf } from './json-safe.js';

export interface ToolResultInfo {
  seq: number;
  isError: boolean;
  text: string;
  /** a result the harness wrote itself when it forked or repaired the turn (harness-closers.ts) */
  harness?: Synthetic;
}

export type TreeNode =
  | { kind: 'turn'; seq: number; lastSeq: number; turn: number; open: boolean; reason?: string; reasonData?: unknown; prompt?: string; children: TreeNode[]; childCount?: number; allRows?: number }
  | { kind: 'step'; seq: number; lastSeq: number; turn: number; step: number; open: boolean; children: TreeNode[]; childCount?: number; tools?: ToolCounts; allRows?: number }
  | { kind: 'message'; seq: number; lastSeq: number; role: string; type: string; text: string; reasoning?: string }
  | { kind: 'tool'; seq: number; lastSeq: number; callId: string; name: string; arguments: string; result?: ToolResultInfo; change?: { added: number; removed: number } }
  | { kind: 'chunks'; seq: number; lastSeq: number; count: number }
  | { kind: 'event'; seq: number; lastSeq: number; type: string; summary: string };

export type ParentNode = Extract<TreeNode, { children: TreeNode[] }>;

/**
 * The rows a node takes in the Turns view with every node expanded: one
 * each, and under a tool call its arguments and its result. An indexed turn
 * or step keeps it (allRows), so expanding all counts its rows without
 * reading its children (turn-rows.ts).
 */
export function openRowCount(n: TreeNode): number {
  if (n.kind === 'tool') return n.result ? 3 : 2;
  if (n.kind !== 'turn' && n.kind !== 'step') return 1;
  if (n.allRows !== undefined) return n.allRows;
  let sum = 1;
  for (const c of n.children) sum += openRowCount(c);
  return sum;
}

/** An indexed step's tool children and how many have their result: its rows counted without reading its children (turn-rows.ts). */
export interface ToolCounts {
  calls: number;
  results: number;
}

/**
 * How many children a node has without reading them: an indexed turn or step
 * (turn-index.ts) knows its count and reads its children from disk only when
 * they are asked for.
 */
export const childCount = (n: ParentNode): number => n.childCount ?? n.children.length;

const MESSAGE_TYPES: Record<string, string> = {
  'user/message': 'user',
  'assistant/message': 'assistant',
  'context/message': 'context',
  'steering/message': 'steering',
  'system/message': 'system',
};

export function toolResultText(e: SessionEvent): { text: string; isError: boolean } {
  const d = e.data ?? {};
  const msg = messageOf(e);
  const blocks: unknown[] = Array.isArray(d.content) ? d.content : Array.isArray(msg.content) ? (msg.content as unknown[]) : [];
  let text = '';
  // the flag sits in the result block up to v3, on the message (role tool) in v4
  let isError = d.isError === true || (msg as { isError?: unknown }).isError === true;
  for (const b of blocks as Array<Record<string, unknown>>) {
    if (b?.type === 'tool-result') {
      text += contentText(b.content);
      if (b.isError === true) isError = true;
    } else if (b?.type === 'text' && typeof b.text === 'string') text += b.text;
  }
  if (!text && d.error !== undefined) text = textOf(d.error);
  return { text, isError };
}

/** Longest summary: a quiet row shows ~50 columns of it. */
const SUMMARY_MAX = 240;

/**
 * A one-line description of any event, for quiet rows. Bounded in length:
 * a summary of raw data could otherwise be megabytes (deep or huge data),
 * and display-width measuring of long non-ASCII text is slow (quadratic in
 * Node 20's Intl.Segmenter).
 */
export function summarizeEvent(e: SessionEvent): string {
  const s = summarizeUnbounded(e);
  if (s.length <= SUMMARY_MAX) return s;
  const cut = /[\uD800-\uDBFF]/.test(s[SUMMARY_MAX - 2]) ? SUMMARY_MAX - 2 : SUMMARY_MAX - 1; // never split a surrogate pair
  return s.slice(0, cut) + '…';
}

function summarizeUnbounded(e: SessionEvent): string {
  const d = e.data;
  if (d === null || typeof d !== 'object') return d === undefined ? '' : safeStringify(d);
  if (e.type === 'prompt/blocked') return `${contentText(d.content)} — ${typeof d.reason === 'string' ? d.reason : safeStringify(d.reason ?? '')}`;
  if (e.type === 'todo/write' && Array.isArray(d.todos)) return `${d.todos.length} todo(s): ` + d.todos.map((t: any) => `[${textOf(t?.status ?? ' ')}] ${textOf(t?.content ?? t?.title ?? '')}`).join('; ');
  if (e.type === 'session/title') return textOf(d.title ?? '');
  const keys = Object.keys(d).filter((k) => k !== 'turn' && k !== 'step');
  const parts: string[] = [];
  for (const k of keys.slice(0, 4)) {
    const v = d[k];
    const s = typeof v === 'string' ? v : v === undefined ? '' : safeStringify(v);
    parts.push(`${k}=${s.length > 60 ? s.slice(0, 57) + '…' : s}`);
  }
  return parts.join(' ');
}

// the call id the tree pairs results by (one owner: harness-closers.ts)
export { callIdOf } from './harness-closers.js';

/**
 * Builds the turn tree. Iterative, O(n); every event lands in exactly one node.
 * `within`: the events start inside turn `within`, at a step/start (a piece of
 * a huge turn, turn-index.ts): the first node is then that turn's rest (its
 * children from there, how it ended), with the first event's seq.
 */
export function buildTurnTree(events: readonly SessionEvent[], within?: number): TreeNode[] {
  const top: TreeNode[] = [];
  let turn: Extract<TreeNode, { kind: 'turn' }> | undefined;
  if (within !== undefined) {
    const seq = events.length ? events[0].seq : 0;
    turn = { kind: 'turn', seq, lastSeq: seq, turn: within, open: true, children: [] };
    top.push(turn);
  }
  let step: Extract<TreeNode, { kind: 'step' }> | undefined;
  let chunks: Extract<TreeNode, { kind: 'chunks' }> | undefined;
  const calls = new Map<string, Extract<TreeNode, { kind: 'tool' }>>();
  // calls an assistant message of the open step advertises: a result may settle one never started
  // (the harness's TOOL_NOT_STARTED results). Kept within a step, as the harness settles them, so no
  // state but a started call's crosses a step/start (turn-pieces.ts cuts there).
  const advertised = new Map<string, Advertised>();
  const container = (): TreeNode[] => (step ? step.children : turn ? turn.children : top);
  const grow = (seq: number) => {
    if (step) step.lastSeq = seq;
    if (turn) turn.lastSeq = seq;
  };

  for (const e of events) {
    const d = e.data ?? {};
    if (e.type !== 'assistant/chunk') chunks = undefined;
    switch (e.type) {
      case 'turn/start': {
        // A result pairs with a call of its own turn (or of the stretch between turns
        // it follows): no state crosses a turn/start, so the tree of a log is the
        // trees of its turns side by side, and one turn read alone (pieceTrees,
        // a huge log read by byte range) gives the same nodes as the whole log.
        calls.clear();
        advertised.clear();
        turn = { kind: 'turn', seq: e.seq, lastSeq: e.seq, turn: typeof d.turn === 'number' ? d.turn : 0, open: true, children: [] };
        step = undefined;
        top.push(turn);
        continue;
      }
      case 'turn/end': {
        if (!turn) {
          top.push({ kind: 'event', seq: e.seq, lastSeq: e.seq, type: e.type, summary: `turn ${textOf(d.turn)} ended (${endReason(e)}) without a start` });
          continue;
        }
        if (step) step.open = false;
        turn.open = false;
        turn.reason = endReason(e);
        turn.reasonData = d.reason;
        turn.lastSeq = e.seq;
        turn = undefined;
        step = undefined;
        continue;
      }
      case 'step/start': {
        const s: Extract<TreeNode, { kind: 'step' }> = { kind: 'step', seq: e.seq, lastSeq: e.seq, turn: typeof d.turn === 'number' ? d.turn : 0, step: typeof d.step === 'number' ? d.step : 0, open: true, children: [] };
        (turn ? turn.children : top).push(s);
        step = s;
        advertised.clear();
        grow(e.seq);
        continue;
      }
      case 'step/end':
        if (step) {
          step.open = false;
          step.lastSeq = e.seq;
          step = undefined;
        }
        if (turn) turn.lastSeq = e.seq;
        continue;
      case 'assistant/chunk':
        if (chunks) {
          chunks.count++;
          chunks.lastSeq = e.seq;
        } else {
          chunks = { kind: 'chunks', seq: e.seq, lastSeq: e.seq, count: 1 };
          container().push(chunks);
        }
        grow(e.seq);
        continue;
      case 'tool/call': {
        const node: Extract<TreeNode, { kind: 'tool' }> = {
          kind: 'tool',
          seq: e.seq,
          lastSeq: e.seq,
          callId: callIdOf(e),
          name: textOf(d.name ?? '?'),
          arguments: textOf(d.arguments ?? null),
        };
        calls.set(node.callId, node);
        container().push(node);
        grow(e.seq);
        continue;
      }
      case 'tool/result': {
        const callId = callIdOf(e);
        const call = calls.get(callId);
        const harness = syntheticResult(e, callId);
        const result: ToolResultInfo = { seq: e.seq, ...toolResultText(e), ...(harness ? { harness } : {}) };
        const ad = call ? undefined : advertised.get(callId);
        if (call && !call.result) {
          call.result = result;
          call.lastSeq = e.seq;
          // a write or edit that did not fail: the lines it changed (changes.ts owns the count)
          if (!result.isError && EDIT_TOOLS.has(call.name)) call.change = editCounts(callEffect(call.name, call.arguments, { isError: false, text: '', meta: d.meta }));
        } else if (ad) {
          // a call advertised and never started, settled (by the harness's TOOL_NOT_STARTED result)
          advertised.delete(callId);
          container().push({ kind: 'tool', seq: e.seq, lastSeq: e.seq, callId, name: textOf(ad.name), arguments: ad.arguments, result });
        } else container().push({ kind: 'tool', seq: e.seq, lastSeq: e.seq, callId, name: '(result without call)', arguments: '', result });
        grow(e.seq);
        continue;
      }
    }
    // a user message the harness added (runtime context, skill catalog, ...) is context, not the person's prompt
    if (e.type === 'assistant/message' && step) for (const a of advertisedCalls(e)) advertised.set(a.id, a);
    const role = e.type === 'user/message' && !isHumanPrompt(e) ? 'context' : MESSAGE_TYPES[e.type];
    if (role) {
      const msg = messageOf(e);
      const text = contentText(msg.content);
      const reasoning = contentText(msg.content, ['reasoning']);
      const node: TreeNode = { kind: 'message', seq: e.seq, lastSeq: e.seq, role, type: e.type, text };
      if (reasoning) node.reasoning = reasoning;
      if (role === 'user' && turn && turn.prompt === undefined) turn.prompt = text;
      container().push(node);
    } else container().push({ kind: 'event', seq: e.seq, lastSeq: e.seq, type: e.type, summary: summarizeEvent(e) });
    grow(e.seq);
  }
  return top;
}

export interface HistoryEntry {
  seq: number;
  role: string;
  text: string;
  /** tool calls an assistant message makes, tool-result call ids */
  toolCalls?: string[];
  /** the text (and calls) were cut (a large log's history: modelHistoryOf); the event has them whole */
  clipped?: true;
}

/**
 * The transcript the model sees after events [0, upTo] (inclusive; default
 * all): surface events in order, `replace` ops applied, empty assistant
 * messages skipped.
 */
export function modelHistory(events: readonly SessionEvent[], upTo = events.length - 1): HistoryEntry[] {
  let out: HistoryEntry[] = [];
  for (let i = 0; i <= upTo && i < events.length; i++) out = addToHistory(out, events[i]);
  return out;
}

/**
 * modelHistory over a log read in batches, up to the event with seq `upToSeq`,
 * each entry's text cut to `textMax` (`clipped` set): a large log's history
 * holds a line per entry, not its events (the detail pane reads the event again).
 */
export function modelHistoryOf(batches: Iterable<readonly SessionEvent[]>, upToSeq: number, textMax: number): HistoryEntry[] {
  const fold = new HistoryFold(upToSeq, textMax);
  for (const batch of batches) if (fold.add(batch)) break;
  return fold.entries;
}

/** modelHistoryOf a batch at a time (a large log's history is read in the app's slices). */
export class HistoryFold {
  entries: HistoryEntry[] = [];
  /** events folded */
  seen = 0;
  /** seqs of the entries dropped from the front to keep `keep` (a later replace op may remove some of them too) */
  private dropped = new Int32Array(0);
  private droppedCount = 0;
  constructor(
    readonly upToSeq: number,
    private readonly textMax: number,
    /** at most this many entries are kept, the latest (a 10 GB log's history has millions; `t` on an earlier row shows the history there) */
    private readonly keep = Infinity,
  ) {}

  /** Folds a batch in; true once past `upToSeq` (the rest is not needed). */
  add(batch: readonly SessionEvent[]): boolean {
    for (const e of batch) {
      if (e.seq > this.upToSeq) return true;
      this.seen++;
      const op = e.surfaceOp;
      if (this.droppedCount > 0 && op && typeof op === 'object' && op.op === 'replace' && typeof op.start === 'number' && typeof op.end === 'number' && this.undrop(op.start, op.end)) {
        // it covers dropped entries: its own takes the place of the first of them, among the dropped
        const { start, end } = op as { start: number; end: number };
        this.entries = this.entries.filter((h) => h.seq < start || h.seq > end);
        if (historyEntryOf(e)) this.dropSeq(e.seq);
        continue;
      }
      this.entries = addToHistory(this.entries, e, this.textMax);
      // dropped in bulk (at twice the bound: a drop a batch would cost the bound each time); finish() trims to it
      if (this.entries.length > 2 * this.keep) this.trim();
    }
    return false;
  }

  /** The fold is complete: at most `keep` entries from here on. */
  finish(): void {
    if (this.entries.length > this.keep) this.trim();
  }

  /** How many earlier entries are not kept (0 when none were dropped). */
  get hidden(): number {
    return this.droppedCount;
  }

  private trim(): void {
    const cut = this.entries.length - this.keep;
    for (let i = 0; i < cut; i++) this.dropSeq(this.entries[i].seq);
    this.entries = this.entries.slice(cut);
  }

  private dropSeq(seq: number): void {
    if (this.dropped.length === this.droppedCount) {
      // (doubled: a trim of many entries grows it a few times, not once per seq)
      const grown = new Int32Array(Math.max(1024, 2 * this.droppedCount));
      grown.set(this.dropped);
      this.dropped = grown;
    }
    this.dropped[this.droppedCount++] = seq;
  }

  /** A replace op removes the dropped entries it covers: whether there were any. */
  private undrop(start: number, end: number): boolean {
    let n = 0;
    for (let i = 0; i < this.droppedCount; i++) {
      const seq = this.dropped[i];
      if (seq < start || seq > end) this.dropped[n++] = seq;
    }
    const any = n < this.droppedCount;
    this.droppedCount = n;
    return any;
  }
}

/** The history entry an event makes (undefined: none: not a surface event, or an empty assistant message). */
export function historyEntryOf(e: SessionEvent): HistoryEntry | undefined {
  if (!isSurfaceType(e.type)) return undefined;
  if (e.type === 'tool/result') return { seq: e.seq, role: 'tool', text: toolResultText(e).text };
  const msg = messageOf(e);
  const blocks = Array.isArray(msg.content) ? (msg.content as Array<Record<string, unknown>>) : [];
  const toolCalls = blocks.filter((b) => b?.type === 'tool-call').map((b) => `${textOf(b.name)}(${textOf(b.arguments ?? '')})`);
  const entry: HistoryEntry = { seq: e.seq, role: MESSAGE_TYPES[e.type] ?? e.type, text: contentText(msg.content, ['text']) };
  if (toolCalls.length) entry.toolCalls = toolCalls;
  if (e.type === 'assistant/message' && !entry.text && !toolCalls.length && !contentText(msg.content, ['reasoning'])) return undefined;
  return entry;
}

/** `out` with `e`'s entry placed (a `replace` op swaps the entries it covers); `out` itself when it makes none. */
function addToHistory(out: HistoryEntry[], e: SessionEvent, textMax = Infinity): HistoryEntry[] {
  const entry = historyEntryOf(e);
  if (!entry) return out;
  if (entry.text.length > textMax) {
    entry.text = detachedHead(entry.text, textMax);
    entry.clipped = true;
  }
  if (entry.toolCalls && textMax !== Infinity) entry.toolCalls = entry.toolCalls.map((c) => (c.length > textMax ? detachedHead(c, textMax) : c));
  const op = e.surfaceOp;
  if (op && typeof op === 'object' && op.op === 'replace' && typeof op.start === 'number' && typeof op.end === 'number') {
    const { start, end } = op as { start: number; end: number };
    const at = out.findIndex((h) => h.seq >= start && h.seq <= end);
    const kept = out.filter((h) => h.seq < start || h.seq > end);
    const pos = at < 0 ? kept.length : kept.filter((h) => h.seq < start).length;
    kept.splice(pos, 0, entry);
    return kept;
  }
  out.push(entry);
  return out;
}

/**
 * The first `n` UTF-16 units of `s` (never half a surrogate pair) as a string
 * of its own: V8's slice keeps the whole parent alive (a 200-character head of
 * each 60 KB tool result held them all: a 1 GB log's history took 1.1 GB).
 */
function detachedHead(s: string, n: number): string {
  const head = s.slice(0, /[\uD800-\uDBFF]/.test(s[n - 1]) ? n - 1 : n);
  return Buffer.from(head, 'utf8').toString('utf8');
}
