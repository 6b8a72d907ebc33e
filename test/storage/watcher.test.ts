import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listSessionFiles, watchRoot, type FileChange, type RootWatcher } from '../../src/storage/watcher.js';

let root: string;
const open: RootWatcher[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-watch-')));
});
afterEach(() => {
  for (const w of open.splice(0)) w.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    waitFor(pred, timeoutMs = 5000) {
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

/** Let the watcher settle: initial scan done and nothing pending. */
async function settle(ms = 80): Promise<void> {
  await sleep(ms);
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
      start(col);
      await settle();
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

      // the temp files and the non-session name were never reported
      for (const c of col.all()) expect(c.file).toBe(f);
      // each batch has at most one entry per file
      for (const b of col.batches) expect(new Set(b.changes.map((c) => c.file)).size).toBe(b.changes.length);
    });

    it('follows new sub-folders at runtime (rc8 and v0 layouts), including nested ones created at once', async () => {
      const col = collector();
      start(col);
      await settle();
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
      start(col);
      await settle();
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
      await sleep(150);
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
      start(col, { initial });
      await col.waitFor(is(fresh, 'new'));
      await sleep(100);
      const kinds = Object.fromEntries(col.all().map((c) => [path.relative(root, c.file), c.kind]));
      expect(kinds).toEqual({ 'grew.jsonl': 'grown', 'repl.jsonl': 'replaced', 'gone.jsonl': 'deleted', [path.join('sub', 'fresh.jsonl')]: 'new' });
      expect(col.batches.length).toBe(1);
    });

    it('without `initial`, existing session files are reported once as new', async () => {
      const a = path.join(root, 'flat.jsonl');
      const b = path.join(root, '--p--', 'id', 'session.jsonl');
      harnessCreate(a, header('a'));
      harnessCreate(b, header('b'));
      const col = collector();
      start(col);
      await col.waitFor(is(b, 'new'));
      await col.waitFor(is(a, 'new'));
      await sleep(120);
      expect(col.all().length).toBe(2);
    });

    it('a burst is reported by its net kind (truncate then regrow past the old size = truncated; delete + recreate = replaced)', async () => {
      const f = path.join(root, 'burst.jsonl');
      harnessCreate(f, header('b') + line(0));
      const col = collector();
      // watch mode: the burst fits in one coalescing window; poll mode: in one poll period
      start(col, { coalesceMs: 60, pollIntervalMs: 400 });
      await col.waitFor(is(f, 'new'));
      await settle(mode === 'poll' ? 450 : 120);
      col.clear();
      fs.truncateSync(f, 0);
      // Watch mode stats at each event, so it sees the short file if it gets an
      // event before the regrow; a poller sees only what exists at its ticks, so
      // there a truncate+regrow inside one period reads as the net size change.
      // (No yield in poll mode: a poll tick between the two writes would see the truncation.)
      if (mode === 'watch') await sleep(10);
      fs.writeFileSync(f, header('b') + line(0) + line(1) + line(2), { flag: 'r+' });
      const first = await col.waitFor((c) => c.file === f);
      await settle(mode === 'poll' ? 450 : 120);
      // Watch mode: 'truncated' when the event's stat came before the regrow, which a
      // loaded machine may not give in 10 ms; either way one change with the final size.
      if (mode === 'watch') expect(['truncated', 'grown']).toContain(first.kind);
      else expect(first.kind).toBe('grown');
      expect(first.size).toBe(fs.statSync(f).size);
      expect(col.all().length).toBe(1);
      col.clear();
      fs.unlinkSync(f);
      fs.writeFileSync(path.join(root, 'keep-inode-busy.txt'), 'x');
      harnessCreate(f, header('b2'));
      const r = await col.waitFor((c) => c.file === f);
      expect(r.kind).toBe('replaced');
      expect(r.size).toBe(fs.statSync(f).size);
    });

    it('coalesces: 100 quick appends arrive in a few batches, one entry per file, final size last', async () => {
      const f = path.join(root, 'busy.jsonl');
      const g = path.join(root, 'other.jsonl');
      harnessCreate(f, header('busy'));
      harnessCreate(g, header('other'));
      const col = collector();
      start(col);
      await col.waitFor(is(g, 'new'));
      await settle(120);
      col.clear();
      const fd = fs.openSync(f, 'a');
      const fd2 = fs.openSync(g, 'a');
      // no fsync between appends: on a loaded machine each one can take tens of ms,
      // which spreads the burst over many coalescing windows (timing, not behaviour)
      for (let i = 0; i < 100; i++) {
        fs.writeSync(fd, line(i));
        if (i % 10 === 0) fs.writeSync(fd2, line(i));
        if (i % 5 === 0) await new Promise((r) => setImmediate(r));
      }
      fs.closeSync(fd);
      fs.closeSync(fd2);
      const size = fs.statSync(f).size;
      await col.waitFor((c) => c.file === f && c.size === size);
      await settle(100);
      console.log(`[watcher coalescing ${mode}] 100 appends -> ${col.batches.length} batch(es)`);
      expect(col.batches.length).toBeLessThanOrEqual(20); // far fewer batches than appends
      for (const b of col.batches) {
        expect(new Set(b.changes.map((c) => c.file)).size).toBe(b.changes.length);
        for (const c of b.changes) expect(c.kind).toBe('grown');
      }
      const sizes = col.all().filter((c) => c.file === f).map((c) => c.size);
      expect([...sizes].sort((a, b) => a - b)).toEqual(sizes);
      expect(sizes[sizes.length - 1]).toBe(size);
    });

    it('a throwing onChanges does not stop the watcher', async () => {
      let calls = 0;
      const w = watchRoot(root, {
        forcePolling: mode === 'poll',
        pollIntervalMs: 50,
        onChanges: () => {
          calls++;
          throw new Error('consumer bug');
        },
      });
      open.push(w);
      await settle();
      fs.writeFileSync(path.join(root, 'one.jsonl'), header('1'));
      await sleep(200);
      fs.writeFileSync(path.join(root, 'two.jsonl'), header('2'));
      await sleep(200);
      expect(calls).toBe(2);
    });

    it('close() stops everything and leaves no handles', async () => {
      fs.mkdirSync(path.join(root, 'd1', 'd2'), { recursive: true });
      await sleep(30); // handles closed by earlier tests go away on a later loop turn
      const before = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
      const col = collector();
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), forcePolling: mode === 'poll', pollIntervalMs: 20 });
      await settle();
      const during = process.getActiveResourcesInfo();
      if (mode === 'watch') expect(during.filter((r) => r === 'FSEventWrap').length).toBeGreaterThanOrEqual(3);
      w.close();
      w.close(); // idempotent
      await sleep(30); // uv_close completes on the next loop turn
      const after = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
      const count = (xs: string[], k: string) => xs.filter((x) => x === k).length;
      expect(count(after, 'FSEventWrap')).toBe(count(before, 'FSEventWrap'));
      expect(count(after, 'Timeout')).toBeLessThanOrEqual(count(before, 'Timeout'));
      expect(count(after, 'Immediate')).toBeLessThanOrEqual(count(before, 'Immediate'));
      fs.writeFileSync(path.join(root, 'd1', 'late.jsonl'), header('late'));
      w.rescan();
      await sleep(150);
      expect(col.all()).toEqual([]);
    });

    it(`latency from append to onChanges (${mode})`, async () => {
      const f = path.join(root, 'lat.jsonl');
      harnessCreate(f, header('lat'));
      const col = collector();
      const pollIntervalMs = 250; // the default
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), forcePolling: mode === 'poll', pollIntervalMs });
      open.push(w);
      await col.waitFor(is(f, 'new'));
      await settle(100);
      const lat: number[] = [];
      for (let i = 0; i < 8; i++) {
        const t0 = performance.now();
        append(f, line(i));
        const size = fs.statSync(f).size;
        await col.waitFor((c) => c.file === f && c.size === size);
        lat.push(performance.now() - t0);
        await sleep(20 + Math.random() * 250); // random phase against the poll period
      }
      lat.sort((a, b) => a - b);
      const med = lat[lat.length >> 1];
      console.log(`[watcher latency ${mode}] min ${lat[0].toFixed(1)} ms, median ${med.toFixed(1)} ms, max ${lat[lat.length - 1].toFixed(1)} ms`);
      if (mode === 'watch') expect(med).toBeLessThan(100);
      else expect(lat[lat.length - 1]).toBeLessThan(pollIntervalMs + 150);
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
    await sleep(20);
    expect(modes[0]?.[0]).toBe('poll');
    const f = path.join(missing, '--p--', 'id', 'session.jsonl');
    harnessCreate(f, header('id'));
    await col.waitFor(is(f, 'new'));
  });

  it('forcePolling reports no fallback reason and never calls onModeChange', async () => {
    const modes: string[] = [];
    const w = watchRoot(root, { onChanges: () => {}, onModeChange: (m) => modes.push(m), forcePolling: true });
    open.push(w);
    await sleep(30);
    expect(w.mode).toBe('poll');
    expect(w.fallbackReason).toBeUndefined();
    expect(modes).toEqual([]);
  });

  it('rescan() reports a change the watcher was not told about (symlinked file target)', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-watch-out-'));
    try {
      const target = path.join(outside, 'real.jsonl');
      fs.writeFileSync(target, header('r'));
      const link = path.join(root, 'link.jsonl');
      fs.symlinkSync(target, link);
      const col = collector();
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), safetyPollMs: 0 });
      open.push(w);
      await col.waitFor(is(link, 'new'));
      append(target, line(0));
      await sleep(80);
      expect(col.all().filter((c) => c.kind === 'grown')).toEqual([]); // no event inside the root
      w.rescan();
      const g = await col.waitFor(is(link, 'grown'));
      expect(g.size).toBe(fs.statSync(target).size);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('the safety poll catches changes in watch mode without any event', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-watch-out-'));
    try {
      const target = path.join(outside, 'real.jsonl');
      fs.writeFileSync(target, header('r'));
      const link = path.join(root, 'link.jsonl');
      fs.symlinkSync(target, link);
      const col = collector();
      const w = watchRoot(root, { onChanges: (c) => col.onChanges(c), safetyPollMs: 100 });
      open.push(w);
      await col.waitFor(is(link, 'new'));
      append(target, line(0));
      await col.waitFor(is(link, 'grown'), 1000);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
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
