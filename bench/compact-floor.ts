/**
 * The floor of a warm start with a compact store: what a start that
 * builds nothing per session would still pay at the least. The fact cache the cold
 * run wrote is turned into columns (a Float64Array of each entry's stat and
 * activity, its path and id as two joined strings, its entry's JSON kept whole for
 * the rows on screen); a bare node process (compact-floor-child.ts) then reads
 * them, stats every folder (a warm walk's cost with the folder listings kept) and
 * every file, checks each stat against its entry as the cache does, sorts by recent
 * and decodes the first screen's 40 entries. No bundle, no Ink: the browser adds
 * those (~0.2 s) to whatever it builds per session.
 *
 * It reads the catalog's format FORMAT_READ (fact-cache.ts CACHE_FORMAT); a cache it cannot
 * read gives no figure (undefined), never a wrong one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runChild, summarize, type Stats } from './floors.js';
import { NUM, TRANSIENT, readCatalog, type Catalog } from '../src/storage/catalog-file.js';

/** the fact cache's format whose catalog this reads (fact-cache.ts CACHE_FORMAT when it was written) */
const FORMAT_READ = 8;

/** per entry: dev, ino, size, mtimeMs, ctimeMs - mtimeMs, activity (last event time, else createdAt) */
export const COLUMNS = 6;

interface Head {
  n: number;
  numBytes: number;
  offBytes: number;
  strBytes: number;
}

/** Writes the columns of the session entries of `factsFile` to `out`; their count, or undefined when the file is not a cache this reads. */
export function writeColumns(factsFile: string, out: string): number | undefined {
  const fd = fs.openSync(factsFile, 'r');
  let cat: Catalog;
  try {
    cat = readCatalog(fd, fs.fstatSync(fd).size);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
  if (!cat.identity.dshBrowseCache.startsWith(`${FORMAT_READ}/`)) return undefined;
  const paths: string[] = [];
  const ids: string[] = [];
  const raws: Buffer[] = [];
  const nums: number[] = [];
  for (let i = 0; i < cat.size; i++) {
    if (cat.num(i, NUM.kind) !== 0) continue; // not a session
    const entry = cat.transient(i, TRANSIENT.head);
    const header = JSON.parse(entry) as { id: string; createdAt: number };
    const last = cat.num(i, NUM.lastEventTime);
    paths.push(cat.transient(i, TRANSIENT.key));
    ids.push(header.id);
    raws.push(Buffer.from(entry));
    nums.push(cat.num(i, NUM.dev), cat.num(i, NUM.ino), cat.num(i, NUM.size), cat.num(i, NUM.mtimeMs), cat.num(i, NUM.ctimeDelta), Number.isNaN(last) ? header.createdAt : last);
  }
  const n = paths.length;
  const num = Buffer.from(new Float64Array(nums).buffer);
  const off = new Float64Array(n + 1);
  for (let i = 0, at = 0; i < n; i++) off[i + 1] = at += raws[i].length;
  const str = Buffer.from(`${paths.join('\n')}\u0000${ids.join('\n')}`);
  const head: Head = { n, numBytes: num.length, offBytes: off.byteLength, strBytes: str.length };
  const headBuf = Buffer.from(JSON.stringify(head).padEnd(252));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(headBuf.length);
  fs.writeFileSync(out, Buffer.concat([len, headBuf, num, Buffer.from(off.buffer), str, ...raws]));
  return n;
}

/** What the child reports. */
export interface FloorRun {
  sessions: number;
  /** entries whose file's stat still matched */
  verified: number;
  /** the newest session's id */
  first: string;
}

/**
 * Reads the columns at `file` for the root `root` (the child's work, exported for it
 * and for the test): a warm start's floor with nothing built per session.
 */
export function compactStart(file: string, root: string): FloorRun {
  const buf = fs.readFileSync(file);
  const hl = buf.readUInt32LE(0);
  const head = JSON.parse(buf.toString('utf8', 4, 4 + hl)) as Head;
  let at = 4 + hl;
  // a copy when the Buffer's offset is not 8-aligned (a pooled slice): rare, and counted in the floor
  const f64 = (bytes: number) => {
    const b = buf.subarray(at, (at += bytes));
    return b.byteOffset % 8 === 0 ? new Float64Array(b.buffer, b.byteOffset, bytes / 8) : new Float64Array(new Uint8Array(b).buffer);
  };
  const num = f64(head.numBytes);
  const off = f64(head.offBytes);
  const strs = buf.toString('utf8', at, (at += head.strBytes));
  const raw = at;
  const z = strs.indexOf('\u0000');
  const paths = strs.slice(0, z).split('\n');
  const ids = strs.slice(z + 1).split('\n');
  const folders = new Set<string>();
  // a key is relative to the root, or absolute for a file outside it (a symlink's target): resolve takes both
  for (const p of paths) folders.add(path.dirname(p));
  for (const d of folders) fs.statSync(path.resolve(root, d));
  let verified = 0;
  for (let i = 0, c = 0; i < head.n; i++, c += COLUMNS) {
    const st = fs.statSync(path.resolve(root, paths[i]), { throwIfNoEntry: false });
    if (st && st.dev === num[c] && st.ino === num[c + 1] && st.size === num[c + 2] && st.mtimeMs === num[c + 3] && st.ctimeMs - st.mtimeMs === num[c + 4]) verified++;
  }
  const order = new Uint32Array(head.n);
  for (let i = 0; i < head.n; i++) order[i] = i;
  order.sort((a, b) => num[b * COLUMNS + 5] - num[a * COLUMNS + 5]);
  for (let k = 0; k < Math.min(40, head.n); k++) JSON.parse(buf.toString('utf8', raw + off[order[k]], raw + off[order[k] + 1]));
  return { sessions: head.n, verified, first: head.n ? ids[order[0]] : '' };
}

/**
 * The floor, whole process (spawn to exit, as the browser's complete list is timed
 * from its spawn), median of `runs` after one warm-up, from the cache folder a cold
 * run filled. Undefined when that folder holds no cache this reads.
 */
export async function compactFloor(cacheHome: string, root: string, runs: number): Promise<{ wall: Stats; run: FloorRun } | undefined> {
  const dir = path.join(cacheHome, 'dsh-browse');
  const facts = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.facts')) : [];
  if (facts.length !== 1) return undefined;
  const cols = path.join(cacheHome, 'compact-columns');
  try {
    if (!writeColumns(path.join(dir, facts[0]), cols)) return undefined;
    const child = path.join(path.dirname(new URL(import.meta.url).pathname), 'compact-floor-child.js');
    const ms: number[] = [];
    let run: FloorRun | undefined;
    for (let i = 0; i <= runs; i++) {
      const r = await runChild(process.execPath, [child, cols, root], { timeoutMs: 120_000 });
      if (r.code !== 0) throw new Error(`compact floor child exited with ${r.code ?? r.signal}: ${r.stderr.slice(0, 500)}`);
      run = JSON.parse(r.stdout) as FloorRun;
      if (i > 0) ms.push(r.ms);
    }
    return { wall: summarize(ms), run: run! };
  } finally {
    fs.rmSync(cols, { force: true });
  }
}
