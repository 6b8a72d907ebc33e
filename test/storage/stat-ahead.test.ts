// Stats taken ahead on a worker thread (src/storage/stat-ahead.ts): each one
// is the stat of the file handed out, the same numbers statSync gives, in
// the source's order past the ring's end; nothing is lost when the worker is
// behind or gone.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LEAD, StatAhead } from '../../src/storage/stat-ahead.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

/** Waits (a generous deadline: a loaded machine) until the worker has stat'ed `n` files. */
async function readyFor(ahead: StatAhead, n: number, deadlineMs = 20_000): Promise<void> {
  const until = performance.now() + deadlineMs;
  while (ahead.ready() < n) {
    if (performance.now() > until) throw new Error(`the worker stat'ed ${ahead.ready()} of ${n} files`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const numbers = (st: fs.Stats) => ({ isFile: st.isFile(), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev, ctimeMs: st.ctimeMs });

function someFiles(): { dir: string; files: string[] } {
  const dir = tmpDir('dsh-ahead-');
  const files: string[] = [];
  for (let i = 0; i < 12; i++) {
    const f = path.join(dir, `f${i}.jsonl`);
    fs.writeFileSync(f, 'x'.repeat(i * 37));
    files.push(f);
  }
  fs.mkdirSync(path.join(dir, 'sub'));
  files.push(path.join(dir, 'sub'));
  fs.symlinkSync(files[3], path.join(dir, 'link.jsonl'));
  files.push(path.join(dir, 'link.jsonl'));
  files.push(path.join(dir, 'gone.jsonl'));
  return { dir, files };
}

describe('StatAhead', () => {
  it("hands out the source's files in order, each with statSync's numbers (a folder is no file, a missing one has no entry)", async () => {
    const { files } = someFiles();
    const ahead = StatAhead.start(files)!;
    expect(ahead).toBeDefined();
    // (a list known whole is sent at once: with nothing taken yet, the worker stats all of it)
    await readyFor(ahead, files.length);
    const seen: string[] = [];
    try {
      for (const f of ahead.files()) {
        seen.push(f);
        const st = ahead.take(f)!;
        const want = fs.statSync(f, { throwIfNoEntry: false });
        if (want === undefined) expect(st.isFile).toBe(false);
        else expect(st).toEqual(numbers(want));
      }
    } finally {
      ahead.close();
    }
    expect(seen).toEqual(files);
    expect(ahead.taken).toBe(files.length);
  });

  it('past the end of its ring (many more files than slots): every stat is still its own file', async () => {
    const { files } = someFiles();
    const real = files.filter((f) => fs.existsSync(f));
    // 10,000 names over a dozen files, from a generator (an array gets a slot a file): the ring of 4,096 slots wraps twice
    const many = Array.from({ length: 10_000 }, (_, i) => real[i % real.length]);
    const want = new Map(real.map((f) => [f, numbers(fs.statSync(f))]));
    const ahead = StatAhead.start((function* () {
      yield* many;
    })())!;
    let n = 0;
    let answered = 0;
    let takenBefore = -1;
    try {
      const it = ahead.files()[Symbol.iterator]();
      for (let r = it.next(); !r.done; r = it.next()) {
        if (n === 5_000) {
          // past the first wrap: the worker, behind or ahead, has the file LEAD past the taker's
          takenBefore = ahead.taken;
          const until = performance.now() + 20_000;
          while (!ahead.has(n + LEAD) && performance.now() < until) await new Promise((res) => setTimeout(res, 2));
          expect(ahead.has(n + LEAD)).toBe(true);
        }
        // whatever the worker has for this file is this file's
        const st = ahead.take(r.value);
        if (st !== undefined) {
          expect(st).toEqual(want.get(r.value));
          answered++;
        }
        n++;
      }
    } finally {
      ahead.close();
    }
    expect(n).toBe(many.length);
    expect(ahead.taken).toBe(answered);
    expect(takenBefore).toBeGreaterThanOrEqual(0);
    expect(ahead.taken).toBeGreaterThan(takenBefore);
  });

  it('a list known whole is stat\'ed whole while nothing is taken', async () => {
    const { files } = someFiles();
    const many = Array.from({ length: 6_000 }, (_, i) => files[i % files.length]);
    const ahead = StatAhead.start(many)!;
    // before anything is taken, the worker stats the whole list (not just a ring's worth)
    await readyFor(ahead, many.length);
    let n = 0;
    for (const f of ahead.files()) {
      expect(ahead.take(f)).toBeDefined();
      n++;
    }
    expect(n).toBe(many.length);
    expect(ahead.taken).toBe(many.length);
    ahead.close();
  });

  it("never takes a slot's older stat for the file that reuses the slot (the worker stopped before it got there)", async () => {
    const { files } = someFiles();
    // two files of different sizes: the i-th path is one, the (i + 4,096)-th the other, same slot
    const [a, b] = [files[1], files[9]];
    const source = function* () {
      for (let i = 0; i < 4_096; i++) yield a;
      for (let i = 0; i < 1_000; i++) yield b;
    };
    const ahead = StatAhead.start(source())!;
    const it = ahead.files()[Symbol.iterator]();
    let n = 0;
    for (let r = it.next(); !r.done; r = it.next(), n++) {
      if (n === 100) {
        // the worker has most of the ring's slots filled with a's stat, then stops
        const until = performance.now() + 20_000;
        while (!ahead.has(n + LEAD) && performance.now() < until) await new Promise((res) => setTimeout(res, 2));
        await readyFor(ahead, 2_000);
        ahead.close();
      }
      const st = ahead.take(r.value);
      if (st !== undefined) expect(st.size, `file ${n}`).toBe(fs.statSync(r.value).size);
    }
    expect(n).toBe(5_096);
  });

  it('answers only for the file it last handed out; once closed it still hands out every file (the caller stats: nothing is lost)', async () => {
    const { files } = someFiles();
    const ahead = StatAhead.start(files)!;
    const it = ahead.files()[Symbol.iterator]();
    await readyFor(ahead, files.length);
    expect(ahead.take(files[0])).toBeUndefined(); // nothing handed out yet
    const first = it.next().value as string;
    expect(first).toBe(files[0]);
    expect(ahead.take(first)).toBeDefined();
    expect(ahead.take(files[1])).toBeUndefined();
    ahead.close();
    // the rest is still handed out, in order; a stat the worker took before it stopped is that file's
    const rest: string[] = [];
    for (let r = it.next(); !r.done; r = it.next()) {
      rest.push(r.value);
      const st = ahead.take(r.value);
      const want = fs.statSync(r.value, { throwIfNoEntry: false });
      if (st !== undefined && want !== undefined) expect(st).toEqual(numbers(want));
    }
    expect(rest).toEqual(files.slice(1));
  });
});
