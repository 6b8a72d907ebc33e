// The scan's early watches (src/storage/early-watches.ts), taken over by the
// watcher's first comparison: a change made between the scan's read of a file
// and the watcher's start is still reported, though the watcher no longer
// stats every file again. Each test waits on events (a batch, `ready`), with
// deadlines far above the expected time, never a fixed sleep.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EarlyWatches } from '../../src/storage/early-watches.js';
import { iterateSessionFiles } from '../../src/storage/walk.js';
import { watchRoot, type FileChange, type RootWatcher } from '../../src/storage/watcher.js';

let root: string;
const open: Array<{ close(): void }> = [];
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-early-')));
});
afterEach(() => {
  for (const w of open.splice(0)) w.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const DEADLINE_MS = 15_000;
const header = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: 1 }) + '\n';
const line = (seq: number) => JSON.stringify({ type: 'user/message', seq, time: 2, data: { content: 'x' } }) + '\n';
const age = (p: string, s = 3600) => {
  const t = Date.now() / 1000 - s;
  fs.utimesSync(p, t, t);
};

function session(folder: string, id: string): string {
  const f = path.join(root, folder, `${id}.jsonl`);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, header(id) + line(0));
  age(f);
  return f;
}

/** What the TUI's scan hands the watcher: the folders walked (watched first, with `early`) and each file's stat, read after its folder's watch. */
function scan(early?: EarlyWatches) {
  const folders = new Map<string, number>();
  const files = [...iterateSessionFiles(root, undefined, (d, stamp) => folders.set(d, stamp), undefined, early)];
  const initial = new Map(files.map((f) => {
    const st = fs.statSync(f);
    return [f, { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }] as const;
  }));
  return { folders, initial };
}

function collector() {
  const all: FileChange[] = [];
  let waiters: Array<() => void> = [];
  return {
    all,
    onChanges(c: FileChange[]) {
      all.push(...c);
      for (const w of waiters) w();
    },
    /** resolves once `pred` holds of what was reported (rejects past the deadline) */
    until(pred: (all: FileChange[]) => boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not reported: ${JSON.stringify(all)}`)), DEADLINE_MS);
        const check = () => {
          if (!pred(all)) return;
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
          resolve();
        };
        waiters.push(check);
        check();
      });
    },
  };
}

const has = (all: FileChange[], file: string, kind: FileChange['kind']) => all.some((c) => c.file === file && c.kind === kind);

/** the lstat calls made while `run` runs, by path */
async function lstatsDuring(run: () => Promise<void>): Promise<string[]> {
  const looked: string[] = [];
  const real = fs.lstatSync.bind(fs);
  const spy = vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, o?: never) => {
    looked.push(String(p));
    return real(p, o);
  }) as typeof fs.lstatSync);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return looked;
}

describe('the watcher takes over the scan\'s early watches', () => {
  it('every change made between the scan and the watcher\'s start is reported, and the files of unchanged folders are not stat\'ed again', async () => {
    // p0: s0 s3 s6 s9, p1: s1 s4 s7 s10, p2: s2 s5 s8 s11
    const files = Array.from({ length: 12 }, (_, i) => session(`p${i % 3}`, `s${i}`));
    for (const d of [root, ...['p0', 'p1', 'p2'].map((p) => path.join(root, p))]) age(d);
    const early = new EarlyWatches(64);
    open.push(early);
    const { folders, initial } = scan(early);
    expect(early.size).toBe(4); // the root and its three folders
    // between the scan's read and the watcher: in p0 an append and a truncation (its entries stay: its watch is
    // taken over, what it heard is heard); in p1 a deletion, a replacement and a new file; a new folder
    const [grown, deleted, , truncated, replaced] = files;
    fs.appendFileSync(grown, line(1));
    fs.truncateSync(truncated, 10);
    fs.rmSync(deleted);
    fs.writeFileSync(replaced + '.tmp', header('s4'));
    fs.renameSync(replaced + '.tmp', replaced);
    const added = path.join(root, 'p1', 'new.jsonl');
    fs.writeFileSync(added, header('new'));
    const fresh = path.join(root, 'p9', 'f.jsonl');
    fs.mkdirSync(path.dirname(fresh));
    fs.writeFileSync(fresh, header('f'));
    const col = collector();
    let w!: RootWatcher;
    const looked = await lstatsDuring(async () => {
      w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, early, safetyPollMs: 0 });
      open.push(w);
      await w.ready;
    });
    await col.until((all) => has(all, grown, 'grown') && has(all, truncated, 'truncated') && has(all, deleted, 'deleted') && has(all, replaced, 'replaced') && has(all, added, 'new') && has(all, fresh, 'new'));
    // the files nobody touched in p0 and p2 were not looked at again (the old first comparison lstat'ed each)
    const untouched = [files[6], files[9], files[2], files[5], files[8], files[11]];
    expect(looked.filter((p) => untouched.includes(p))).toEqual([]);
    expect(col.all.filter((c) => [...untouched, files[7], files[10]].includes(c.file))).toEqual([]);
    // the scan's watches are the watcher's now, or closed (p1's and the root's: those folders changed): a later append is an event
    expect(early.size).toBe(0);
    expect(w.watched).toBe(5);
    for (const f of [files[6], files[7]]) fs.appendFileSync(f, line(1));
    await col.until((all) => has(all, files[6], 'grown') && has(all, files[7], 'grown'));
  });

  // `sameMtime`: the folder made again under b's name is given the old b's mtime (as a restore from a backup leaves it)
  const movedAway = (sameMtime: boolean) => async () => {
    const files = ['a', 'b'].map((p) => [0, 1].map((i) => session(p, `${p}${i}`)));
    const t = Date.now() / 1000 - 3600;
    for (const d of [root, path.join(root, 'a'), path.join(root, 'b')]) fs.utimesSync(d, t, t);
    const early = new EarlyWatches(64);
    open.push(early);
    const { folders, initial } = scan(early);
    const away = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-away-'));
    open.push({ close: () => fs.rmSync(away, { recursive: true, force: true }) });
    fs.renameSync(path.join(root, 'a'), path.join(away, 'a'));
    fs.renameSync(path.join(root, 'b'), path.join(away, 'b'));
    // b made again under its name, with one of its files (another inode)
    fs.mkdirSync(path.join(root, 'b'));
    fs.writeFileSync(files[1][0], header('b0'));
    const t2 = sameMtime ? t : t - 60;
    fs.utimesSync(path.join(root, 'b'), t2, t2);
    // the case is the one meant: the new b's mtime is (or is not) the stamp the walk took of the old b
    expect(fs.statSync(path.join(root, 'b')).mtimeMs === folders.get(path.join(root, 'b'))).toBe(sameMtime);
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, early, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    await col.until((all) => has(all, files[0][0], 'deleted') && has(all, files[0][1], 'deleted') && has(all, files[1][0], 'replaced') && has(all, files[1][1], 'deleted'));
  };
  it('a folder moved away, or made again under its name, between the scan and the watcher: its files are reported', movedAway(false));
  it('a folder made again under its name with the old one\'s mtime (a restore): another inode, its files are reported', movedAway(true));

  it('a folder replaced between its watch and the walk\'s stat of it: the watch heard its own folder go, and is not trusted', async () => {
    const [s0] = [session('p', 's0')];
    const p = path.join(root, 'p');
    const t = Date.now() / 1000 - 3600;
    for (const d of [root, p]) fs.utimesSync(d, t, t);
    // the walk's steps, with the replacement in the window between them: watched (the old p), then stat'ed (the new p)
    const early = new EarlyWatches(64);
    open.push(early);
    for (const d of [root, p]) early.watch(d);
    const away = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-away-'));
    open.push({ close: () => fs.rmSync(away, { recursive: true, force: true }) });
    fs.renameSync(p, path.join(away, 'p'));
    fs.mkdirSync(p);
    fs.writeFileSync(s0, header('s0') + line(0));
    fs.utimesSync(p, t, t); // the root's mtime moved: it is listed again, and what its watch heard is not replayed
    const { folders, initial } = scan();
    for (const d of [root, p]) early.identify(d, fs.statSync(d));
    // the old p's watch hears its move (inotify's move-self) on the next turn of the loop
    await new Promise((r) => setImmediate(r));
    fs.appendFileSync(s0, line(1)); // in the new p, which the old watch does not hear
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, early, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    await col.until((all) => has(all, s0, 'grown'));
  });

  it('without early watches, the first comparison stats every file (the case the early watches spare)', async () => {
    const files = Array.from({ length: 6 }, (_, i) => session(`p${i % 2}`, `s${i}`));
    const { folders, initial } = scan();
    const looked = await lstatsDuring(async () => {
      const w = watchRoot(root, { onChanges: () => undefined, initial, initialFolders: folders, safetyPollMs: 0 });
      open.push(w);
      await w.ready;
    });
    for (const f of files) expect(looked).toContain(f);
  });

  it('a folder that heard more names than it keeps is looked at whole: what changed in it is still reported', async () => {
    const files = Array.from({ length: 3 }, (_, i) => session('p', `s${i}`));
    const early = new EarlyWatches(64, 2);
    open.push(early);
    const { folders, initial } = scan(early);
    const made = ['x', 'y', 'z'].map((id) => {
      const f = path.join(root, 'p', `${id}.jsonl`);
      fs.writeFileSync(f, header(id));
      return f;
    });
    fs.appendFileSync(files[1], line(1));
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, early, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    await col.until((all) => made.every((f) => has(all, f, 'new')) && has(all, files[1], 'grown'));
  });

  it('past its bound the scan watches no more folders; those are compared as before, and a change in them is reported', async () => {
    const files = Array.from({ length: 4 }, (_, i) => session(`p${i}`, `s${i}`));
    const early = new EarlyWatches(2);
    open.push(early);
    const { folders, initial } = scan(early);
    expect(early.size).toBe(2); // the root and one folder
    for (const f of files) fs.appendFileSync(f, line(1));
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, early, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    await col.until((all) => files.every((f) => has(all, f, 'grown')));
    expect(w.watched).toBe(5);
  });

  it('the watches of folders left cold are closed, and so are all of them when the watcher polls', async () => {
    const files = ['a', 'b', 'c'].map((id, i) => {
      const f = session(id, 'session');
      age(f, 3600 * (i + 1));
      return f;
    });
    for (const d of [root, ...files.map((f) => path.dirname(f))]) age(d, 7200);
    const early = new EarlyWatches(64);
    open.push(early);
    const { folders, initial } = scan(early);
    expect(early.size).toBe(4);
    const w = watchRoot(root, { onChanges: () => undefined, initial, initialFolders: folders, early, hotFolders: 1, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    expect(w.cold.size).toBe(2);
    expect(early.size).toBe(0);
    expect(w.watched).toBe(2); // the root and the one hot folder

    const early2 = new EarlyWatches(64);
    open.push(early2);
    const again = scan(early2);
    expect(early2.size).toBe(4);
    const p = watchRoot(root, { onChanges: () => undefined, initial: again.initial, initialFolders: again.folders, early: early2, forcePolling: true, pollIntervalMs: 20 });
    open.push(p);
    await p.ready;
    expect(early2.size).toBe(0);
    expect(p.watched).toBe(0);
  });
});
