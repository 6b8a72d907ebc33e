// Hostile file systems and long runs. Never hang (a FIFO swapped in
// for a session file), never balloon (a followed line that grows past the
// limit), never block the key path (a multi-GB file with no newline), never
// skip silently (FIFOs, sockets, device links, loops, folders named *.jsonl,
// unreadable folders, over-long paths, names that are not UTF-8), and one
// unwatchable folder does not switch the whole root to polling.
// Real files, FIFOs, sockets and sparse files; children where a hang or a
// memory peak must be observed from outside.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupStaleTemps, tempPathFor } from '../../src/storage/atomic-writer.js';
import { followRoot } from '../../src/storage/follow.js';
import { allDiagnostics, loadRootSync, newRootIndex, type RootIndex } from '../../src/storage/load-root.js';
import { MAX_LINE_BYTES } from '../../src/storage/log-reader.js';
import { scanRoot } from '../../src/storage/scan.js';
import { watchRoot, type RootWatcher } from '../../src/storage/watcher.js';
import { cleanupTmp, evs, hdr, isRoot, logText, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs');
const DIST = (m: string) => JSON.stringify(path.join(REPO, 'dist', 'src', 'storage', m));
const EVENTS = evs(...turnRows(1));
const longDirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // over-long paths: GNU rm walks them with openat; fs.rmSync cannot
  for (const d of longDirs) spawnSync('rm', ['-rf', d]);
  cleanupTmp();
});

/**
 * A temp folder in memory (/dev/shm) when there is one, for the big files:
 * 160 MiB of real writes (and GBs of sparse reads) on disk would slow every
 * other test's fsync while the suite runs in parallel.
 */
function memDir(prefix: string): string {
  try {
    const d = fs.mkdtempSync(path.join('/dev/shm', prefix));
    longDirs.push(d);
    return d;
  } catch {
    return tmpDir(prefix);
  }
}

/** Deadline far above the expected time (well under a second): only a hang reaches it. */
const HANG_DEADLINE_MS = 60_000;

function runChild(script: string, timeout = HANG_DEADLINE_MS): { status: number | null; stdout: string; stderr: string; timedOut: boolean } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout, killSignal: 'SIGKILL' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, timedOut: r.signal === 'SIGKILL' };
}

/** Calls `wake` at each event of something a test waits on; returns how to stop. */
type Events = (wake: () => void) => () => void;

/**
 * Resolves with fn()'s value once it is truthy, checked now and at each of
 * `events` (a child's output, a store emit, a watcher's batch), not on a
 * timer; the deadline, far above the expected time, only turns a hang into a
 * failure. A check runs inside the emitter's callback, so it must not throw.
 */
function until<T>(what: string, fn: () => T | undefined | false, events: Events, ms = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let off = () => {};
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const check = () => {
      const v = fn();
      if (!v) return false;
      off();
      clearTimeout(timer);
      resolve(v);
      return true;
    };
    if (!check()) off = events(check);
  });
}

/** A child's output and its end (after its streams closed, so its output is all in). */
function childEvents(c: ChildProcess): Events {
  return (wake) => {
    c.stdout?.on('data', wake);
    c.on('close', wake);
    return () => {
      c.stdout?.off('data', wake);
      c.off('close', wake);
    };
  };
}

/** The store's emits: the follower emits once per applied batch. */
const storeEvents =
  (index: RootIndex): Events =>
  (wake) => {
    const off = index.store.subscribe(wake);
    return () => void off();
  };

/** A bell the test rings from a callback (onChanges, onStatus). */
function bell(): { ring(): void; events: Events } {
  const wakes = new Set<() => void>();
  return {
    ring: () => {
      for (const w of [...wakes]) w();
    },
    events: (wake) => {
      wakes.add(wake);
      return () => void wakes.delete(wake);
    },
  };
}

/** A folder chain below `root` whose absolute path is over PATH_MAX (4096), made with relative mkdirs. */
function overLongChain(root: string): { deep: string; firstTooLong: string } {
  const seg = 'd'.repeat(200);
  const n = Math.ceil(4200 / (seg.length + 1));
  const r = spawnSync('bash', ['-c', `set -e; mkdir -p "$1"; cd "$1"; for i in $(seq ${n}); do mkdir ${seg}; cd ${seg}; done; printf '%s' "$2" > s.jsonl`, 'sh', root, logText(hdr('deep'), EVENTS)]);
  expect(r.status, String(r.stderr)).toBe(0);
  longDirs.push(root);
  let p = root;
  let first = '';
  for (let i = 0; i < n; i++) {
    p = path.join(p, seg);
    if (!first && p.length >= 4096) first = p;
  }
  return { deep: p, firstTooLong: first };
}

// ---- 1. a FIFO never hangs ----------------------------------------------------

describe('a FIFO swapped in for a session file', () => {
  it('load, follow and fork paths open it without blocking and report NOT_A_FILE', () => {
    const root = tmpDir('dsh-fifo-');
    const good = writeLog(path.join(root, 'a.jsonl'), hdr('a'), EVENTS);
    const victim = writeLog(path.join(root, 'b.jsonl'), hdr('b'), EVENTS);
    // Everything runs in a child: on a blocking open() it would hang forever.
    const r = runChild(`
      import fs from 'node:fs';
      import { execFileSync } from 'node:child_process';
      const { loadRootSync, indexFileSafe, allDiagnostics } = await import(${DIST('load-root.js')});
      const { applyChange } = await import(${DIST('follow.js')});
      const index = loadRootSync(${JSON.stringify(root)});
      const b = index.store.get(${JSON.stringify(victim)});
      // the swap, after the listing: mkfifo D/.f; mv D/.f D/b.jsonl
      execFileSync('mkfifo', [${JSON.stringify(path.join(root, '.f'))}]);
      fs.renameSync(${JSON.stringify(path.join(root, '.f'))}, ${JSON.stringify(victim)});
      const out = {};
      // follow: the watcher said "grown" (a stale look), then "replaced"
      const status = [];
      try { applyChange(index, { file: ${JSON.stringify(victim)}, kind: 'grown', size: 999999, ino: 1, mtimeMs: 1 }, (m) => status.push(m)); out.grown = 'no error'; } catch (e) { out.grown = e.code; }
      applyChange(index, { file: ${JSON.stringify(victim)}, kind: 'replaced', size: 0, ino: 2, mtimeMs: 1 }, (m) => status.push(m));
      out.afterReplace = index.files.get(${JSON.stringify(victim)}).refused.map((d) => d.code);
      // load: a fresh indexFile of the listed name
      indexFileSafe(index, ${JSON.stringify(victim)});
      out.load = index.files.get(${JSON.stringify(victim)}).refused.map((d) => d.code + ': ' + d.message);
      // fork: reading the parent's events (stale object) must fail, not block
      try { b.events; out.events = 'read'; } catch (e) { out.events = e.code; }
      // the good file still forks
      const child = index.store.fork({ source: index.store.get(${JSON.stringify(good)}), sessionId: 'kid' });
      out.fork = child.events.length;
      console.log(JSON.stringify(out));`);
    expect(r.timedOut, 'the child hung on the FIFO').toBe(false);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.grown).toBe('NOT_A_FILE');
    expect(out.afterReplace).toEqual(['NOT_A_FILE']);
    expect(out.load).toEqual(['NOT_A_FILE: a FIFO (named pipe), not a regular file: not read']);
    expect(out.events).toBe('NOT_A_FILE');
    expect(out.fork).toBe(EVENTS.length);
  });

  it('`list` always ends while a FIFO and a session file keep swapping under it', async () => {
    const root = tmpDir('dsh-fifo-race-');
    writeLog(path.join(root, 'a.jsonl'), hdr('a'), EVENTS);
    writeLog(path.join(root, '.good'), hdr('b'), EVENTS);
    const names = Array.from({ length: 8 }, (_, i) => `b${i}.jsonl`);
    for (const n of names) fs.copyFileSync(path.join(root, '.good'), path.join(root, n));
    // Eight names swap between a FIFO and a session file (more chances per
    // `list` to open one just after it became a FIFO); niced, so the other
    // test files running meanwhile keep their CPU.
    const swapper = spawn('nice', ['-n', '19', 'sh', '-c', `cd "$1" && while :; do for n in ${names.join(' ')}; do mkfifo .f && mv -f .f $n; cp .good .g && mv -f .g $n; done; done`, 'sh', root], { stdio: 'ignore' });
    children.push(swapper);
    try {
      let fifoSeen = 0;
      for (let i = 0; i < 40; i++) {
        const t0 = Date.now();
        const r = await new Promise<{ code: number | null; out: string; ms: number }>((resolve) => {
          const c = spawn(process.execPath, [CLI, 'list', '--dir', root], { stdio: ['ignore', 'pipe', 'pipe'] });
          children.push(c);
          let out = '';
          c.stdout.on('data', (d) => (out += d));
          const kill = setTimeout(() => c.kill('SIGKILL'), HANG_DEADLINE_MS);
          c.on('exit', (code) => {
            clearTimeout(kill);
            resolve({ code, out, ms: Date.now() - t0 });
          });
        });
        expect(r.code, `list #${i} did not end (hung ${r.ms} ms)`).toBe(0);
        if (r.out.includes('NOT_A_FILE')) fifoSeen++;
      }
      expect(fifoSeen).toBeGreaterThan(0);
    } finally {
      swapper.kill('SIGKILL');
    }
  }, 5 * HANG_DEADLINE_MS);
});

// ---- 2. a followed line that grows past the limit -----------------------------

describe('following a line that grows past the limit', () => {
  it('holds bounded memory (RSS of a following child), reports LINE_TOO_LONG and follows what comes after', async () => {
    const root = memDir('dsh-growline-');
    const file = path.join(root, 'live.jsonl');
    fs.writeFileSync(file, logText(hdr('live'), evs(['turn/start', { turn: 1 }])));
    const script = `
      const { loadRootSync, allDiagnostics } = await import(${DIST('load-root.js')});
      const { followRoot } = await import(${DIST('follow.js')});
      const index = loadRootSync(${JSON.stringify(root)});
      const s0 = index.store.list()[0];
      globalThis.gc?.();
      const base = process.memoryUsage().rss;
      let peak = base;
      const tick = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
      const f = followRoot(index, { onApplied() {
        peak = Math.max(peak, process.memoryUsage().rss);
        const s = index.store.list()[0];
        if (s && s.length === 2) {
          clearInterval(tick); f.close();
          console.log(JSON.stringify({ base, peak, length: s.length, diags: allDiagnostics(index).map((d) => d.code) }));
        }
      } });
      console.log('ready');`;
    const c = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(c);
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    let closed = false;
    c.on('close', () => (closed = true));
    await until('the follower to start', () => out.includes('ready') || closed, childEvents(c));
    const TOTAL = 160 * 1024 * 1024;
    const fd = fs.openSync(file, 'a');
    fs.writeSync(fd, '{"type":"x/blob","seq":1,"time":1,"data":"');
    const chunk = Buffer.alloc(4 * 1024 * 1024, 'x');
    for (let n = 0; n < TOTAL; n += chunk.length) {
      fs.writeSync(fd, chunk);
      // let the follower see the line grow (it must not hold it), without a fixed sleep
      await new Promise((r) => setImmediate(r));
    }
    fs.writeSync(fd, '"}\n' + JSON.stringify({ type: 'turn/end', seq: 2, time: 2, data: { turn: 1, reason: { kind: 'completed' } } }) + '\n');
    fs.closeSync(fd);
    await until('the follower to load the event after the long line', () => out.includes('"length"') || closed, childEvents(c), 120_000);
    const res = JSON.parse(out.split('\n').find((l) => l.includes('"length"')) ?? 'null');
    expect(res, err).not.toBeNull();
    expect(res.diags).toContain('LINE_TOO_LONG');
    expect(res.length).toBe(2);
    // the line is 160 MiB; the follower holds at most the 16 MiB limit plus chunks
    expect(res.peak - res.base).toBeLessThan(MAX_LINE_BYTES + 48 * 1024 * 1024);
    process.stderr.write(`[hostile-fs] following a 160 MiB line: RSS ${(res.base / 2 ** 20).toFixed(0)} -> peak ${(res.peak / 2 ** 20).toFixed(0)} MiB\n`);
  }, 240_000);

  it('a line past 4 GiB (sparse) does not freeze the session: the event after it is followed', async () => {
    const root = memDir('dsh-4g-');
    const file = path.join(root, 'live.jsonl');
    fs.writeFileSync(file, logText(hdr('live'), evs(['turn/start', { turn: 1 }])));
    const index = loadRootSync(root);
    const status: string[] = [];
    const f = followRoot(index, { onStatus: (m) => status.push(m) });
    try {
      const size = fs.statSync(file).size;
      fs.truncateSync(file, size + 4.5 * 1024 ** 3); // 4.5 GiB of zeros, no newline, no disk
      fs.appendFileSync(file, '\n' + JSON.stringify({ type: 'turn/end', seq: 1, time: 2, data: { turn: 1, reason: { kind: 'completed' } } }) + '\n');
      const s = await until(
        'the event after the 4.5 GiB line',
        () => {
          const s = index.store.list()[0];
          return s && s.length === 2 && s;
        },
        storeEvents(index),
        120_000,
      );
      expect(s.diagnostics.map((d) => d.code)).toContain('LINE_TOO_LONG');
      expect(status.filter((m) => /out of range|could not read/.test(m))).toEqual([]);
    } finally {
      f.close();
      fs.rmSync(file, { force: true });
    }
  }, 180_000);
});

// ---- 3. a huge file with no newline ---------------------------------------------

describe('a multi-GB sparse file with no newline', () => {
  it('`list` gives it up after a bounded scan with LINE_TOO_LONG (bytes read measured in /proc)', () => {
    const root = memDir('dsh-sparse-');
    writeLog(path.join(root, 'ok.jsonl'), hdr('ok'), EVENTS);
    const big = path.join(root, 'huge.jsonl');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 20 * 1024 ** 3); // 20 GB of holes: no disk used
    try {
      const r = runChild(`
        import fs from 'node:fs';
        const rchar = () => Number(/rchar: (\\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))[1]);
        const { loadRootSync, allDiagnostics } = await import(${DIST('load-root.js')});
        const r0 = rchar(); const t0 = performance.now();
        const index = loadRootSync(${JSON.stringify(root)});
        console.log(JSON.stringify({ ms: performance.now() - t0, read: rchar() - r0, sessions: index.store.size, diags: allDiagnostics(index) }));`);
      expect(r.timedOut).toBe(false);
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.sessions).toBe(1);
      expect(out.diags).toHaveLength(1);
      expect(out.diags[0]).toMatchObject({ file: big, code: 'LINE_TOO_LONG' });
      expect(out.diags[0].message).toMatch(/the rest of the file is not read/);
      expect(out.read).toBeLessThan(1.5 * 1024 ** 3); // not the 20 GB
      process.stderr.write(`[hostile-fs] load of a 20 GB sparse file: ${out.ms.toFixed(0)} ms, ${(out.read / 2 ** 30).toFixed(2)} GiB read\n`);
    } finally {
      fs.rmSync(big, { force: true });
    }
  }, 120_000);

  it('the TUI scan yields to the event loop while it skips through it (keys stay live)', async () => {
    const root = memDir('dsh-sparse-scan-');
    writeLog(path.join(root, 'a.jsonl'), hdr('a'), EVENTS);
    const big = path.join(root, 'b.jsonl');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 10 * 1024 ** 3);
    writeLog(path.join(root, 'c.jsonl'), hdr('c'), EVENTS);
    try {
      const index = newRootIndex(root);
      let ticks = 0;
      let maxGap = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
        ticks++;
      }, 1);
      // a.jsonl is done at done === 1, b.jsonl (the big one) at done === 2
      let bStart: number | undefined;
      let bEnd: number | undefined;
      const p = await scanRoot(index, {
        onProgress: (pr) => {
          if (pr.done === 1) bStart ??= ticks;
          if (pr.done === 2) bEnd ??= ticks;
        },
        budgetMs: 0,
      });
      clearInterval(ticker);
      expect(p.finished).toBe(true);
      expect(index.store.size).toBe(2);
      expect(allDiagnostics(index).map((d) => `${path.basename(d.file)} ${d.code}`)).toEqual(['b.jsonl LINE_TOO_LONG']);
      const during = bEnd! - bStart!;
      expect(during).toBeGreaterThan(0); // the loop ran (keys, paint) while b was skipped through
      process.stderr.write(`[hostile-fs] scan of a 10 GB sparse file: ${during} loop turns while skipping, longest block ${maxGap.toFixed(0)} ms\n`);
    } finally {
      fs.rmSync(big, { force: true });
    }
  }, 120_000);
});

// ---- 4. no silent skips; non-UTF-8 names -----------------------------------------

describe('entries that are not session files get one clear diagnostic each', () => {
  it('FIFO, socket, device link, symlink loop, dangling link, folder named *.jsonl, over-long path', async () => {
    const root = tmpDir('dsh-skips-');
    const ok = writeLog(path.join(root, 'ok.jsonl'), hdr('ok'), EVENTS);
    spawnSync('mkfifo', [path.join(root, 'fifo.jsonl')]);
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(path.join(root, 'sock.jsonl'), r));
    try {
      fs.symlinkSync('/dev/null', path.join(root, 'dev.jsonl'));
      fs.symlinkSync('loop.jsonl', path.join(root, 'loop.jsonl'));
      fs.symlinkSync('nowhere', path.join(root, 'dangling.jsonl'));
      fs.mkdirSync(path.join(root, 'folder.jsonl'));
      const inner = writeLog(path.join(root, 'folder.jsonl', 'inner.jsonl'), hdr('inner'), EVENTS);
      const { firstTooLong } = overLongChain(path.join(root, 'long'));
      const expected = [
        ['dangling.jsonl', 'NOT_A_FILE', /dangling symbolic link/],
        ['dev.jsonl', 'NOT_A_FILE', /symbolic link to a character device/],
        ['fifo.jsonl', 'NOT_A_FILE', /FIFO/],
        ['folder.jsonl', 'NOT_A_FILE', /folder named like a session file/],
        ['loop.jsonl', 'SYMLINK_LOOP', /loop/],
        ['sock.jsonl', 'NOT_A_FILE', /socket/],
        [path.relative(root, firstTooLong), 'PATH_TOO_LONG', /length limit/],
      ] as const;
      const check = (diags: Array<{ file: string; code: string; message: string }>) => {
        const got = diags.map((d) => [path.relative(root, d.file), d.code, d.message]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
        expect(got.map((g) => [g[0], g[1]])).toEqual([...expected].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((e) => [e[0], e[1]]));
        for (const [name, , re] of expected) expect(got.find((g) => g[0] === name)![2]).toMatch(re);
      };
      const index = loadRootSync(root);
      expect(index.store.list().map((s) => s.file).sort()).toEqual([ok, inner].sort());
      check(allDiagnostics(index));
      // the TUI's scan says the same
      const scanned = newRootIndex(root);
      await scanRoot(scanned);
      check(allDiagnostics(scanned));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('an unreadable folder (checked as an unprivileged user: root reads everything)', (ctx) => {
    if (!isRoot) return ctx.skip('needs root to make a folder unreadable to another user');
    const probe = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', '0']);
    if (probe.status !== 0) return ctx.skip(`setpriv cannot run node as nobody: ${String(probe.stderr || probe.error)}`);
    const root = tmpDir('dsh-unreadable-');
    fs.chmodSync(root, 0o755);
    writeLog(path.join(root, 'ok.jsonl'), hdr('ok'), EVENTS);
    fs.mkdirSync(path.join(root, 'secret'));
    writeLog(path.join(root, 'secret', 'x.jsonl'), hdr('x'), EVENTS);
    fs.chmodSync(path.join(root, 'secret'), 0o700);
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, 'list', '--dir', root], { encoding: 'utf8', timeout: HANG_DEADLINE_MS });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 session\(s\), 1 diagnostic\(s\)/);
    expect(r.stdout).toContain(`${path.join(root, 'secret')}: UNREADABLE_DIR: folder cannot be listed (EACCES`);
  });

  it('a file whose name is not valid UTF-8 is read by its real name, shown sanitised, and followed', async () => {
    const root = tmpDir('dsh-bytes-');
    const rootBuf = Buffer.from(root);
    const name = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0xff]), Buffer.from('.jsonl')]); // latin-1 "café" + a stray byte
    const real = Buffer.concat([rootBuf, Buffer.from('/'), name]);
    fs.writeFileSync(real, logText(hdr('latin'), EVENTS.slice(0, 3)));
    const index = loadRootSync(root);
    expect(allDiagnostics(index)).toEqual([]);
    const s = index.store.get('latin')!;
    expect(s).toBeDefined();
    expect(path.basename(s.file!)).toBe('caf\\xE9\\xFF.jsonl');
    expect(s.events.length).toBe(3);
    // followed: an append to the real file reaches the session
    const f = followRoot(index);
    try {
      fs.appendFileSync(real, EVENTS.slice(3).map((e) => JSON.stringify(e) + '\n').join(''));
      await until('the append to be followed', () => index.store.get('latin')?.length === EVENTS.length, storeEvents(index));
      expect(allDiagnostics(index)).toEqual([]);
    } finally {
      f.close();
    }
    // a fork writes the child next to it and leaves the parent alone
    const child = index.store.fork({ source: index.store.get('latin')!, sessionId: 'kid' });
    expect(child.events.length).toBe(EVENTS.length);
    // the CLI shows it with the escaped name
    const r = spawnSync(process.execPath, [CLI, 'tree', '--dir', root, '--session', 'latin'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const l = spawnSync(process.execPath, [CLI, 'list', '--dir', root], { encoding: 'utf8' });
    expect(l.stdout).toMatch(/2 session\(s\), 0 diagnostic\(s\)/);
  });
});

// ---- 5. one unwatchable folder ------------------------------------------------------

describe('a sub-folder that cannot be watched', () => {
  it('is polled on its own and named; the rest of the root stays watched', async () => {
    const root = tmpDir('dsh-unwatchable-');
    const a = writeLog(path.join(root, 'a.jsonl'), hdr('a'), EVENTS.slice(0, 2));
    const { firstTooLong } = overLongChain(path.join(root, 'long'));
    const changes: string[] = [];
    const unwatched: string[] = [];
    const batches = bell();
    const w: RootWatcher = watchRoot(root, {
      onChanges: (cs) => {
        changes.push(...cs.map((c) => `${path.basename(c.file)} ${c.kind}`));
        batches.ring();
      },
      onUnwatched: (m) => unwatched.push(...m.keys()),
      onModeChange: (mode, why) => changes.push(`MODE ${mode} ${why}`),
    });
    try {
      await w.ready; // the first comparison, delivered
      expect(changes).toContain('a.jsonl new');
      expect(w.mode).toBe('watch');
      expect([...w.unwatched.keys()]).toEqual([firstTooLong]);
      expect(w.unwatched.get(firstTooLong)).toMatch(/ENAMETOOLONG/);
      expect(unwatched).toContain(firstTooLong);
      fs.appendFileSync(a, JSON.stringify(EVENTS[2]) + '\n');
      await until('the append to be seen', () => changes.includes('a.jsonl grown'), batches.events);
      expect(changes.filter((c) => c.startsWith('MODE'))).toEqual([]);
    } finally {
      w.close();
    }
    // and the follower says which folder it polls
    const index = loadRootSync(root);
    const status: string[] = [];
    const said = bell();
    const f = followRoot(index, {
      onStatus: (m) => {
        status.push(m);
        said.ring();
      },
    });
    try {
      await until('the status line', () => status.some((m) => m.includes('cannot be watched')), said.events);
      expect(f.mode).toBe('watch');
      expect(status.find((m) => m.includes('cannot be watched'))).toContain(firstTooLong);
    } finally {
      f.close();
    }
  });
});

// ---- 7. leftover temp files ------------------------------------------------------------

describe('temp files of a writer that is gone', () => {
  it('are removed once their pid is gone (not after an hour); a live or fresh writer\'s temp is kept', () => {
    const root = tmpDir('dsh-deadtemp-');
    const target = path.join(root, 'child.jsonl');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(sleeper);
    try {
      const mk = (pid: number, ageS: number) => {
        const p = tempPathFor(target).replace(`.${process.pid}.`, `.${pid}.`);
        fs.writeFileSync(p, Buffer.alloc(1024 * 1024));
        const t = new Date(Date.now() - ageS * 1000);
        fs.utimesSync(p, t, t);
        return path.basename(p);
      };
      const deadOld = mk(deadPid, 120);
      const deadFresh = mk(deadPid, 0);
      const liveOld = mk(sleeper.pid!, 120);
      expect(cleanupStaleTemps(root)).toEqual([deadOld]);
      expect(fs.readdirSync(root).sort()).toEqual([deadFresh, liveOld].sort());
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});

// ---- 8. error texts ----------------------------------------------------------------------

describe('error texts', () => {
  it('say an errno code once', async () => {
    const { errorText } = await import('../../src/storage/open-file.js');
    const e = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(errorText(e)).toBe('ENOSPC: no space left on device, write');
    expect(errorText(Object.assign(new Error('short read'), { code: 'ESHORT' }))).toBe('ESHORT: short read');
  });
});
