// Compare from the common ancestor, on forks built from the real
// harness logs and the sample corpus: siblings, parent/child, cousins at
// depth, unrelated sessions, and a child whose seed was tampered with.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alignTurns, commonPrefix, compareSessions, compareSteps, comparisonJson, type Comparison } from '../../src/session/compare.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { Session } from '../../src/session/session.js';
import { turnSummaries, type TurnSummary } from '../../src/session/turn-summary.js';
import { loadRootSync, type RootIndex } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, evs, hdr, REAL_DIR, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterAll(cleanupTmp);

const REAL = (name: string) => path.join(REAL_DIR, `toninfo-deepseek-harness__${name}`);

function load(dir: string): RootIndex {
  return loadRootSync(dir);
}
function byFile(index: RootIndex, file: string): Session {
  const s = index.store.get(path.resolve(file));
  expect(s, file).toBeDefined();
  return s!;
}
function byId(index: RootIndex, id: string): Session {
  const all = index.store.getAll(id);
  expect(all.length, id).toBe(1);
  return all[0];
}
const cmp = (index: RootIndex, a: Session, b: Session): Comparison => compareSessions(a, b, index.store.list());

/** Own turns (turn numbers continuing after the seed), with seqs continuing from `from`. */
function ownEvents(from: number, firstTurn: number, prompts: string[], t0: number): SessionEvent[] {
  const rows = prompts.flatMap((p, i) => turnRows(firstTurn + i, { kind: 'completed' }, p));
  return rows.map(([type, data], i) => ({ type, seq: from + i, time: t0 + i * 10, data: data ?? {} }));
}

let clock = 1_800_000_000_000;
/** A fork child file: the parent's first n events verbatim, then own turns (at a later time than any before). */
function writeChild(dir: string, id: string, parent: Session, n: number, prompts: string[], tamper?: (seed: SessionEvent[]) => void): string {
  const seed = structuredClone(parent.events.slice(0, n)) as SessionEvent[];
  tamper?.(seed);
  const turns = parent.events.slice(0, n).filter((e) => e.type === 'turn/start').length;
  const header = { type: 'session', version: 0, id, createdAt: 1_800_000_000_000, parentSession: parent.id, seedLength: n, ...(parent.cwd ? { cwd: parent.cwd } : {}) };
  clock += 1_000_000;
  return writeLog(path.join(dir, `${id}.jsonl`), header, [...seed, ...ownEvents(n, turns + 1, prompts, clock)]);
}

describe('common ancestor on the sample corpus', () => {
  const index = load(copyDir(SAMPLE_DIR, tmpDir()));
  const root = byId(index, 'fix-flaky-retry-test');
  const spy = byId(index, 'fix-flaky-retry-test.spy-random'); // root @79
  const writeup = byId(index, 'fix-flaky-retry-test.issue-writeup'); // root @44
  const gh = byId(index, 'fix-flaky-retry-test.issue-writeup.gh'); // writeup @57

  it('parent and child: the parent, agreeing through seedLength - 1', () => {
    const c = cmp(index, root, spy);
    expect(c.ancestor?.session).toBe(root);
    expect(c.ancestor?.seq).toBe(78);
    expect(c.prefix).toBe(79);
    expect(c.sharedTurns.map((t) => t.turn)).toEqual([1, 2]);
    expect(c.left.turns.map((t) => t.turn)).toEqual([3, 4, 5]);
    expect(c.right.turns[0].seq).toBe(79);
    // the same pair the other way round
    const r = cmp(index, spy, root);
    expect(r.ancestor?.session).toBe(root);
    expect(r.ancestor?.seq).toBe(78);
  });

  it('siblings: the shared parent, agreeing through the shorter seed', () => {
    const c = cmp(index, spy, writeup);
    expect(c.ancestor?.session).toBe(root);
    expect(c.ancestor?.seq).toBe(43);
    expect(c.sharedTurns.length).toBe(1);
  });

  it('uncle and nephew (a fork of a fork): the root', () => {
    const c = cmp(index, spy, gh);
    expect(c.ancestor?.session).toBe(root);
    expect(c.ancestor?.seq).toBe(43);
    const j = comparisonJson(c);
    expect(j.ancestor).toEqual({ id: 'fix-flaky-retry-test', file: root.file, seq: 43 });
    expect(j.left.id).toBe(spy.id);
    expect(j.right.turns.map((t) => [t.turn, t.reason])).toEqual([
      [2, 'max-tokens'],
      [3, 'error'],
    ]);
    for (const t of [...j.left.turns, ...j.right.turns]) {
      expect(Object.keys(t)).toEqual(expect.arrayContaining(['turn', 'prompt', 'tools', 'reason', 'usage', 'ms']));
      for (const x of t.tools) expect(typeof x.error).toBe('boolean');
    }
    // the turn with the failing test run is marked as an error
    expect(j.left.turns.some((t) => t.tools.some((x) => x.error))).toBe(true);
  });

  it('grandparent and grandchild: the grandparent, through the nearer cut', () => {
    const c = cmp(index, gh, root);
    expect(c.ancestor?.session).toBe(root);
    expect(c.ancestor?.seq).toBe(43);
  });

  it('a spawned subagent is not a fork descendant; unrelated logs share nothing', () => {
    const callers = byId(index, 'fix-flaky-retry-test/callers');
    const c = cmp(index, root, callers);
    expect(c.ancestor).toBeNull();
    expect(c.prefix).toBe(0);
    expect(c.sharedTurns).toEqual([]);
    const u = cmp(index, byId(index, 'review-pr-482'), byId(index, 'bump-vitest'));
    expect(u.ancestor).toBeNull();
    expect(u.prefix).toBe(0);
    expect(comparisonJson(u).ancestor).toBeNull();
  });

  it('an orphan fork (parent missing) has no ancestor with anything but itself', () => {
    const orphan = byId(index, 'bisect-ci-timeout');
    expect(cmp(index, orphan, root).ancestor).toBeNull();
    const self = cmp(index, orphan, orphan);
    expect(self.ancestor?.session).toBe(orphan);
    expect(self.prefix).toBe(orphan.length);
  });
});

describe('forks built from the real harness logs', () => {
  it('the real fork pairs of both eras: the parent, through seedLength - 1', () => {
    const index = load(copyDir(REAL_DIR, tmpDir()));
    const dir = index.root;
    const parent = byFile(index, path.join(dir, 'toninfo-deepseek-harness__rfc0706__subagent-fork__session.jsonl'));
    const child = byFile(index, path.join(dir, 'toninfo-deepseek-harness__rfc0706__subagent-fork__session.1.jsonl'));
    const c = cmp(index, parent, child);
    expect(c.ancestor?.session).toBe(parent);
    expect(c.ancestor?.seq).toBe(37);
    // rc8: a subagent fork with session/end-seed
    const p8 = byFile(index, path.join(dir, 'toninfo-deepseek-harness__rc8__subagent-fork-in-process__session.jsonl'));
    const c8 = byFile(index, path.join(dir, 'toninfo-deepseek-harness__rc8__subagent-fork-in-process__session.1.jsonl'));
    const r = cmp(index, c8, p8);
    expect(r.ancestor?.session).toBe(p8);
    expect(r.ancestor?.seq).toBe(c8.seedLength! - 1);
    // every pair of the corpus compares without throwing, and the prefix is symmetric
    const all = index.store.list();
    for (const a of all.slice(0, 12)) for (const b of all.slice(0, 12)) expect(cmp(index, a, b).prefix).toBe(cmp(index, b, a).prefix);
  });

  describe('cousins, siblings and tampering on the real multi-turn log', () => {
    const dir = tmpDir();
    fs.copyFileSync(REAL('rfc0706__multi-turn__session.jsonl'), path.join(dir, 'root.jsonl'));
    let index = load(dir);
    const root = index.store.list()[0];
    const cut = root.facts.boundaries[0] + 1; // after turn 1
    expect(cut).toBeGreaterThan(1);
    expect(cut).toBeLessThan(root.length);
    writeChild(dir, 'a', root, cut, ['left idea']);
    writeChild(dir, 'b', root, cut, ['right idea']);
    index = load(dir);
    const a = byId(index, 'a');
    const b = byId(index, 'b');
    writeChild(dir, 'a1', a, a.length, ['left more']);
    writeChild(dir, 'b1', b, b.length, ['right more']);
    index = load(dir);
    writeChild(dir, 'b2', byId(index, 'b1'), byId(index, 'b1').length, ['deeper']);
    // tampered: the user prompt of turn 1 edited inside the seed
    const promptSeq = root.events.findIndex((e) => e.type === 'user/message');
    writeChild(dir, 'tampered', root, cut, ['after tamper'], (seed) => {
      seed[promptSeq].data = { ...seed[promptSeq].data, content: [{ type: 'text', text: 'EDITED' }] };
    });
    index = load(dir);
    const R = byId(index, root.id);

    it('siblings forked at the same boundary: the parent, through the cut', () => {
      const c = cmp(index, byId(index, 'a'), byId(index, 'b'));
      expect(c.ancestor?.session).toBe(R);
      expect(c.ancestor?.seq).toBe(cut - 1);
      expect(c.left.turns.map((t) => t.prompt)).toEqual(['left idea']);
      expect(c.right.turns.map((t) => t.prompt)).toEqual(['right idea']);
    });

    it('cousins at different depths: the root, through the first cut', () => {
      const c = cmp(index, byId(index, 'a1'), byId(index, 'b2'));
      expect(c.ancestor?.session).toBe(R);
      expect(c.ancestor?.seq).toBe(cut - 1);
      expect(c.left.turns.map((t) => t.prompt)).toEqual(['left idea', 'left more']);
      expect(c.right.turns.map((t) => t.prompt)).toEqual(['right idea', 'right more', 'deeper']);
      // first cousins once removed share b as their nearest ancestor with b's descendants
      const d = cmp(index, byId(index, 'b1'), byId(index, 'b2'));
      expect(d.ancestor?.session).toBe(byId(index, 'b1'));
      expect(d.ancestor?.seq).toBe(byId(index, 'b1').length - 1);
    });

    it('a tampered seed: the ancestor is found, agreeing only up to the divergence', () => {
      const t = byId(index, 'tampered');
      const c = cmp(index, R, t);
      expect(c.ancestor?.session).toBe(R);
      expect(c.ancestor?.seq).toBe(promptSeq - 1);
      expect(c.sharedTurns).toEqual([]); // the divergence is inside turn 1
      expect(c.left.turns[0].turn).toBe(1);
      expect(c.right.turns[0].prompt).toBe('EDITED');
      // and against an untampered sibling
      const s = cmp(index, byId(index, 'a'), t);
      expect(s.ancestor?.session).toBe(R);
      expect(s.ancestor?.seq).toBe(promptSeq - 1);
    });

    it('unrelated sessions whose first events are equal share that prefix, with no ancestor', () => {
      const d2 = tmpDir();
      const evs = R.events.slice(0, cut);
      writeLog(path.join(d2, 'x.jsonl'), { type: 'session', version: 0, id: 'x', createdAt: 1 }, [...evs, ...ownEvents(cut, 2, ['x'], 5)]);
      writeLog(path.join(d2, 'y.jsonl'), { type: 'session', version: 0, id: 'y', createdAt: 2 }, [...evs, ...ownEvents(cut, 2, ['y'], 7)]);
      writeLog(path.join(d2, 'z.jsonl'), { type: 'session', version: 0, id: 'z', createdAt: 2 }, ownEvents(0, 1, ['z'], 5));
      const i2 = load(d2);
      const c = cmp(i2, byId(i2, 'x'), byId(i2, 'y'));
      expect(c.ancestor).toBeNull();
      expect(c.prefix).toBe(cut);
      expect(c.sharedTurns.length).toBe(1);
      const z = cmp(i2, byId(i2, 'x'), byId(i2, 'z'));
      expect(z.ancestor).toBeNull();
      expect(z.prefix).toBe(0);
      expect(z.left.turns.length).toBe(2); // compared from seq 0
    });
  });
});

describe('duplicate parent ids (resolved as the lineage graph does)', () => {
  function twins(edit: boolean) {
    const dir = copyDir(SAMPLE_DIR, tmpDir());
    const src = path.join(dir, 'fix-flaky-retry-test.jsonl');
    const lines = fs.readFileSync(src, 'utf8').split('\n');
    // a second file with the root's id; edited in its first prompt, or an exact twin
    if (edit) lines[2] = lines[2].replace('flaky', 'FLAKY');
    fs.writeFileSync(path.join(dir, 'twin.jsonl'), lines.join('\n'));
    const index = load(dir);
    return { index, root: byFile(index, src), spy: byId(index, 'fix-flaky-retry-test.spy-random'), twin: byFile(index, path.join(dir, 'twin.jsonl')) };
  }

  it('the twin whose events match the seed is the parent', () => {
    const { index, root, spy, twin } = twins(true);
    const c = cmp(index, spy, byId(index, 'fix-flaky-retry-test.issue-writeup'));
    expect(c.ancestor?.session).toBe(root);
    expect(cmp(index, twin, spy).ancestor).toBeNull();
  });

  it('exact twins cannot be told apart: no ancestor is guessed, the shared prefix is still measured', () => {
    const { index, spy } = twins(false);
    const c = cmp(index, spy, byId(index, 'fix-flaky-retry-test.issue-writeup'));
    expect(c.ancestor).toBeNull();
    expect(c.prefix).toBe(44);
  });
});

describe('turn alignment and equal-turn folding', () => {
  const t = (turn: number, prompt: string, reason = 'completed'): TurnSummary => ({
    turn,
    seq: turn * 10,
    lastSeq: turn * 10 + 9,
    prompt,
    tools: [],
    reason,
    open: false,
    usage: { input: 0, output: 0, messages: 0 },
    ms: turn,
  });

  it('matches equal turns by LCS and pairs the gaps side by side', () => {
    const L = [t(1, 'a'), t(2, 'b'), t(3, 'c'), t(4, 'd')];
    const R = [t(1, 'a'), t(2, 'x'), t(3, 'c'), t(4, 'y'), t(5, 'z')];
    const p = alignTurns(L, R);
    expect(p.map((x) => [x.left?.prompt ?? '-', x.right?.prompt ?? '-', x.equal])).toEqual([
      ['a', 'a', true],
      ['b', 'x', false],
      ['c', 'c', true],
      ['d', 'y', false],
      ['-', 'z', false],
    ]);
  });

  it('a different end reason or tool outcome makes turns unequal', () => {
    expect(alignTurns([t(1, 'a')], [t(1, 'a', 'aborted')])[0].equal).toBe(false);
    const withTool = (error: boolean) => ({ ...t(1, 'a'), tools: [{ name: 'bash', args: 'npm test', error }] });
    expect(alignTurns([withTool(false)], [withTool(true)])[0].equal).toBe(false);
    expect(alignTurns([withTool(true)], [withTool(true)])[0].equal).toBe(true);
  });

  it('commonPrefix compares whole events, not just types', () => {
    const e = (text: string): SessionEvent => ({ type: 'user/message', seq: 0, time: 1, data: { content: [{ type: 'text', text }] } });
    expect(commonPrefix([e('a')], [e('a')])).toBe(1);
    expect(commonPrefix([e('a')], [e('b')])).toBe(0);
  });

  it('turn summaries of a real tool-call turn (both eras) name the tool and its argument', () => {
    for (const era of ['rfc0706', 'rc8']) {
      const dir = tmpDir();
      fs.copyFileSync(REAL(`${era}__tool-call-turn__session.jsonl`), path.join(dir, 's.jsonl'));
      const s = load(dir).store.list()[0];
      const [turn] = turnSummaries(s.events);
      expect(turn.tools).toEqual([{ name: 'bash', args: 'echo SNAPSHOT_OK', error: false }]);
      expect(turn.reason).toBe('completed');
      expect(turn.usage.messages).toBe(2);
      expect(turn.ms).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('compareSteps: two logs read side by side in pieces', () => {
  it('paused after every chunk of either log, it gives the comparison made at once (and says how far it read)', () => {
    const dir = tmpDir();
    const turnsOf = (n: number, variant: string) =>
      Array.from({ length: n }, (_, i) => turnRows(i + 1, { kind: 'completed' }, `prompt ${i + 1} ${i >= 150 ? variant : 'shared'} ${'y'.repeat(4000)}`)).flat();
    writeLog(path.join(dir, 'a.jsonl'), hdr('a'), evs(...turnsOf(400, 'left')));
    writeLog(path.join(dir, 'b.jsonl'), hdr('b'), evs(...turnsOf(300, 'right')));
    const index = load(dir);
    const [a, b] = [byId(index, 'a'), byId(index, 'b')];
    const steps = compareSteps(a, b, index.store.list(), () => true);
    const seen: number[] = [];
    let r = steps.next();
    for (; !r.done; r = steps.next()) seen.push(r.value);
    // 1.6 + 1.2 MB read a megabyte at a time: paused between chunks, reading on each time
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(seen.at(-1)!).toBeLessThanOrEqual(a.length + b.length);
    const fresh = load(dir);
    expect(comparisonJson(r.value)).toEqual(comparisonJson(compareSessions(byId(fresh, 'a'), byId(fresh, 'b'), fresh.store.list())));
    expect([r.value.prefix, r.value.sharedTurns.length, r.value.left.turns.length, r.value.right.turns.length]).toEqual([150 * 7 + 1, 150, 250, 150]);
    expect(a.isLoaded || b.isLoaded).toBe(false);
  });
});
