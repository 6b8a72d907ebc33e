// The offset index: the Turns rows built from it, with each turn's
// events read again from disk by byte range (through a cache small enough to
// drop them all the time), equal the rows built from the whole log in memory,
// for random logs and random expand/collapse/search sequences, and again after
// a live append, a truncate and a replace. Damaged lines (malformed, a
// repeated seq, a blank line) sit anywhere, so a re-read must skip exactly
// the lines the first read did.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../src/session/events.js';
import { buildTurnTree, type TreeNode } from '../../../src/session/replay.js';
import type { Session } from '../../../src/session/session.js';
import { SessionStore } from '../../../src/session/store.js';
import { SegmentCache } from '../../../src/session/turn-index.js';
import { setPieceBytes } from '../../../src/session/turn-pieces.js';
import { eventAtSeq } from '../../../src/session/turn-summary.js';
import { parseQuery, type Query } from '../../../src/session/query.js';
import { indexStep, turnIndexOf } from '../../../src/storage/indexed-turns.js';
import { LogReader } from '../../../src/storage/log-reader.js';
import { feedAppended } from '../../../src/storage/follow.js';
import { openSessionFile } from '../../../src/storage/session-file.js';
import { feedAppendedZstd } from '../../../src/storage/zstd-log.js';
import { encodeStoredFrame } from '../../../src/storage/zstd-frames.js';
import { setSeekStep } from '../../../src/storage/zstd-seek.js';
import { buildTurnRows, indexedContext, nodeKey, rowIndexForSeq, rowsContext, setWideChildren, type Expansion, type TurnRow } from '../../../src/view/turns/turn-rows.js';
import { isBoundary, type LogFacts } from '../../../src/session/log-facts.js';
import { openToSeq } from '../../../src/view/turns/turn-search.js';
import { matchingSeqs, turnMatches } from '../../../src/session/turn-matches.js';
import { detailLines } from '../../../src/view/turns/turn-detail.js';
import { cleanupTmp, hdr, tmpDir } from '../../support/fixtures.js';
import { PROPERTY_TIMEOUT, runs } from '../../support/property.js';

const TYPES = ['turn/start', 'turn/end', 'step/start', 'step/end', 'assistant/chunk', 'tool/call', 'tool/result', 'user/message', 'assistant/message', 'session/title'] as const;
const DAMAGE = ['none', 'none', 'none', 'malformed', 'repeat', 'blank'] as const;

interface Line {
  type: (typeof TYPES)[number];
  call: number;
  damage: (typeof DAMAGE)[number];
}

const linesArb = fc.array(fc.record({ type: fc.constantFrom(...TYPES), call: fc.integer({ min: 0, max: 3 }), damage: fc.constantFrom(...DAMAGE) }), { maxLength: 60 });

function event(r: Line, seq: number): SessionEvent {
  const data =
    r.type === 'tool/call' || r.type === 'tool/result'
      ? { callId: `c${r.call}`, name: 'bash', arguments: '{"command":"ls"}', content: [{ type: 'tool-result', content: `out ${seq}` }] }
      : r.type === 'user/message' || r.type === 'assistant/message'
        ? { content: [{ type: 'text', text: `m${seq} needle${r.call}` }], source: { kind: 'user' }, usage: { inputTokens: seq, outputTokens: 2 } }
        : r.type === 'assistant/chunk'
          ? { chunk: { type: 'text-delta', text: `c${seq}` } }
          : { turn: r.call + 1, reason: { kind: r.call === 0 ? 'cancelled' : 'completed' } };
  return { type: r.type, seq, time: 1_700_000_000_000 + seq * 1000, data };
}

/** The log's text from `seq` on: each line an event, some followed by a damaged line. */
function linesText(lines: readonly Line[], from = 0): string {
  let out = '';
  lines.forEach((r, i) => {
    const seq = from + i;
    out += JSON.stringify(event(r, seq)) + '\n';
    if (r.damage === 'malformed') out += '{"type":"user/mess\n';
    else if (r.damage === 'repeat') out += JSON.stringify(event(r, seq)) + '\n';
    else if (r.damage === 'blank') out += '\n';
  });
  return out;
}

const dir = tmpDir('indexed-turns-');
afterAll(cleanupTmp);
let n = 0;

/** The row as the screen and the keys see it. */
const shown = (r: TurnRow) => ({ key: r.key, depth: r.depth, kind: r.kind, seq: r.seq, lastSeq: r.lastSeq, text: r.text, expandable: r.expandable, expanded: r.expanded, parent: r.parent, inherited: r.inherited, color: r.color, reason: r.reason });

const shape = (r: TurnRow) => ({ key: r.key, depth: r.depth, kind: r.kind, seq: r.seq, lastSeq: r.lastSeq, expanded: r.expanded, parent: r.parent });

/** The visible rows of a tree flattened whole, in one walk (what TurnRows builds a block at a time); no fork dividers. */
function flattened(tree: readonly TreeNode[], e: Expansion, facts: LogFacts): ReturnType<typeof shape>[] {
  const out: ReturnType<typeof shape>[] = [];
  const last = tree.at(-1);
  const has = (n: TreeNode) => (n.kind === 'turn' || n.kind === 'step' ? n.children.length > 0 : n.kind === 'tool');
  const open = (n: TreeNode) => has(n) && (e.mode === 'auto' ? (n.kind === 'turn' ? n === last && n.open : n.kind === 'step') : e.mode === 'all') !== e.toggled.has(nodeKey(n));
  const visit = (n: TreeNode, depth: number, parent: number) => {
    const key = nodeKey(n);
    const at = out.push({ key, depth, kind: n.kind, seq: n.seq, lastSeq: n.lastSeq, expanded: open(n), parent }) - 1;
    if (!open(n)) return;
    if (n.kind === 'turn' || n.kind === 'step') n.children.forEach((c) => visit(c, depth + 1, at));
    else if (n.kind === 'tool') {
      out.push({ key: `${key}a`, depth: depth + 1, kind: 'tool', seq: n.seq, lastSeq: n.seq, expanded: false, parent: at });
      if (n.result) out.push({ key: `${key}r`, depth: depth + 1, kind: 'tool', seq: n.result.seq, lastSeq: n.result.seq, expanded: false, parent: at });
    }
  };
  tree.forEach((n, i) => {
    visit(n, 0, -1);
    const next = tree[i + 1];
    if (isBoundary(facts, n.lastSeq) && !(n.kind !== 'turn' && next && next.kind !== 'turn' && isBoundary(facts, next.lastSeq)))
      out.push({ key: `b${n.lastSeq}`, depth: 0, kind: 'boundary', seq: n.lastSeq, lastSeq: n.lastSeq, expanded: false, parent: -1 });
  });
  return out;
}

/**
 * The row for `seq` found in the whole list: of the rows of the top-level
 * node it falls in (when the nodes are in seq order), its boundary marker,
 * else the deepest row covering it, else the last row before it. Why the
 * node's rows: a tool call answered after its turn ended covers the events
 * between, which are another node's.
 */
function rowForSeq(rows: readonly TurnRow[], tree: readonly TreeNode[], seq: number): number {
  const ordered = tree.every((n, i) => n.lastSeq >= n.seq && (i === 0 || n.seq > tree[i - 1].lastSeq));
  let from = 0;
  let to = rows.length;
  if (ordered) {
    const tops = rows.flatMap((r, i) => (r.parent === -1 && r.kind !== 'boundary' && r.kind !== 'inherited-divider' ? [i] : []));
    const b = tops.findLastIndex((i) => rows[i].seq <= seq);
    if (b < 0) return rows.length ? 0 : -1;
    from = tops[b];
    to = tops[b + 1] ?? rows.length;
  }
  const block = rows.slice(from, to);
  const marker = block.findIndex((r) => r.kind === 'boundary' && r.seq === seq);
  if (marker >= 0) return from + marker;
  let best = -1;
  block.forEach((r, i) => {
    if (r.kind !== 'boundary' && r.kind !== 'inherited-divider' && r.seq <= seq && seq <= r.lastSeq && (best < 0 || r.depth >= block[best].depth)) best = i;
  });
  if (best >= 0) return from + best;
  const before = block.findLastIndex((r) => r.seq <= seq && r.kind !== 'inherited-divider');
  return before >= 0 ? from + before : block.length ? from : -1;
}

/** The session as the browser knows a large log: facts only, events on disk. */
const factsOnly = (file: string): Session => openSessionFile(file).session!;

/** Rows from the whole log in memory vs from the index, under each expansion; search and detail agree too. */
function agree(file: string, idx: Session, steps: readonly Step[], cache: SegmentCache): void {
  const whole = openSessionFile(file, true).session!;
  expect(indexStep(idx, undefined, cache)).toBe(true);
  const index = turnIndexOf(idx)!.index;
  expect(index.events).toBe(whole.length);
  const wTree = buildTurnTree(whole.events);
  const wCtx = rowsContext(whole, 1_700_000_500_000);
  const store = new SessionStore();
  const iCtx = indexedContext(idx, index, 1_700_000_500_000);
  let expansion: Expansion = { mode: 'auto', toggled: new Set() };
  const check = () => {
    const model = buildTurnRows(wTree, expansion, wCtx);
    const w = model.rows.slice();
    const im = buildTurnRows(index.tree, expansion, iCtx);
    const i = im.rows.slice();
    expect(i.map(shown)).toEqual(w.map(shown));
    // the rows built a block at a time are the tree flattened whole, and each is found by its key and seqs
    expect(w.map(shape)).toEqual(flattened(wTree, expansion, whole.facts));
    for (let k = w.length - 1; k >= 0; k--) {
      expect(im.rows.at(k)!.key).toBe(w[k].key);
      expect(im.index.get(w[k].key)).toBe(k);
    }
    for (let seq = -1; seq <= whole.length; seq++) expect(rowIndexForSeq(im.rows, seq)).toBe(rowForSeq(w, wTree, seq));
    // the fork verdict of every cut, what it names read through the index: the one the whole log gives
    for (let seq = 0; seq < whole.length; seq++) expect(store.boundaryError(idx, seq, index)?.message).toBe(store.boundaryError(whole, seq)?.message);
    for (let k = 0; k < w.length; k += 3) expect(detailLines(i[k], (s) => index.event(s))).toEqual(detailLines(w[k], (s) => eventAtSeq(whole.events, s)));
    return w;
  };
  let rows = check();
  for (const st of steps) {
    if (st.kind === 'toggle' && rows.length > 0) {
      const key = rows[st.at % rows.length].key;
      const toggled = new Set(expansion.toggled);
      if (!toggled.delete(key)) toggled.add(key);
      expansion = { mode: expansion.mode, toggled };
    } else if (st.kind === 'mode') expansion = { mode: st.mode, toggled: new Set() };
    else if (st.kind === 'search') {
      const q = parseQuery(`needle${st.at % 4}`) as Query;
      const seqs = matchingSeqs(q, idx.eventBatches());
      expect(seqs).toEqual([...new Set(turnMatches(q, whole.events).map((m) => m.seq))].sort((a, b) => a - b));
      if (seqs.length) {
        const seq = seqs[st.at % seqs.length];
        const e1 = openToSeq(expansion, wTree, seq);
        expect(openToSeq(expansion, index.tree, seq)).toEqual(e1);
        expansion = e1;
      }
    }
    rows = check();
  }
  for (let s = 0; s < whole.length; s++) expect(index.event(s)).toEqual(eventAtSeq(whole.events, s));
}

type Step = { kind: 'toggle'; at: number } | { kind: 'mode'; mode: Expansion['mode'] } | { kind: 'search'; at: number };
const stepsArb = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('toggle' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('mode' as const), mode: fc.constantFrom('auto' as const, 'all' as const, 'none' as const) }),
    fc.record({ kind: fc.constant('search' as const), at: fc.nat() }),
  ),
  { maxLength: 8 },
);

/** How a log is written: plain, or compressed as rc.8 writes it (the header alone in frame 1, then a frame per `per` lines). */
type Kind = { zstd: false } | { zstd: true; per: number };
const kindArb = fc.oneof(fc.constant<Kind>({ zstd: false }), fc.integer({ min: 1, max: 4 }).map<Kind>((per) => ({ zstd: true, per })));

/** The text as the file's bytes: itself, or frames of `per` lines each. */
function bytesOf(text: string, kind: Kind): Buffer {
  if (!kind.zstd) return Buffer.from(text);
  const lines = text.split(/(?<=\n)/);
  const frames = [];
  for (let i = 0; i < lines.length; i += kind.per) frames.push(encodeStoredFrame(Buffer.from(lines.slice(i, i + kind.per).join(''))));
  return Buffer.concat(frames);
}

describe('the offset index of a log', () => {
  // every frame a place to seek from: a turn's read starts at the frame before it, never at the file's start
  beforeAll(() => setSeekStep(1));
  afterAll(() => setSeekStep(1024 * 1024));
  afterAll(() => {
    setPieceBytes(4 * 1024 * 1024);
    setWideChildren(200);
  });
  it('gives the whole log’s rows, details, matches and events, also after an append, a truncate and a replace; plain or compressed; its turns cut in pieces or not, their rows built a child at a time or not', () => {
    fc.assert(
      // pieces: 0 cuts a turn at every step/start where no call waits for its result; wide: 0 builds every expanded node's rows a child at a time
      fc.property(kindArb, linesArb, linesArb, linesArb, stepsArb, fc.integer({ min: 0, max: 2000 }), fc.constantFrom(0, 0, 200, 1 << 30), fc.constantFrom(0, 1, 200), fc.boolean(), (kind, first, more, other, steps, budget, pieces, wide, rc8) => {
        setPieceBytes(pieces);
        setWideChildren(wide);
        const cache = new SegmentCache(budget); // small: segments are dropped and read again all the time
        const file = path.join(dir, `s${n++}.jsonl${kind.zstd ? '.zstd' : ''}`);
        const head = JSON.stringify(hdr(`s${n}`, rc8 ? { delegationDepth: 0 } : {})) + '\n'; // rc8: the harness's rc.8 rule and wording for a cut inside a turn
        fs.writeFileSync(file, Buffer.concat([bytesOf(head, kind), bytesOf(linesText(first), kind)]));
        const idx = factsOnly(file);
        agree(file, idx, steps, cache);
        // a live append: the follower feeds the session's reader, the index reads on
        fs.appendFileSync(file, bytesOf(linesText(more, first.length), kind));
        if (kind.zstd) expect(feedAppendedZstd(file, idx.log as LogReader)).toBeDefined(); // its new frames, from where the last read ended
        else expect(feedAppended(file, idx.log as LogReader)).toBeGreaterThanOrEqual(0);
        agree(file, idx, steps, cache);
        // truncated, then replaced: the file is read again (a new session object, or a log state read from scratch)
        fs.writeFileSync(file, Buffer.concat([bytesOf(head, kind), bytesOf(linesText(first.slice(0, first.length >> 1)), kind)]));
        const cut = factsOnly(file);
        idx.resetLog(cut.log, false);
        agree(file, idx, steps, cache);
        fs.writeFileSync(file, Buffer.concat([bytesOf(head, kind), bytesOf(linesText(other), kind)]));
        agree(file, factsOnly(file), steps, cache);
      }),
      { numRuns: runs(80) },
    );
  }, PROPERTY_TIMEOUT);
});

describe('a tool call answered after its turn ended', () => {
  it('the events between select their own node’s rows, not the call’s (found by the property above)', () => {
    const L = (type: Line['type']): Line => ({ type, call: 0, damage: 'none' });
    const file = path.join(dir, `late-result.jsonl`);
    const head = JSON.stringify(hdr(`r`)) + '\n';
    fs.writeFileSync(file, head);
    const idx = factsOnly(file);
    const cache = new SegmentCache(0);
    agree(file, idx, [{ kind: 'toggle', at: 0 }], cache);
    fs.appendFileSync(file, linesText([L('turn/start'), L('tool/call'), L('turn/end'), L('step/start'), L('tool/result')], 0));
    expect(feedAppended(file, idx.log as LogReader)).toBeGreaterThanOrEqual(0);
    agree(file, idx, [{ kind: 'toggle', at: 0 }], cache);
  });
});

describe('tail first', () => {
  it('a large log shows its last turns from a read of its tail; the whole index then agrees with them', () => {
    // ~6 MB: 300 turns of a 20 KB tool result each, a damaged line near the end
    const rows = [];
    for (let t = 1; t <= 300; t++)
      rows.push(
        ['turn/start', { turn: t }],
        ['user/message', { content: [{ type: 'text', text: `prompt ${t}` }], source: { kind: 'user' } }],
        ['tool/call', { callId: `c${t}`, name: 'bash', arguments: '{"command":"ls"}' }],
        ['tool/result', { callId: `c${t}`, content: [{ type: 'tool-result', content: 'x'.repeat(20_000) }] }],
        ['turn/end', { turn: t, reason: { kind: 'completed' } }],
      );
    const lines = rows.map(([type, data], seq) => JSON.stringify({ type, seq, time: 1_700_000_000_000 + seq, data }));
    lines.splice(lines.length - 7, 0, '{"type":"tool/res'); // a torn line inside turn 299
    const file = path.join(dir, 'tail.jsonl');
    fs.writeFileSync(file, JSON.stringify(hdr('tail')) + '\n' + lines.join('\n') + '\n');
    expect(fs.statSync(file).size).toBeGreaterThan(5_000_000);

    const s = factsOnly(file);
    const cache = new SegmentCache(1 << 20);
    expect(indexStep(s, () => true, cache)).toBe(false); // one chunk of the whole log read: not done
    const tail = turnIndexOf(s)!;
    expect(tail.partial).toBe(true);
    const segs = tail.index.segments;
    expect(segs.length).toBeGreaterThan(10);
    expect(segs.length).toBeLessThan(300);
    expect(segs[segs.length - 1].lastSeq).toBe(s.length - 1);
    expect(tail.index.tree[0].kind).toBe('turn'); // starts at a turn/start, never mid-turn
    const tailBodies = segs.map((g) => ({ g: { ...g }, nodes: tail.index.body(g).nodes }));

    while (!indexStep(s, () => true, cache)) {
      /* the rest, a chunk at a time */
    }
    const full = turnIndexOf(s)!;
    expect(full.partial).toBeUndefined();
    expect(full.current).toBe(true);
    expect(full.index.segments.length).toBe(300);
    for (const { g, nodes } of tailBodies) {
      const same = full.index.segmentOf(g.seq)!;
      expect({ ...same }).toEqual(g);
      expect(full.index.body(same).nodes).toEqual(nodes);
    }
    expect(full.index.tree.at(-1)!.kind === 'turn' && full.index.tree.at(-1)!.turn).toBe(300);
  });
});

describe('tail first, the last turn too long to read whole', () => {
  it('shows the last steps of that turn from a read of the tail; the whole index then has the same steps', () => {
    // ~20 MB: a small turn, then one open turn of 1,000 steps of a 20 KB tool result each (no turn/start in the last 16 MB)
    const rows: Array<[string, unknown]> = [
      ['turn/start', { turn: 1 }],
      ['user/message', { content: [{ type: 'text', text: 'first' }], source: { kind: 'user' } }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
      ['turn/start', { turn: 2 }],
      ['user/message', { content: [{ type: 'text', text: 'go on for hours' }], source: { kind: 'user' } }],
    ];
    for (let k = 1; k <= 1000; k++)
      rows.push(
        ['step/start', { turn: 2, step: k }],
        ['tool/call', { callId: `c${k}`, name: 'bash', arguments: '{"command":"ls"}' }],
        ['tool/result', { callId: `c${k}`, content: [{ type: 'tool-result', content: 'x'.repeat(20_000) }] }],
        ['step/end', { turn: 2, step: k }],
      );
    const file = path.join(dir, 'long-turn.jsonl');
    fs.writeFileSync(file, JSON.stringify(hdr('long-turn')) + '\n' + rows.map(([type, data], seq) => JSON.stringify({ type, seq, time: 1_700_000_000_000 + seq, data })).join('\n') + '\n');
    const s = factsOnly(file);
    const cache = new SegmentCache(1 << 20);
    expect(indexStep(s, () => true, cache)).toBe(false);
    const tail = turnIndexOf(s)!;
    expect(tail.partial).toBe(true);
    expect(tail.index.tree).toHaveLength(1);
    const t = tail.index.tree[0];
    expect([t.kind, t.kind === 'turn' && t.turn, t.kind === 'turn' && t.open, t.lastSeq]).toEqual(['turn', 2, true, s.length - 1]);
    const steps = (t as Extract<TreeNode, { kind: 'turn' }>).children;
    expect(steps.length).toBeGreaterThan(100);
    expect(steps.length).toBeLessThan(1000);
    expect(steps.every((c) => c.kind === 'step')).toBe(true);
    const tailSteps = steps.map((c) => ({ seq: c.seq, children: (c as Extract<TreeNode, { kind: 'step' }>).children.map((x) => ({ ...x })) }));

    while (!indexStep(s, () => true, cache)) {
      /* the rest */
    }
    const full = turnIndexOf(s)!;
    expect(full.partial).toBeUndefined();
    const whole = full.index.tree[1] as Extract<TreeNode, { kind: 'turn' }>;
    expect([full.index.tree.length, whole.prompt, whole.children.length]).toEqual([2, 'go on for hours', 1001]); // its prompt and its steps
    const bySeq = new Map(whole.children.map((c) => [c.seq, c]));
    for (const st of tailSteps) expect((bySeq.get(st.seq) as Extract<TreeNode, { kind: 'step' }>).children.map((x) => ({ ...x }))).toEqual(st.children);
  });
});

describe('a log whose file is gone', () => {
  it('rows from its index show that they cannot be read instead of throwing into a frame', () => {
    const file = path.join(dir, 'gone.jsonl');
    fs.writeFileSync(file, JSON.stringify(hdr('gone')) + '\n' + linesText([{ type: 'turn/start', call: 0, damage: 'none' }, { type: 'user/message', call: 1, damage: 'none' }, { type: 'turn/end', call: 1, damage: 'none' }]));
    const s = factsOnly(file);
    const cache = new SegmentCache(0);
    expect(indexStep(s, undefined, cache)).toBe(true);
    const index = turnIndexOf(s)!.index;
    fs.rmSync(file);
    const rows = buildTurnRows(index.tree, { mode: 'all', toggled: new Set() }, indexedContext(s, index, 0)).rows.slice();
    // (its rows were counted from the index: the one it cannot read says so)
    expect(rows.map((r) => r.kind)).toEqual(['turn', 'event', 'boundary']);
    expect(rows[1].text).toBe('(cannot be read now: the log changed)');
    expect(index.event(1)).toBeUndefined();
  });
});
