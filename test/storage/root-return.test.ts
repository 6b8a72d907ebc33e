// The root folder deleted and made again: an inotify watch dies with its
// folder, and following must not stop silently. The watcher says the root is
// gone, looks for it on a slow timer, and watches the new folder
// when it is back; the follower says so in its live message. Every wait is on
// an event (a batch, an onRoot call, a status) with a generous deadline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followRoot, ROOT_BACK_MESSAGE, ROOT_GONE_MESSAGE, type Follower } from '../../src/storage/follow.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { watchRoot, type FileChange, type RootWatcher } from '../../src/storage/watcher.js';

const DEADLINE_MS = 15_000;
const made: string[] = [];
const closers: Array<RootWatcher | Follower> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c.close();
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmpRoot(): { parent: string; root: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-root-return-')));
  made.push(parent);
  const root = path.join(parent, 'sessions');
  fs.mkdirSync(root);
  return { parent, root };
}

const header = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1_790_000_000_000 }) + '\n';
const turn = (n: number) =>
  [
    { type: 'turn/start', seq: 2 * n, time: 1_790_000_000_000, data: { turn: n + 1, trigger: { kind: 'message', source: { kind: 'user' } } } },
    { type: 'turn/end', seq: 2 * n + 1, time: 1_790_000_000_001, data: { turn: n + 1, reason: { kind: 'completed' } } },
  ]
    .map((e) => JSON.stringify(e) + '\n')
    .join('');

/** Resolves when `pred` holds for something `subscribe` delivers; rejects after the deadline. */
function waiter<T>(): { push(v: T): void; until(pred: (v: T) => boolean, what: string): Promise<T>; seen: T[] } {
  const seen: T[] = [];
  let waiting: Array<{ pred: (v: T) => boolean; resolve(v: T): void }> = [];
  return {
    seen,
    push(v) {
      seen.push(v);
      waiting = waiting.filter((w) => (w.pred(v) ? (w.resolve(v), false) : true));
    },
    until(pred, what) {
      const hit = seen.find(pred);
      if (hit !== undefined) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(seen).slice(0, 800)}`)), DEADLINE_MS);
        waiting.push({ pred, resolve: (v) => (clearTimeout(t), resolve(v)) });
      });
    },
  };
}

describe('watchRoot: the root deleted and made again', () => {
  it('says gone (its files deleted), then back, and watches the new folder', async () => {
    const { root } = tmpRoot();
    const a = path.join(root, 'a.jsonl');
    fs.writeFileSync(a, header('a'));
    const changes = waiter<FileChange>();
    const roots = waiter<string>();
    // no safety poll: only a live inotify watch on the new folder can report the append at the end
    const w = watchRoot(root, { onChanges: (cs) => cs.forEach((c) => changes.push(c)), onRoot: (s) => roots.push(s), safetyPollMs: 0, rootPollMs: 50 });
    closers.push(w);
    await w.ready;
    expect(w.mode).toBe('watch');
    fs.rmSync(root, { recursive: true });
    await changes.until((c) => c.file === a && c.kind === 'deleted', 'a deleted');
    await roots.until((s) => s === 'gone', 'gone');
    fs.mkdirSync(root);
    const b = path.join(root, 'b.jsonl');
    fs.writeFileSync(b, header('b'));
    await roots.until((s) => s === 'back', 'back');
    await changes.until((c) => c.file === b && c.kind === 'new', 'b new');
    fs.appendFileSync(b, turn(0));
    await changes.until((c) => c.file === b && c.kind === 'grown', 'b grown (watched again)');
    expect(roots.seen).toEqual(['gone', 'back']);
    expect(w.mode).toBe('watch');
  });

  it('a root replaced between two looks (moved away, made again) is watched afresh', async () => {
    const { parent, root } = tmpRoot();
    const a = path.join(root, 'a.jsonl');
    fs.writeFileSync(a, header('a'));
    const changes = waiter<FileChange>();
    const w = watchRoot(root, { onChanges: (cs) => cs.forEach((c) => changes.push(c)), safetyPollMs: 0, rootPollMs: 50 });
    closers.push(w);
    await w.ready;
    fs.renameSync(root, path.join(parent, 'old'));
    fs.mkdirSync(root);
    const b = path.join(root, 'b.jsonl');
    fs.writeFileSync(b, header('b'));
    await w.sync();
    await changes.until((c) => c.file === b && c.kind === 'new', 'b new');
    await changes.until((c) => c.file === a && c.kind === 'deleted', 'a deleted');
    fs.appendFileSync(b, turn(0));
    await changes.until((c) => c.file === b && c.kind === 'grown', 'b grown (watched again)');
  });

  it('polling mode says gone and back too', async () => {
    const { root } = tmpRoot();
    const roots = waiter<string>();
    const changes = waiter<FileChange>();
    const w = watchRoot(root, { onChanges: (cs) => cs.forEach((c) => changes.push(c)), onRoot: (s) => roots.push(s), forcePolling: true, pollIntervalMs: 30, rootPollMs: 50 });
    closers.push(w);
    await w.ready;
    fs.rmSync(root, { recursive: true });
    await roots.until((s) => s === 'gone', 'gone');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'c.jsonl'), header('c'));
    await roots.until((s) => s === 'back', 'back');
    await changes.until((c) => c.kind === 'new', 'c new');
  });
});

describe('followRoot: the root deleted and made again', () => {
  it('the live message says the root is gone, then the new session is followed', async () => {
    const { root } = tmpRoot();
    fs.writeFileSync(path.join(root, 'a.jsonl'), header('a') + turn(0));
    const index = loadRootSync(root);
    expect(index.store.list().map((s) => s.id)).toEqual(['a']);
    const status = waiter<string>();
    const f = followRoot(index, { onStatus: (m) => status.push(m), rootPollMs: 50 });
    closers.push(f);
    fs.rmSync(root, { recursive: true });
    await status.until((m) => m === ROOT_GONE_MESSAGE, 'the gone message');
    expect(status.seen.at(-1)).toBe(ROOT_GONE_MESSAGE); // the last word while it is gone
    expect(index.store.list()).toEqual([]);
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'b.jsonl'), header('b') + turn(0));
    await status.until((m) => m === ROOT_BACK_MESSAGE, 'the back message');
    const deadline = Date.now() + DEADLINE_MS;
    // the new file arrives in a batch after "back": wait on the store's own event
    await new Promise<void>((resolve, reject) => {
      const check = () => index.store.list().some((s) => s.id === 'b');
      if (check()) return resolve();
      const t = setTimeout(() => (off(), reject(new Error('b never followed'))), deadline - Date.now());
      const off = index.store.subscribe(() => {
        if (check()) (off(), clearTimeout(t), resolve());
      });
    });
    expect(index.store.list().map((s) => s.id)).toEqual(['b']);
  });
});
