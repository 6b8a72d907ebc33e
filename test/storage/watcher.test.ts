import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { listSessionFiles, resolved, watchRoot, type FileChange, type RootWatcher } from '../../src/storage/watcher.js';
import { iterateSessionFiles } from '../../src/storage/walk.js';

let root: string;
const open: RootWatcher[] = [];
const madeOutside: string[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-watch-')));
});
afterEach(() => {
  for (const w of open.splice(0)) w.close();
  fs.rmSync(root, { recursive: true, force: true });
  for (const d of madeOutside.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

// No test here sleeps before an assertion: each waits on an event (a batch, the
// watcher's `ready`, a `sync()` that walked the whole tree, a loop turn), with a
// deadline far above the expected time, so a loaded machine (2 cores, a CPU
// burner beside the suite) only makes them slower, never red.
const DEADLINE_MS = 15_000;

const line = (seq: number, text = 'x') => JSON.stringify({ type: 'assistant/chunk', seq, time: Date.now(), data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text } } }) + '\n';
const header = (id: string) => JSON.stringify({ type: 'session', version: 0, id, createdAt: Date.now() }) + '\n';

/** Creates a file the harness way: temp (dot-file, *.tmp) + fsync + hard link + unlink. */
function harnessCreate(file: string, body: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(tmp, 'wx');
  fs.writeSync(fd, body);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.linkSync(tmp, file);
  fs.unlinkSync(tmp);
}

function append(file: string, text: string): void {
  const fd = fs.openSync(file, 'a');
  fs.writeSync(fd, text);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

interface Collector {
  batches: { at: number; changes: FileChange[] }[];
  all(): FileChange[];
  waitFor(pred: (c: FileChange) => boolean, timeoutMs?: number): Promise<FileChange>;
  clear(): void;
}

function collector(): Collector & { onChanges(c: FileChange[]): void } {
  const batches: { at: number; changes: FileChange[] }[] = [];
  let waiters: { pred: (c: FileChange) => boolean; resolve(c: FileChange): void }[] = [];
  return {
    batches,
    onChanges(changes) {
      batches.push({ at: performance.now(), changes });
      for (const c of changes) {
        waiters = waiters.filter((w) => {
          if (w.pred(c)) {
            w.resolve(c);
            return false;
          }
          return true;
        });
      }
    },
    all: () => batches.flatMap((b) => b.changes),
    clear: () => void batches.splice(0),
    waitFor(pred, timeoutMs = DEADLINE_MS) {
      const seen = batches.flatMap((b) => b.changes).find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('timed out; got ' + JSON.stringify(batches.flatMap((b) => b.changes).map((c) => [path.relative(root, c.file), c.kind])))), timeoutMs);
        waiters.push({
          pred,
          resolve: (c) => {
            clearTimeout(t);
            resolve(c);
          },
        });
      });
    },
  };
}

const is = (file: string, kind: FileChange['kind']) => (c: FileChange) => c.file === file && c.kind === kind;

/** The changes as [path below the root, kind], sorted: what a test compares. */
const kindsOf = (cs: FileChange[]) => cs.map((c) => [path.relative(root, c.file), c.kind]).sort();

/** One loop turn: what was queued so far (fs.watch callbacks, close callbacks) has run. */
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Resolves at the next fs.watch event in `dir`, seen by a watch of our own
 * (closed at once). libuv hands one inotify event to every watch of that folder
 * in the same loop turn, so one `turn()` later the watcher under test has had
 * it too.
 */
function nextEventIn(dir: string): Promise<void> {
  return new Promise((resolve) => {
    const w = fs.watch(dir, () => {
      w.close();
      resolve();
    });
  });
}

const count = (xs: string[], k: string) => xs.filter((x) => x === k).length;
const resources = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');

/**
 * The active resources once `done` holds for them, looked at turn by turn for
 * at most DEADLINE_MS (then as they are: the caller's assertion says what is
 * wrong). A closed handle leaves the list only when its uv_close callback has
 * run, at the end of a loop turn, not inside close().
 */
async function resourcesWhen(done: (r: string[]) => boolean): Promise<string[]> {
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    const r = resources();
    if (done(r) || Date.now() > end) return r;
    await turn();
  }
}

/** A session file in the root that is a symlink to a file outside it: inotify sees no change of its target. */
function linkedOutside(): { target: string; link: string; outside: string } {
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-watch-out-')));
  madeOutside.push(outside);
  const target = path.join(outside, 'real.jsonl');
  fs.writeFileSync(target, header('r'));
  const link = path.join(root, 'link.jsonl');
  fs.symlinkSync(target, link);
  return { target, link, outside };
}

for (const mode of ['watch', 'poll'] as const) {
  describe(`watchRoot (${mode} mode)`, () => {
    const start = (col: ReturnType<typeof collector>, extra: Partial<Parameters<typeof watchRoot>[1]> = {}) => {
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), forcePolling: mode === 'poll', pollIntervalMs: 50, ...extra });
      open.push(w);
      expect(w.mode).toBe(mode);
      return w;
    };

    it('reports new, grown, truncated, replaced and deleted', async () => {
      const col = collector();
      const w = start(col);
      await w.ready;
      expect(col.all()).toEqual([]); // an empty root: the first comparison found nothing
      const f = path.join(root, 'a.jsonl');

      harnessCreate(f, header('a') + line(0));
      const n = await col.waitFor(is(f, 'new'));
      expect(n.size).toBe(fs.statSync(f).size);
      expect(n.ino).toBe(fs.statSync(f).ino);

      append(f, line(1));
      const g = await col.waitFor(is(f, 'grown'));
      expect(g.size).toBe(fs.statSync(f).size);

      fs.truncateSync(f, 10);
      const t = await col.waitFor(is(f, 'truncated'));
      expect(t.size).toBe(10);

      const other = path.join(root, 'a.jsonl.new-copy');
      fs.writeFileSync(other, header('a2') + line(0) + line(1) + line(2));
      fs.renameSync(other, f);
      const r = await col.waitFor(is(f, 'replaced'));
      expect(r.ino).toBe(fs.statSync(f).ino);
      expect(r.size).toBe(fs.statSync(f).size);

      fs.unlinkSync(f);
      const d = await col.waitFor(is(f, 'deleted'));
      expect(d.size).toBe(0);

      // the temp files and the non-session name were never reported, nor are they later
      await w.sync();
      for (const c of col.all()) expect(c.file).toBe(f);
      // each batch has at most one entry per file
      for (const b of col.batches) expect(new Set(b.changes.map((c) => c.file)).size).toBe(b.changes.length);
    });

    it('follows new sub-folders at runtime (rc8 and v0 layouts), including nested ones created at once', async () => {
      const col = collector();
      await start(col).ready;
      const rc8 = path.join(root, '--home-dev-app--', 'sess-1', 'session.jsonl');
      harnessCreate(rc8, header('sess-1'));
      await col.waitFor(is(rc8, 'new'));
      // a second session in the same project folder (one level down already watched)
      const rc8b = path.join(root, '--home-dev-app--', 'sess-2', 'session.jsonl');
      harnessCreate(rc8b, header('sess-2'));
      await col.waitFor(is(rc8b, 'new'));
      const v0 = path.join(root, 'cwd-0123456789ab', 'x~002Fy.jsonl');
      harnessCreate(v0, header('x/y'));
      await col.waitFor(is(v0, 'new'));
      // grows inside the new folders are seen too
      append(rc8, line(0));
      await col.waitFor(is(rc8, 'grown'));
      append(v0, line(0));
      await col.waitFor(is(v0, 'grown'));
      // removing a folder deletes what was in it
      fs.rmSync(path.join(root, '--home-dev-app--'), { recursive: true });
      await col.waitFor(is(rc8, 'deleted'));
      await col.waitFor(is(rc8b, 'deleted'));
      // and a folder re-created with the same name is followed again
      harnessCreate(rc8, header('sess-1 again'));
      await col.waitFor((c) => c.file === rc8 && c.kind === 'new' && col.all().filter((x) => x.file === rc8 && x.kind === 'new').length === 2);
    });

    it('ignores *.tmp, .git and node_modules, but not encoded ids starting with "."', async () => {
      const col = collector();
      const w = start(col);
      await w.ready;
      const dotted = path.join(root, '.hidden.jsonl'); // the encoding of the id ".hidden"
      fs.writeFileSync(dotted, header('h'));
      fs.writeFileSync(path.join(root, 'x.jsonl.tmp'), header('t'));
      fs.writeFileSync(path.join(root, 'notes.txt'), 'hi');
      fs.mkdirSync(path.join(root, 'node_modules', 'p'), { recursive: true });
      fs.writeFileSync(path.join(root, 'node_modules', 'p', 'a.jsonl'), header('n'));
      fs.mkdirSync(path.join(root, '.git'));
      fs.writeFileSync(path.join(root, '.git', 'a.jsonl'), header('g'));
      const ok = path.join(root, 'ok.jsonl');
      fs.writeFileSync(ok, header('ok'));
      await col.waitFor(is(ok, 'new'));
      // a whole walk later, still only these two: the junk is not reported late either
      await w.sync();
      expect(col.all().map((c) => c.file).sort()).toEqual([dotted, ok].sort());
    });

    it('compares against `initial` on start: new, grown, replaced, deleted, unchanged', async () => {
      const same = path.join(root, 'same.jsonl');
      const grew = path.join(root, 'grew.jsonl');
      const repl = path.join(root, 'repl.jsonl');
      const fresh = path.join(root, 'sub', 'fresh.jsonl');
      const gone = path.join(root, 'gone.jsonl');
      for (const f of [same, grew, repl, fresh]) harnessCreate(f, header(path.basename(f)) + line(0));
      const st = (f: string) => {
        const s = fs.statSync(f);
        return { size: s.size, ino: s.ino, mtimeMs: s.mtimeMs };
      };
      const initial = new Map([
        [same, st(same)],
        [grew, { ...st(grew), size: 5 }],
        [repl, { ...st(repl), ino: st(repl).ino + 1_000_000 }],
        [gone, { size: 3, ino: 42, mtimeMs: 0 }],
      ]);
      const col = collector();
      const w = start(col, { initial });
      await w.ready; // the first comparison is delivered, all of it
      const kinds = Object.fromEntries(col.all().map((c) => [path.relative(root, c.file), c.kind]));
      expect(kinds).toEqual({ 'grew.jsonl': 'grown', 'repl.jsonl': 'replaced', 'gone.jsonl': 'deleted', [path.join('sub', 'fresh.jsonl')]: 'new' });
      expect(col.batches.length).toBe(1);
      await w.sync(); // and nothing else comes after it
      expect(col.batches.length).toBe(1);
    });

    it('compares against `initial` on start: a file whose mtime alone moved is looked at (known takes its stat; same size and inode: no change to report)', async () => {
      const f = path.join(root, 'touched.jsonl');
      const same = path.join(root, 'same.jsonl');
      harnessCreate(f, header('t') + line(0));
      harnessCreate(same, header('s') + line(0));
      const s = fs.statSync(f);
      const kept = { size: fs.statSync(same).size, ino: fs.statSync(same).ino, mtimeMs: fs.statSync(same).mtimeMs };
      const col = collector();
      const w = start(col, { initial: new Map([[f, { size: s.size, ino: s.ino, mtimeMs: s.mtimeMs - 1000 }], [same, kept]]) });
      await w.ready;
      expect(col.all()).toEqual([]);
      expect(w.known.get(f)?.mtimeMs).toBe(s.mtimeMs);
      expect(w.known.get(same)).toBe(kept); // unchanged: the entry it was given
    });

    it('without `initial`, existing session files are reported once as new', async () => {
      const a = path.join(root, 'flat.jsonl');
      const b = path.join(root, '--p--', 'id', 'session.jsonl');
      harnessCreate(a, header('a'));
      harnessCreate(b, header('b'));
      const col = collector();
      const w = start(col);
      await w.ready;
      expect(kindsOf(col.all())).toEqual([
        [path.relative(root, b), 'new'],
        ['flat.jsonl', 'new'],
      ]);
      await w.sync(); // once: a whole walk later, nothing more
      expect(col.all().length).toBe(2);
    });

    it('a burst is reported by its net kind (truncate then regrow past the old size = truncated; delete + recreate = replaced)', async () => {
      const f = path.join(root, 'burst.jsonl');
      harnessCreate(f, header('b') + line(0));
      const col = collector();
      // Watch mode: the window never closes by itself during the test (a
      // one-second window still split a burst when a loaded machine stalled the
      // test between its two writes: a suite run beside CPU burners caught it);
      // sync() delivers the burst, with no safety poll to deliver it half-way.
      // What is checked is the net kind of one delivered burst; coalescing by
      // the window's timer has its own test below. Poll mode: each burst below
      // is written with no yield, so no tick can fall inside it at any period.
      const w = start(col, mode === 'watch' ? { coalesceMs: 600_000, safetyPollMs: 0 } : {});
      const delivered = async () => {
        if (mode === 'watch') await w.sync(); // the burst's one delivery
        return col.waitFor((c) => c.file === f);
      };
      await w.ready;
      expect(kindsOf(col.all())).toEqual([['burst.jsonl', 'new']]);
      col.clear();
      if (mode === 'watch') {
        // Watch mode stats at each event: once the truncation's event has been
        // handed out (to our own watch, and in the same loop turn to the
        // watcher's), the watcher has seen the short file, so a regrow past the
        // old size in the same window still reads as a truncation. An event
        // spaces the two writes, not a sleep that a loaded machine may outlast.
        const seen = nextEventIn(root);
        fs.truncateSync(f, 0);
        await seen;
        await turn();
      } else {
        // A poller sees only what exists at its ticks: with no yield between the
        // two writes, no tick falls between them, and the burst reads as the net
        // size change.
        fs.truncateSync(f, 0);
      }
      fs.writeFileSync(f, header('b') + line(0) + line(1) + line(2), { flag: 'r+' });
      const first = await delivered();
      await w.sync();
      expect(first.kind).toBe(mode === 'watch' ? 'truncated' : 'grown');
      expect(first.size).toBe(fs.statSync(f).size);
      expect(col.all().length).toBe(1); // one change, with the final size
      col.clear();
      // a second name keeps the old inode taken, so the new file cannot get it back (a new file
      // made after the unlink took the freed inode only when no other process freed a lower one
      // meanwhile: beside a suite's other workers one did)
      fs.linkSync(f, path.join(root, 'keep-inode-busy.txt'));
      fs.unlinkSync(f);
      harnessCreate(f, header('b2'));
      const r = await delivered();
      expect(r.kind).toBe('replaced');
      expect(r.size).toBe(fs.statSync(f).size);
      await w.sync();
      expect(col.all().length).toBe(1);
    });

    it('coalesces: 100 quick appends arrive in a few batches, one entry per file, final size last', async () => {
      const f = path.join(root, 'busy.jsonl');
      const g = path.join(root, 'other.jsonl');
      harnessCreate(f, header('busy'));
      harnessCreate(g, header('other'));
      const col = collector();
      const w = start(col);
      await w.ready;
      expect(kindsOf(col.all())).toEqual([['busy.jsonl', 'new'], ['other.jsonl', 'new']]);
      col.clear();
      const fd = fs.openSync(f, 'a');
      const fd2 = fs.openSync(g, 'a');
      // no fsync between appends: on a loaded machine each one can take tens of ms,
      // which spreads the burst over many coalescing windows (timing, not behaviour)
      for (let i = 0; i < 100; i++) {
        fs.writeSync(fd, line(i));
        if (i % 10 === 0) fs.writeSync(fd2, line(i));
        if (i % 5 === 0) await turn();
      }
      fs.closeSync(fd);
      fs.closeSync(fd2);
      const size = fs.statSync(f).size;
      const size2 = fs.statSync(g).size;
      await col.waitFor((c) => c.file === f && c.size === size);
      await w.sync(); // whatever was still coming has come
      console.log(`[watcher coalescing ${mode}] 100 appends -> ${col.batches.length} batch(es)`);
      expect(col.batches.length).toBeLessThanOrEqual(20); // far fewer batches than appends
      for (const b of col.batches) {
        expect(new Set(b.changes.map((c) => c.file)).size).toBe(b.changes.length);
        for (const c of b.changes) expect(c.kind).toBe('grown');
      }
      const sizes = col.all().filter((c) => c.file === f).map((c) => c.size);
      expect([...sizes].sort((a, b) => a - b)).toEqual(sizes);
      expect(sizes[sizes.length - 1]).toBe(size);
      expect(col.all().filter((c) => c.file === g).at(-1)?.size).toBe(size2);
    });

    it('a throwing onChanges does not stop the watcher', async () => {
      const col = collector();
      const w = watchRoot(root, {
        forcePolling: mode === 'poll',
        pollIntervalMs: 50,
        // no safety poll: it would report the second file even if a throw had stopped the events
        safetyPollMs: 0,
        onChanges: (c) => {
          col.onChanges(c);
          throw new Error('consumer bug');
        },
      });
      open.push(w);
      await w.ready;
      const one = path.join(root, 'one.jsonl');
      const two = path.join(root, 'two.jsonl');
      fs.writeFileSync(one, header('1'));
      await col.waitFor(is(one, 'new'));
      fs.writeFileSync(two, header('2'));
      await col.waitFor(is(two, 'new'));
      await w.sync();
      expect(col.batches.length).toBe(2); // one call each, none repeated after a throw
    });

    it('close() stops everything and leaves no handles', async () => {
      fs.mkdirSync(path.join(root, 'd1', 'd2'), { recursive: true });
      // handles closed by earlier tests leave the list at the end of a loop turn
      await turn();
      await turn();
      const before = resources();
      const col = collector();
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), forcePolling: mode === 'poll', pollIntervalMs: 20 });
      await w.ready;
      const during = process.getActiveResourcesInfo();
      if (mode === 'watch') expect(count(during, 'FSEventWrap')).toBeGreaterThanOrEqual(3);
      w.close();
      w.close(); // idempotent
      const after = await resourcesWhen((r) => count(r, 'FSEventWrap') <= count(before, 'FSEventWrap'));
      expect(count(after, 'FSEventWrap')).toBe(count(before, 'FSEventWrap'));
      expect(count(after, 'Timeout')).toBeLessThanOrEqual(count(before, 'Timeout'));
      expect(count(after, 'Immediate')).toBeLessThanOrEqual(count(before, 'Immediate'));
      // nothing can deliver any more: a rescan schedules no timer (so no later
      // batch can come, without waiting to see), sync() and ready answer at once
      fs.writeFileSync(path.join(root, 'd1', 'late.jsonl'), header('late'));
      w.rescan();
      const later = resources();
      expect(count(later, 'Timeout')).toBeLessThanOrEqual(count(before, 'Timeout'));
      expect(count(later, 'Immediate')).toBeLessThanOrEqual(count(before, 'Immediate'));
      await w.sync();
      await w.ready;
      expect(col.all()).toEqual([]);
    });

    it('ready and sync() resolve when close() comes first, and nothing is delivered', async () => {
      harnessCreate(path.join(root, 'a.jsonl'), header('a'));
      const col = collector();
      const w = start(col);
      const pending = w.sync();
      w.close();
      await w.ready;
      await pending;
      await w.sync();
      expect(col.all()).toEqual([]);
    });

    it('sync() resolves once every change made before the call is delivered, never inside the call', async () => {
      // The link's target is outside the root: no event (watch mode) and no poll
      // tick (a minute away) reports its growth; only the walk sync() asks for.
      const { target } = linkedOutside();
      const col = collector();
      const w = start(col, { pollIntervalMs: 60_000, safetyPollMs: 0 });
      await w.ready;
      expect(kindsOf(col.all())).toEqual([['link.jsonl', 'new']]);
      append(target, line(0));
      const synced = w.sync();
      expect(col.all().length).toBe(1); // not delivered inside the caller's stack
      await synced;
      expect(col.all().map((c) => c.kind)).toEqual(['new', 'grown']);
      expect(col.all()[1].size).toBe(fs.statSync(target).size);
      // two calls at once are answered (by one walk or two), with nothing new to report
      await Promise.all([w.sync(), w.sync()]);
      expect(col.all().length).toBe(2);
    });

    it('sync() called inside onChanges is answered by a later walk, which sees what changed before the call', async () => {
      harnessCreate(path.join(root, 'a.jsonl'), header('a'));
      const { target } = linkedOutside();
      const col = collector();
      let depth = 0;
      let deepest = 0;
      let inner: Promise<void> | undefined;
      const w: RootWatcher = watchRoot(root, {
        forcePolling: mode === 'poll',
        pollIntervalMs: 60_000,
        safetyPollMs: 0,
        onChanges: (c) => {
          deepest = Math.max(deepest, ++depth);
          col.onChanges(c);
          if (!inner) {
            // inside the first delivery: a change no event reports, then sync()
            append(target, line(0));
            inner = w.sync();
          }
          depth--;
        },
      });
      open.push(w);
      await w.ready;
      expect(inner).toBeDefined();
      expect(kindsOf(col.all())).toEqual([['a.jsonl', 'new'], ['link.jsonl', 'new']]);
      await inner;
      expect(kindsOf(col.all())).toEqual([['a.jsonl', 'new'], ['link.jsonl', 'grown'], ['link.jsonl', 'new']]);
      expect(deepest).toBe(1); // never delivered inside a delivery
    });

    it(`latency from append to onChanges (${mode})`, async () => {
      const f = path.join(root, 'lat.jsonl');
      harnessCreate(f, header('lat'));
      const col = collector();
      const pollIntervalMs = 250; // the default
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), forcePolling: mode === 'poll', pollIntervalMs });
      open.push(w);
      await w.ready;
      expect(kindsOf(col.all())).toEqual([['lat.jsonl', 'new']]);
      const lat: number[] = [];
      // Each append follows the previous delivery at once: in poll mode that is
      // just after a tick, so every sample is the worst case (about one period),
      // which is what the poll bound is about; a random pause between samples
      // would only spread them and cost a second. Watch mode has no phase.
      for (let i = 0; i < 8; i++) {
        const t0 = performance.now();
        append(f, line(i));
        const size = fs.statSync(f).size;
        await col.waitFor((c) => c.file === f && c.size === size);
        lat.push(performance.now() - t0);
      }
      lat.sort((a, b) => a - b);
      const med = lat[lat.length >> 1];
      console.log(`[watcher latency ${mode}] min ${lat[0].toFixed(1)} ms, median ${med.toFixed(1)} ms, max ${lat[lat.length - 1].toFixed(1)} ms`);
      // Measured, printed, and bounded only loosely: an idle machine sees about
      // 20 ms (watch) and one period (poll), a loaded one (2 cores, a CPU burner
      // beside the suite) can add hundreds of ms of scheduling delay. The bounds
      // catch a real bug (a lost event waiting for the 2 s safety poll, a poll
      // that skips ticks), not a slow machine.
      if (mode === 'watch') expect(med).toBeLessThan(1000);
      else expect(lat[lat.length - 1]).toBeLessThan(pollIntervalMs + 1000);
    });
  });
}

describe('watchRoot fallbacks', () => {
  it('a missing root falls back to polling with a reason and picks the folder up once it appears', async () => {
    const missing = path.join(root, 'not-yet');
    const col = collector();
    const modes: [string, string | undefined][] = [];
    const w = watchRoot(missing, { onChanges: (c) => col.onChanges(c), onModeChange: (m, r) => modes.push([m, r]), pollIntervalMs: 30 });
    open.push(w);
    expect(w.mode).toBe('poll');
    expect(w.fallbackReason).toMatch(/not a directory/);
    expect(modes).toEqual([]); // said soon, not inside watchRoot()
    await w.ready;
    expect(modes[0]?.[0]).toBe('poll');
    const f = path.join(missing, '--p--', 'id', 'session.jsonl');
    harnessCreate(f, header('id'));
    await col.waitFor(is(f, 'new'));
  });

  it('forcePolling reports no fallback reason and never calls onModeChange', async () => {
    const modes: string[] = [];
    const w = watchRoot(root, { onChanges: () => {}, onModeChange: (m) => modes.push(m), forcePolling: true });
    open.push(w);
    await w.ready; // past the moment a fallback would be said
    await w.sync();
    expect(w.mode).toBe('poll');
    expect(w.fallbackReason).toBeUndefined();
    expect(modes).toEqual([]);
  });

  it('rescan() reports a change the watcher was not told about (symlinked file target)', async () => {
    const { target, link } = linkedOutside();
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    expect(kindsOf(col.all())).toEqual([['link.jsonl', 'new']]);
    append(target, line(0));
    // A change inside the root after the append: once it is reported, every
    // event before it has been handled, and none made the link grow (there is
    // no event inside the root for a target outside it).
    const marker = path.join(root, 'marker.jsonl');
    fs.writeFileSync(marker, header('m'));
    await col.waitFor(is(marker, 'new'));
    expect(col.all().filter((c) => c.kind === 'grown')).toEqual([]);
    w.rescan();
    const g = await col.waitFor(is(link, 'grown'));
    expect(g.size).toBe(fs.statSync(target).size);
  });

  it('the safety poll catches changes in watch mode without any event', async () => {
    const { target, link } = linkedOutside();
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), safetyPollMs: 100 });
    open.push(w);
    await w.ready;
    expect(kindsOf(col.all())).toEqual([['link.jsonl', 'new']]);
    append(target, line(0));
    // nothing but the safety poll can report it (no event, no rescan, no sync)
    await col.waitFor(is(link, 'grown'));
  });
});

describe('watchRoot: many session folders (hotFolders)', () => {
  /** rc.8 layout: root/project/<id>/session.jsonl, written `ageS` seconds ago */
  function sessionFolder(id: string, ageS: number): string {
    const f = path.join(root, 'proj', id, 'session.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, header(id));
    const t = Date.now() / 1000 - ageS;
    fs.utimesSync(f, t, t);
    return f;
  }
  const initialOf = (files: string[]) => new Map(files.map((f) => { const st = fs.statSync(f); return [f, { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]; }));

  it('the safety poll keeps the entry of a file that did not change (a new one per file a round was old-generation garbage)', async () => {
    const files = ['a', 'b', 'c'].map((id, i) => sessionFolder(id, 3600 * (i + 1)));
    const initial = initialOf(files);
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, hotFolders: 1, safetyPollMs: 10 });
    open.push(w);
    await w.ready;
    const rounds = async (n: number) => {
      const deadline = Date.now() + 30_000;
      while (w.safetyRounds < n) {
        if (Date.now() > deadline) throw new Error(`only ${w.safetyRounds} safety rounds in 30 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await rounds(2);
    for (const f of files) expect(w.known.get(f)).toBe(initial.get(f));
    // c is in a cold folder: only the safety poll sees it grow, and then it has a new entry
    append(files[2], line(0));
    await col.waitFor(is(files[2], 'grown'));
    expect(w.known.get(files[2])).not.toBe(initial.get(files[2]));
    expect(w.known.get(files[2])?.size).toBe(fs.statSync(files[2]).size);
    const after = w.safetyRounds;
    await rounds(after + 2);
    expect(w.known.get(files[0])).toBe(initial.get(files[0]));
    expect(w.known.get(files[1])).toBe(initial.get(files[1]));
    expect(col.all().map((c) => [path.basename(path.dirname(c.file)), c.kind])).toEqual([['c', 'grown']]);
  });

  it('watches only the most recently written ones; an older one that changes is seen by the safety poll and watched from then on', async () => {
    const files = ['a', 'b', 'c', 'd', 'e'].map((id, i) => sessionFolder(id, 3600 * (i + 1))); // a newest, e oldest
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial: initialOf(files), hotFolders: 2, safetyPollMs: 50 });
    open.push(w);
    await w.ready;
    expect(col.all()).toEqual([]);
    // the two newest session folders, the root and the project folder are watched; c, d, e are not
    expect([...w.cold].map((d) => path.basename(d)).sort()).toEqual(['c', 'd', 'e']);
    expect(w.watched).toBe(4);
    // an agent resumes the oldest session: no watch sees it, the safety poll does
    append(files[4], line(0));
    await col.waitFor(is(files[4], 'grown'));
    expect([...w.cold].map((d) => path.basename(d)).sort()).toEqual(['c', 'd']);
    expect(w.watched).toBe(5);
    // a new file in a cold folder is found too (its folder's mtime changed)
    const extra = path.join(path.dirname(files[3]), 'session.v1.jsonl');
    fs.writeFileSync(extra, header('d'));
    await col.waitFor(is(extra, 'new'));
    expect([...w.cold].map((d) => path.basename(d))).toEqual(['c']);
    // sync() walks every folder, cold ones included
    append(files[2], line(0));
    await w.sync();
    expect(col.all().some(is(files[2], 'grown'))).toBe(true);
    // a new session folder is watched at once, however many there are
    const fresh = path.join(root, 'proj', 'f', 'session.jsonl');
    harnessCreate(fresh, header('f'));
    await col.waitFor(is(fresh, 'new'));
    append(fresh, line(0));
    await col.waitFor(is(fresh, 'grown'));
  });

  it('starting from a walk, a cold folder\'s file that changed meanwhile is left to the safety poll, which reports it', async () => {
    const files = ['a', 'b', 'c'].map((id, i) => sessionFolder(id, 3600 * (i + 1)));
    for (const d of [root, path.join(root, 'proj'), ...files.map((f) => path.dirname(f))]) { const t = Date.now() / 1000 - 7200; fs.utimesSync(d, t, t); }
    const folders = new Map<string, number>();
    for (const _ of iterateSessionFiles(root, undefined, (d, stamp) => folders.set(d, stamp))) void _;
    const initial = initialOf(files); // what the scan read
    append(files[2], line(0)); // the oldest session grows between the scan and the watcher
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, hotFolders: 1, safetyPollMs: 50 });
    open.push(w);
    await w.ready;
    expect(w.cold.size).toBe(2);
    await col.waitFor(is(files[2], 'grown'));
  });

  it('starting from a walk, a cold folder is not looked at again at the first comparison; a file added to it meanwhile is found by the safety poll', async () => {
    const files = ['a', 'b', 'c'].map((id, i) => sessionFolder(id, 3600 * (i + 1)));
    for (const d of [root, path.join(root, 'proj'), ...files.map((f) => path.dirname(f))]) { const t = Date.now() / 1000 - 7200; fs.utimesSync(d, t, t); }
    const folders = new Map<string, number>();
    for (const _ of iterateSessionFiles(root, undefined, (d, stamp) => folders.set(d, stamp))) void _;
    const initial = initialOf(files);
    // between the walk and the watcher: a new generation file in the oldest session's folder
    const extra = path.join(path.dirname(files[2]), 'session.v1.jsonl');
    fs.writeFileSync(extra, header('c'));
    const looked: string[] = [];
    const real = fs.statSync.bind(fs);
    const spy = vi.spyOn(fs, 'statSync').mockImplementation(((p: fs.PathLike, o?: never) => {
      looked.push(String(p));
      return real(p, o);
    }) as typeof fs.statSync);
    const col = collector();
    let w: ReturnType<typeof watchRoot>;
    try {
      w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial, initialFolders: folders, hotFolders: 1, safetyPollMs: 50 });
      open.push(w);
      await w.ready;
    } finally {
      spy.mockRestore();
    }
    expect([...w.cold].map((d) => path.basename(d)).sort()).toEqual(['b', 'c']);
    // the hot folders were stat'ed (their mtimes compared), the cold ones not
    expect(looked).toContain(path.dirname(files[0]));
    expect(looked).not.toContain(path.dirname(files[1]));
    expect(looked).not.toContain(path.dirname(files[2]));
    expect(col.all()).toEqual([]);
    await col.waitFor(is(extra, 'new'));
  });

  it('a deleted cold folder is reported deleted and forgotten', async () => {
    const files = ['a', 'b', 'c'].map((id, i) => sessionFolder(id, 3600 * (i + 1)));
    const col = collector();
    const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), initial: initialOf(files), hotFolders: 1, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    expect(w.cold.size).toBe(2);
    fs.rmSync(path.dirname(files[2]), { recursive: true });
    await col.waitFor(is(files[2], 'deleted'));
    await w.sync();
    expect([...w.cold].map((d) => path.basename(d))).toEqual(['b']);
  });
});

describe('watchRoot: starting from a walk just done (initialFolders)', () => {
  /** What a scan hands over: every folder with its mtime before listing, and every file's stat. */
  function walked(): { folders: Map<string, number>; initial: Map<string, { size: number; ino: number; mtimeMs: number }> } {
    const folders = new Map<string, number>();
    const files = [...iterateSessionFiles(root, undefined, (d, stamp) => folders.set(d, stamp))];
    return { folders, initial: new Map(files.map((f) => { const st = fs.statSync(f); return [f, { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs }]; })) };
  }
  const age = (p: string, s: number) => { const t = Date.now() / 1000 - s; fs.utimesSync(p, t, t); };

  it('lists only the folders that changed since the walk, and still sees every change made meanwhile', async () => {
    const a = path.join(root, 'p', 'a', 'session.jsonl');
    const b = path.join(root, 'p', 'b', 'session.jsonl');
    const c = path.join(root, 'p', 'c', 'session.jsonl');
    for (const f of [a, b, c]) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, header(path.basename(path.dirname(f))));
    }
    for (const d of [root, path.join(root, 'p'), ...[a, b, c].map((f) => path.dirname(f))]) age(d, 3600); // not racy
    const { folders, initial } = walked();
    expect(folders.size).toBe(5);
    expect([...folders.values()].every((v) => !Number.isNaN(v))).toBe(true);
    // between the walk and the watcher: a new file in b, c's folder deleted, a new session folder, an append to a
    const b2 = path.join(path.dirname(b), 'session.v1.jsonl');
    fs.writeFileSync(b2, header('b'));
    fs.rmSync(path.dirname(c), { recursive: true });
    const d = path.join(root, 'p', 'd', 'session.jsonl');
    fs.mkdirSync(path.dirname(d));
    fs.writeFileSync(d, header('d'));
    append(a, line(0));
    const listed: string[] = [];
    const real = fs.readdirSync.bind(fs); // taken before the spy replaces it
    const spy = vi.spyOn(fs, 'readdirSync').mockImplementation(((p: fs.PathLike, o: never) => {
      listed.push(String(p));
      return real(p, o);
    }) as typeof fs.readdirSync);
    const col = collector();
    const w = watchRoot(root, { onChanges: (cs) => col.onChanges(cs), initial, initialFolders: folders, safetyPollMs: 0 });
    open.push(w);
    try {
      await w.ready;
    } finally {
      spy.mockRestore();
    }
    expect(kindsOf(col.all())).toEqual([['p/a/session.jsonl', 'grown'], ['p/b/session.v1.jsonl', 'new'], ['p/c/session.jsonl', 'deleted'], ['p/d/session.jsonl', 'new']]);
    // the root and p/a were not listed again (unchanged mtimes); p (new d, c gone), p/b (new file) and the new p/d were
    expect(listed.map((x) => path.relative(root, x)).sort()).toEqual(['p', 'p/b', 'p/d']);
    // the new folder and the unchanged ones are watched: an append shows without a walk
    col.clear();
    append(d, line(0));
    append(a, line(1));
    await col.waitFor(is(d, 'grown'));
    await col.waitFor(is(a, 'grown'));
  });

  it('a folder listed too close to a change (racy) is listed again', async () => {
    const a = path.join(root, 'a.jsonl');
    fs.writeFileSync(a, header('a'));
    const { folders, initial } = walked();
    expect(Number.isNaN(folders.get(root))).toBe(true); // just written: its stamp says "look again"
    const late = path.join(root, 'late.jsonl');
    fs.writeFileSync(late, header('late'));
    age(root, 3600); // even with an mtime that looks unchanged-old, the racy stamp forces a look
    const col = collector();
    const w = watchRoot(root, { onChanges: (cs) => col.onChanges(cs), initial, initialFolders: folders, safetyPollMs: 0 });
    open.push(w);
    await w.ready;
    expect(kindsOf(col.all())).toEqual([['late.jsonl', 'new']]);
  });
});

describe('resolved', () => {
  it('is path.resolve of any path (the same string when it is one already)', () => {
    const seg = fc.constantFrom('a', '.', '..', '', 'b.c', '..b', '.x', 'cwd-0', '...');
    fc.assert(
      fc.property(fc.boolean(), fc.array(seg, { maxLength: 8 }), (abs, segs) => {
        const p = (abs ? '/' : '') + segs.join('/');
        expect(resolved(p)).toBe(path.resolve(p));
      }),
      { numRuns: 2000 },
    );
    const plain = path.join(root, 'cwd-0', 'x.jsonl');
    expect(resolved(plain)).toBe(plain);
  });
});

describe('listSessionFiles', () => {
  it('lists all three layouts recursively and sorted, skipping junk and symlinked folders', () => {
    const files = [
      'b.jsonl',
      'a.jsonl',
      'cwd-0123456789ab/x.jsonl',
      '_no-cwd/y.jsonl',
      '--proj--/s1/session.jsonl',
      '--proj--/s2/session.jsonl.zstd',
    ];
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), header(f));
    }
    for (const junk of ['x.jsonl.tmp', 'readme.md', 'node_modules/m/a.jsonl', '.git/a.jsonl', '--proj--/s1/.session.jsonl.123.tmp']) {
      fs.mkdirSync(path.dirname(path.join(root, junk)), { recursive: true });
      fs.writeFileSync(path.join(root, junk), 'junk');
    }
    // loops and escapes through symlinked folders are not followed
    fs.symlinkSync(root, path.join(root, 'loop'));
    fs.symlinkSync(os.tmpdir(), path.join(root, 'escape'));
    fs.symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling.jsonl'));
    const got = listSessionFiles(root);
    expect(got).toEqual(files.map((f) => path.join(root, f)).sort());
    expect(listSessionFiles(path.join(root, 'missing'))).toEqual([]);
  });
});
