// Replay: turn tree and model history (docs/formats.md, "Replay and
// invariants"), on real harness files
// and on small crafted logs.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/session/events.js';
import { buildTurnTree, HistoryFold, modelHistory, type TreeNode } from '../../src/session/replay.js';
import { readLog } from '../../src/storage/session-file.js';
import { cleanupTmp, evs, plainRead, REAL_DIR, turnRows } from '../support/fixtures.js';

afterEach(cleanupTmp);

const real = (scenario: string) => path.join(REAL_DIR, `toninfo-deepseek-harness__${scenario}.jsonl`);
const eventsOf = (f: string): SessionEvent[] => readLog(f, true).reader.events;

type Tool = Extract<TreeNode, { kind: 'tool' }>;
function walk(nodes: TreeNode[], fn: (n: TreeNode) => void): void {
  const stack = [...nodes];
  while (stack.length) {
    const n = stack.shift()!;
    fn(n);
    if ('children' in n) stack.unshift(...n.children);
  }
}
const toolsOf = (nodes: TreeNode[]): Tool[] => {
  const out: Tool[] = [];
  walk(nodes, (n) => n.kind === 'tool' && out.push(n));
  return out;
};

describe('buildTurnTree on crafted logs', () => {
  it('nests turn -> step -> message/chunks/tool and pairs results with calls', () => {
    const ev = evs(
      ['turn/start', { turn: 1 }],
      ['user/message', { content: [{ type: 'text', text: 'run it' }] }],
      ['step/start', { turn: 1, step: 1 }],
      ['assistant/chunk', { turn: 1, step: 1, chunk: {} }],
      ['assistant/chunk', { turn: 1, step: 1, chunk: {} }],
      ['assistant/message', { turn: 1, step: 1, content: [{ type: 'reasoning', text: 'think' }, { type: 'tool-call', id: 'a', name: 'bash', arguments: '{}' }] }],
      ['tool/call', { turn: 1, step: 1, callId: 'a', name: 'bash', arguments: '{"cmd":"ls"}' }],
      ['tool/call', { turn: 1, step: 1, callId: 'b', name: 'read', arguments: '{}' }],
      ['tool/result', { turn: 1, step: 1, callId: 'b', content: [{ type: 'text', text: 'nope' }], isError: true, error: 'ENOENT' }],
      ['tool/result', { turn: 1, step: 1, callId: 'a', content: [{ type: 'text', text: 'file.txt' }], isError: false }],
      ['step/end', { turn: 1, step: 1 }],
      ['hook/post-tool', { name: 'x' }],
      ['turn/end', { turn: 1, reason: { kind: 'error', step: 1, message: 'boom', code: 'AUTH' } }],
      ['turn/start', { turn: 2 }],
      ['step/start', { turn: 2, step: 1 }],
    );
    const tree = buildTurnTree(ev);
    expect(tree.map((n) => n.kind)).toEqual(['turn', 'turn']);
    const [t1, t2] = tree as Array<Extract<TreeNode, { kind: 'turn' }>>;
    expect(t1).toMatchObject({ turn: 1, open: false, reason: 'error', prompt: 'run it', seq: 0, lastSeq: 12 });
    expect(t1.reasonData).toEqual({ kind: 'error', step: 1, message: 'boom', code: 'AUTH' });
    expect(t1.children.map((n) => n.kind)).toEqual(['message', 'step', 'event']);
    const step = t1.children[1] as Extract<TreeNode, { kind: 'step' }>;
    expect(step).toMatchObject({ step: 1, open: false, seq: 2, lastSeq: 10 });
    expect(step.children.map((n) => n.kind)).toEqual(['chunks', 'message', 'tool', 'tool']);
    expect(step.children[0]).toMatchObject({ kind: 'chunks', count: 2, seq: 3, lastSeq: 4 });
    expect(step.children[1]).toMatchObject({ kind: 'message', role: 'assistant', text: '', reasoning: 'think' });
    expect(toolsOf(tree).map((t) => [t.callId, t.name, t.arguments, t.result?.seq, t.result?.isError, t.result?.text])).toEqual([
      ['a', 'bash', '{"cmd":"ls"}', 9, false, 'file.txt'],
      ['b', 'read', '{}', 8, true, 'nope'],
    ]);
    expect(t2).toMatchObject({ turn: 2, open: true });
    expect((t2.children[0] as any).open).toBe(true);
  });

  it('shows an unknown turn/end reason as such', () => {
    const tree = buildTurnTree(evs(...turnRows(1, { kind: 'merged' })));
    expect(tree[0]).toMatchObject({ kind: 'turn', open: false, reason: 'merged' });
  });

  it('keeps standalone events between turns at the top level', () => {
    const tree = buildTurnTree(evs(...turnRows(1), ['session/title', { title: 'T' }], ['user/message', { content: [{ type: 'text', text: 'queued' }] }]));
    expect(tree.map((n) => n.kind)).toEqual(['turn', 'event', 'message']);
    expect(tree[1]).toMatchObject({ type: 'session/title', summary: 'T' });
  });

  it('a result without a call is shown, not dropped', () => {
    const tree = buildTurnTree(evs(['turn/start', { turn: 1 }], ['tool/result', { callId: 'zz', content: [{ type: 'text', text: 'r' }] }]));
    expect(toolsOf(tree)).toEqual([expect.objectContaining({ callId: 'zz', name: '(result without call)' })]);
  });

  it('is iterative: a 140k-event log does not overflow the stack', () => {
    const events: SessionEvent[] = [];
    for (let t = 1; t <= 20_000; t++) for (const [type, data] of turnRows(t)) events.push({ type, seq: events.length, time: events.length, data });
    expect(events).toHaveLength(140_000);
    const tree = buildTurnTree(events);
    expect(tree).toHaveLength(20_000);
  });
});

describe('buildTurnTree on real harness files', () => {
  it('rfc0706 tool-call-turn: one completed turn, two steps, the bash call paired with its ok result', () => {
    const f = real('rfc0706__tool-call-turn__session');
    const { rows } = plainRead(f);
    const call = rows.find((r) => r.type === 'tool/call');
    const result = rows.find((r) => r.type === 'tool/result');
    const prompt = rows.find((r) => r.type === 'user/message').data.content[0].text;
    const tree = buildTurnTree(eventsOf(f));
    const turns = tree.filter((n) => n.kind === 'turn') as Array<Extract<TreeNode, { kind: 'turn' }>>;
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ open: false, reason: 'completed', prompt });
    const steps = turns[0].children.filter((n) => n.kind === 'step');
    expect(steps.map((s: any) => s.step)).toEqual([1, 2]);
    const tools = toolsOf(tree);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ callId: call.data.callId, name: 'bash', arguments: call.data.arguments, seq: call.seq });
    expect(tools[0].result).toEqual({ seq: result.seq, isError: false, text: 'SNAPSHOT_OK\n' });
  });

  it('rc8 cancel-tool-calls: both calls paired with their error results (callId in message.source)', () => {
    const f = real('rc8__cancel-tool-calls__session');
    const { rows } = plainRead(f);
    const calls = rows.filter((r) => r.type === 'tool/call');
    const results = rows.filter((r) => r.type === 'tool/result');
    expect(calls).toHaveLength(2);
    const tree = buildTurnTree(eventsOf(f));
    const tools = toolsOf(tree);
    expect(tools.map((t) => [t.callId, t.seq, t.result?.seq, t.result?.isError])).toEqual(
      calls.map((c) => {
        const r = results.find((x) => x.data.message.source.callId === c.data.callId);
        return [c.data.callId, c.seq, r.seq, true];
      }),
    );
    expect(tools[0].result!.text).toBe('Error: tool call aborted');
    const turn = tree.find((n) => n.kind === 'turn') as any;
    expect(turn.reason).toBe('aborted');
  });

  it('rc8 parallel-tool-calls: every call has a result and none is an error', () => {
    const f = real('rc8__parallel-tool-calls__session');
    const { rows } = plainRead(f);
    const nCalls = rows.filter((r) => r.type === 'tool/call').length;
    const tools = toolsOf(buildTurnTree(eventsOf(f)));
    expect(nCalls).toBeGreaterThan(1);
    expect(tools).toHaveLength(nCalls);
    expect(tools.every((t) => t.result && t.result.isError === false)).toBe(true);
  });

  it('rc8 tool-outcome-unknown: the interrupted turn then the resumed completed turn', () => {
    const tree = buildTurnTree(eventsOf(real('rc8__tool-outcome-unknown__session.expected')));
    const turns = tree.filter((n) => n.kind === 'turn') as any[];
    expect(turns.map((t) => [t.turn, t.reason, t.open])).toEqual([
      [1, 'interrupted', false],
      [2, 'completed', false],
    ]);
    expect(toolsOf(tree).some((t) => t.result?.isError === true)).toBe(true);
  });

  it('every real file: one turn node per turn/start, each closed with the file reason', () => {
    for (const name of fs.readdirSync(REAL_DIR).filter((n) => !n.includes('v3'))) {
      const f = path.join(REAL_DIR, name);
      const { rows } = plainRead(f);
      const reasons = rows.filter((r) => r.type === 'turn/end').map((r) => r.data.reason.kind);
      const turns = buildTurnTree(eventsOf(f)).filter((n) => n.kind === 'turn') as any[];
      expect(turns.map((t) => t.reason), name).toEqual(reasons);
    }
  });
});

describe('modelHistory', () => {
  it('surface events in order, empty assistant messages skipped, upTo inclusive', () => {
    const ev = evs(
      ['turn/start', { turn: 1 }],
      ['user/message', { content: [{ type: 'text', text: 'hi' }] }],
      ['context/message', { content: [{ type: 'text', text: 'ctx' }] }],
      ['assistant/message', { content: [] }],
      ['assistant/message', { content: [{ type: 'text', text: 'yo' }] }],
      ['steering/message', { content: [{ type: 'text', text: 'steer' }] }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
    );
    expect(modelHistory(ev).map((h) => [h.seq, h.role, h.text])).toEqual([
      [1, 'user', 'hi'],
      [2, 'context', 'ctx'],
      [4, 'assistant', 'yo'],
      [5, 'steering', 'steer'],
    ]);
    expect(modelHistory(ev, 2).map((h) => h.seq)).toEqual([1, 2]);
  });

  it('a replace op swaps the surface range for the new node in place', () => {
    const ev = evs(
      ['user/message', { content: [{ type: 'text', text: 'a' }] }],
      ['assistant/message', { content: [{ type: 'text', text: 'b' }] }],
      ['user/message', { content: [{ type: 'text', text: 'c' }] }],
      ['assistant/message', { content: [{ type: 'text', text: 'd' }] }],
    );
    ev.push({ type: 'user/message', seq: 4, time: 0, data: { content: [{ type: 'text', text: 'summary' }] }, surfaceOp: { op: 'replace', start: 0, end: 1 } });
    expect(modelHistory(ev).map((h) => h.text)).toEqual(['summary', 'c', 'd']);
  });

  it('rc8 compaction-recovery: the checkpoint replaces the first prompt', () => {
    const f = real('rc8__compaction-recovery__session');
    const { rows } = plainRead(f);
    const rep = rows.find((r) => r.surfaceOp?.op === 'replace');
    expect(rep.surfaceOp).toEqual({ op: 'replace', start: 4, end: 4 });
    const ev = eventsOf(f);
    const before = modelHistory(ev, rep.seq - 1);
    expect(before.map((h) => [h.seq, h.role])).toEqual([
      [4, 'user'],
      [13, 'assistant'],
      [15, 'tool'],
    ]);
    expect(before[1].toolCalls).toHaveLength(1);
    expect(before[2].text).toBe('alpha\n');
    const after = modelHistory(ev);
    expect(after.map((h) => [h.seq, h.role])).toEqual([
      [21, 'user'],
      [13, 'assistant'],
      [15, 'tool'],
      [28, 'assistant'],
    ]);
    expect(after[0].text).toBe(rep.data.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''));
    expect(after[0].text).toMatch(/^This is an automatically generated checkpoint/);
    expect(after[3].text).toBe('COMPACTION RECOVERED');
  });

  it('rfc0706 subagent-fork: the child history at seedLength equals the parent history at the boundary', () => {
    const parent = eventsOf(real('rfc0706__subagent-fork__session'));
    const child = eventsOf(real('rfc0706__subagent-fork__session.1'));
    const n = plainRead(real('rfc0706__subagent-fork__session.1')).header.seedLength;
    expect(n).toBe(38);
    expect(parent[n - 1].type).toBe('turn/end');
    const h = modelHistory(parent, n - 1);
    expect(h.length).toBeGreaterThan(1);
    expect(modelHistory(child, n - 1)).toEqual(h);
    // and the child goes on from there
    expect(modelHistory(child).slice(0, h.length)).toEqual(h);
    expect(modelHistory(child).length).toBeGreaterThan(h.length);
  });

  it('rc8 subagent-fork-in-process: the same holds at seedLength 42', () => {
    const parent = eventsOf(real('rc8__subagent-fork-in-process__session'));
    const child = eventsOf(real('rc8__subagent-fork-in-process__session.1'));
    expect(modelHistory(child, 41)).toEqual(modelHistory(parent, 41));
    expect(child[42].type).toBe('session/end-seed');
  });
});

describe('HistoryFold with a bound (a large log keeps the last entries of its history)', () => {
  const userMsg = (text: string): [string, unknown] => ['user/message', { content: [{ type: 'text', text }], source: 'user' }];
  it('keeps the last `keep` entries of the whole fold, and counts the rest, a replace op included', () => {
    const rows = Array.from({ length: 60 }, (_, i) => userMsg(`m${i}`));
    const events: SessionEvent[] = evs(...rows);
    // a replace op late in the log covering seqs 5-9 (dropped by then) and 40-41 (kept)
    events.push({ type: 'user/message', seq: 60, time: 1, data: { content: [{ type: 'text', text: 'summary' }], source: 'user' }, surfaceOp: { op: 'replace', start: 5, end: 9 } });
    events.push({ type: 'user/message', seq: 61, time: 2, data: { content: [{ type: 'text', text: 'summary 2' }], source: 'user' }, surfaceOp: { op: 'replace', start: 40, end: 41 } });
    const whole = modelHistory(events);
    for (const batchSize of [1, 7, 100]) {
      const fold = new HistoryFold(Infinity, Infinity, 10);
      for (let i = 0; i < events.length; i += batchSize) fold.add(events.slice(i, i + batchSize));
      fold.finish();
      expect(fold.entries.map((h) => h.seq)).toEqual(whole.slice(-10).map((h) => h.seq));
      expect(fold.hidden).toBe(whole.length - 10);
    }
    // unbounded, it is the whole history
    const all = new HistoryFold(Infinity, Infinity);
    all.add(events);
    all.finish();
    expect([all.entries.length, all.hidden]).toEqual([whole.length, 0]);
  });
});
