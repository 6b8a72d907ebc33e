// Stats taken ahead on a worker thread (src/storage/stat-ahead.ts): each one
// is the stat of the file handed out, the same numbers statSync gives, in
// the source's order past the ring's end; nothing is lost when the worker is
// behind or gone.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StatAhead, type AheadStat } from '../../src/storage/stat-ahead.js';
import { cleanupTmp, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

/** The worker's stat of the file `ahead` last handed out, waiting for the worker (a generous deadline: a loaded machine). */
async function takeWaiting(ahead: StatAhead, file: string, deadlineMs = 20_000): Promise<AheadStat> {
  const until = performance.now() + deadlineMs;
  for (;;) {
    const st = ahead.take(file);
    if (st !== undefined) return st;
    if (performance.now() > until) throw new Error(`the worker never stat'ed ${file}`);
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
    const seen: string[] = [];
    try {
      for (const f of ahead.files()) {
        seen.push(f);
        const st = await takeWaiting(ahead, f);
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
    try {
      for (const f of ahead.files()) {
        // the worker runs ahead meanwhile; whatever it has for this file is this file's
        const st = n % 500 === 0 ? await takeWaiting(ahead, f) : ahead.take(f);
        if (st !== undefined) {
          expect(st).toEqual(want.get(f));
          answered++;
        }
        n++;
      }
    } finally {
      ahead.close();
    }
    expect(n).toBe(many.length);
    expect(ahead.taken).toBe(answered);
    expect(answered).toBeGreaterThanOrEqual(many.length / 500);
  });

  it('a list known whole is stat\'ed whole before anything is taken', async () => {
    const { files } = someFiles();
    const many = Array.from({ length: 6_000 }, (_, i) => files[i % files.length]);
    const ahead = StatAhead.start(many)!;
    const it = ahead.files()[Symbol.iterator]();
    let r = it.next();
    await takeWaiting(ahead, r.value as string);
    // the worker goes on through the whole list meanwhile: the last file's stat is there before the taker gets to it
    const until = performance.now() + 20_000;
    while (ahead.ready() < many.length && performance.now() < until) await new Promise((res) => setTimeout(res, 2));
    expect(ahead.ready()).toBe(many.length);
    let n = 1;
    for (r = it.next(); !r.done; r = it.next(), n++) expect(ahead.take(r.value)).toBeDefined();
    expect(n).toBe(many.length);
    ahead.close();
  });

  it('answers only for the file it last handed out; once closed it still hands out every file (the caller stats: nothing is lost)', async () => {
    const { files } = someFiles();
    const ahead = StatAhead.start(files)!;
    const it = ahead.files()[Symbol.iterator]();
    expect(ahead.take(files[0])).toBeUndefined(); // nothing handed out yet
    const first = it.next().value as string;
    expect(first).toBe(files[0]);
    await takeWaiting(ahead, first);
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
