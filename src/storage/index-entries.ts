// The content index's entries in memory (content-index.ts): one row per log,
// as columns, for the manifest as loaded and for what this run refreshed.
// As objects (an entry, its parts array, its sha1 string, its manifest line
// and four map entries a log) the index of 100,000 logs held ~80 MB of heap
// once the browser's pass was over; as columns it is its path, a map entry
// and ~70 bytes of typed arrays a log. Rows are found by the log's path as
// the walk and the store name it (absolute), so a lookup builds no string.
//
// On disk the same columns are the manifest (index-manifest.ts).
//
// An entry says what was indexed of a log: its stat when read, its bytes
// [0, to), their sha1 (the first 64 bits), the flags and the parts (ids in
// the segments) its trigrams went into.

import type { ManifestColumns } from './index-manifest.js';
import { firstNotBefore } from '../session/sorted.js';

/** Bits of an entry's flags (the manifest's): the log may hide a word from its trigrams; its stat was taken too close to a change to be trusted. */
export const ALWAYS = 1;
export const RACY = 2;

export interface Entry {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** bytes indexed: [0, to) */
  to: number;
  flags: number;
  sha1: string;
  parts: number[];
}

/** The stat an entry is trusted by. */
export interface EntryStat {
  dev?: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs?: number;
}

/** Numbers of a row, by position. */
const DEV = 0;
const INO = 1;
const SIZE = 2;
const MTIME = 3;
const CTIME = 4;
const TO = 5;
const WIDTH = 6;

/** Bits of a row's state: it holds an entry; this run looked at its log (refreshed: the entry, or none, is current). */
const HAS = 1;
const FRESH = 2;

const NO_PARTS: readonly number[] = [];
/** Binary searches row() makes before it builds a map of the loaded rows. */
const MAP_AFTER = 256;

export class EntryTable {
  /** each row's log, by its path as the store names it; the loaded rows (the first `loaded`) in ascending order */
  private files: string[] = [];
  /** the rows added after the load: the log's path -> row (the loaded ones are found by their order) */
  private readonly added = new Map<string, number>();
  /** the loaded rows by path, once row() was asked more than MAP_AFTER times */
  private byFile: Map<string, number> | undefined;
  private searches = 0;
  private nums = new Float64Array(0);
  private flagBits = new Uint8Array(0);
  private state = new Uint8Array(0);
  /** the sha1's first 64 bits, as two 32-bit halves */
  private shas = new Uint32Array(0);
  /** its first part (-1: none) */
  private first = new Int32Array(0);
  /** all its parts, for the rows with more than one (an append indexed as a part of its own) */
  private readonly more = new Map<number, number[]>();
  size = 0;
  /** rows loaded and not looked at this run */
  unseen = 0;
  /** rows loaded from the manifest */
  loaded = 0;

  row(file: string): number | undefined {
    // a caller that asks in no order, and often (the browser's pass, the Sessions filter), gets a map of the loaded rows
    if (this.byFile === undefined && ++this.searches > MAP_AFTER) this.byFile = new Map(this.files.slice(0, this.loaded).map((f, row) => [f, row]));
    if (this.byFile !== undefined) return this.byFile.get(file) ?? this.added.get(file);
    // the loaded rows by a binary search (a map of 100,000 paths was ~95 ms to build: a search asks once a log, in order, by a cursor)
    const files = this.files;
    const at = firstNotBefore(this.loaded, (row) => files[row] < file);
    return at < this.loaded && files[at] === file ? at : this.added.get(file);
  }

  /**
   * row() for paths asked in ascending order (a search over its sorted logs):
   * each loaded row is passed once, with no search; a path asked out of order
   * is looked up as row() does.
   */
  cursor(): (file: string) => number | undefined {
    let at = 0;
    let last = '';
    return (file) => {
      if (file < last) return this.row(file);
      last = file;
      const files = this.files;
      while (at < this.loaded && files[at] < file) at++;
      return at < this.loaded && files[at] === file ? at : this.added.get(file);
    };
  }

  file(row: number): string {
    return this.files[row];
  }

  /** A row for `file` (a log the manifest did not list), holding no entry. */
  add(file: string): number {
    const row = this.size++;
    if (row === this.state.length) this.grow();
    this.added.set(file, row);
    this.files.push(file);
    this.first[row] = -1;
    return row;
  }

  private grow(): void {
    const n = Math.max(64, this.state.length * 2);
    const copy = <T extends Float64Array | Uint8Array | Uint32Array | Int32Array>(a: T, make: (n: number) => T, width: number): T => {
      const b = make(n * width);
      b.set(a);
      return b;
    };
    this.nums = copy(this.nums, (k) => new Float64Array(k), WIDTH);
    this.flagBits = copy(this.flagBits, (k) => new Uint8Array(k), 1);
    this.state = copy(this.state, (k) => new Uint8Array(k), 1);
    this.shas = copy(this.shas, (k) => new Uint32Array(k), 2);
    this.first = copy(this.first, (k) => new Int32Array(k), 1);
  }

  /**
   * The manifest's entries (index-manifest.ts), a row each, before any other
   * row: the columns become the table's own (no copy). `fileOf` names each
   * key's log. False when any entry is off (a number, a part past `nextPart`,
   * logs out of their ascending order or listed twice): the manifest is
   * damaged, and nothing is loaded.
   */
  loadColumns(c: ManifestColumns, fileOf: (key: string) => string, nextPart: number): boolean {
    if (this.size !== 0 || !validColumns(c, nextPart)) return false;
    const n = c.entries;
    const files: string[] = new Array<string>(n);
    let from = 0;
    let last = '';
    for (let row = 0; row < n; row++) {
      const end = c.keyEnds[row];
      const file = fileOf(c.keys.slice(from, end));
      from = end;
      // in ascending order, each once: found by their order, never by a map
      if (row > 0 && !(last < file)) return false;
      files[row] = last = file;
    }
    const more = c.more;
    for (let i = 0; i < more.length; i += 2 + more[i + 1]) this.more.set(more[i], Array.from(more.subarray(i + 2, i + 2 + more[i + 1])));
    this.files = files;
    this.nums = c.nums;
    this.shas = c.shas;
    this.first = c.first;
    this.flagBits = c.flags;
    this.state = new Uint8Array(n).fill(HAS);
    this.size = this.loaded = this.unseen = n;
    return true;
  }

  /** The manifest's columns of `of` (rows each holding an entry), in their logs' ascending order, each keyed by `keyOf` its log. */
  columns(of: readonly number[], keyOf: (file: string) => string): ManifestColumns {
    const rows = this.ascending(of);
    const n = rows.length;
    const nums = new Float64Array(n * WIDTH);
    const shas = new Uint32Array(n * 2);
    const first = new Int32Array(n);
    const keyEnds = new Uint32Array(n);
    const flags = new Uint8Array(n);
    const more: number[] = [];
    const keys: string[] = [];
    let chars = 0;
    for (let k = 0; k < n; k++) {
      const row = rows[k];
      nums.set(this.nums.subarray(row * WIDTH, row * WIDTH + WIDTH), k * WIDTH);
      shas[k * 2] = this.shas[row * 2];
      shas[k * 2 + 1] = this.shas[row * 2 + 1];
      first[k] = this.first[row];
      flags[k] = this.flagBits[row];
      const parts = this.more.get(row);
      if (parts) more.push(k, parts.length, ...parts);
      const key = keyOf(this.files[row]);
      keys.push(key);
      keyEnds[k] = chars += key.length;
    }
    return { entries: n, nums, shas, first, keyEnds, more: Int32Array.from(more), flags, keys: keys.join('') };
  }

  /** The one writer of a row's entry (a refreshed log's; the loaded ones come as columns). */
  private put(row: number, e: Entry): void {
    const b = row * WIDTH;
    const v = this.nums;
    v[b + DEV] = e.dev;
    v[b + INO] = e.ino;
    v[b + SIZE] = e.size;
    v[b + MTIME] = e.mtimeMs;
    v[b + CTIME] = e.ctimeMs;
    v[b + TO] = e.to;
    this.flagBits[row] = e.flags;
    this.shas[row * 2] = parseInt(e.sha1.slice(0, 8), 16);
    this.shas[row * 2 + 1] = parseInt(e.sha1.slice(8, 16), 16);
    const parts = e.parts;
    this.first[row] = parts.length > 0 ? parts[0] : -1;
    if (parts.length > 1) this.more.set(row, [...parts]);
    else this.more.delete(row);
    this.state[row] |= HAS;
  }

  /** `of` (rows in row order) in their logs' ascending order: the loaded ones are, the few added since are sorted and merged in. */
  private ascending(of: readonly number[]): number[] {
    const files = this.files;
    const byFile = (a: number, b: number) => (files[a] < files[b] ? -1 : files[a] > files[b] ? 1 : 0);
    const old = of.filter((row) => row < this.loaded);
    const added = of.filter((row) => row >= this.loaded).sort(byFile);
    const out: number[] = [];
    let i = 0;
    let k = 0;
    while (i < old.length || k < added.length) out.push(k >= added.length || (i < old.length && files[old[i]] < files[added[k]]) ? old[i++] : added[k++]);
    return out;
  }

  /** Row `row` as this run has it: its log looked at, its entry `e` (undefined: none, a candidate for every query). */
  settle(row: number, e: Entry | undefined): void {
    if (e) this.put(row, e);
    else {
      this.state[row] &= ~HAS;
      this.more.delete(row);
    }
    this.keep(row);
  }

  /** Row `row`'s log was looked at this run and its entry, as it is, is current. */
  keep(row: number): void {
    // (the manifest's rows come first: loaded before any other is added)
    if (!(this.state[row] & FRESH) && row < this.loaded) this.unseen--;
    this.state[row] |= FRESH;
  }

  fresh(row: number): boolean {
    return (this.state[row] & FRESH) !== 0;
  }

  has(row: number): boolean {
    return (this.state[row] & HAS) !== 0;
  }

  flags(row: number): number {
    return this.flagBits[row];
  }

  /** Its entry holds this stat, all five numbers (a stat without dev or ctime is not trusted), and is not racy. */
  trusts(row: number, st: EntryStat): boolean {
    if (!this.has(row) || this.flagBits[row] & RACY) return false;
    const b = row * WIDTH;
    const v = this.nums;
    return v[b + SIZE] === st.size && v[b + MTIME] === st.mtimeMs && v[b + INO] === st.ino && v[b + DEV] === st.dev && v[b + CTIME] === st.ctimeMs;
  }

  /** The stat it was indexed at still matches what a caller knows of the file now (the size, inode and mtime). */
  sameFile(row: number, st: { size: number; ino: number; mtimeMs: number }): boolean {
    const b = row * WIDTH;
    const v = this.nums;
    return v[b + SIZE] === st.size && v[b + INO] === st.ino && v[b + MTIME] === st.mtimeMs;
  }

  parts(row: number): readonly number[] {
    return this.more.get(row) ?? (this.first[row] >= 0 ? [this.first[row]] : NO_PARTS);
  }

  /** Each part of each row this run settled with an entry (the rows that hold a trigram's parts are found from these). */
  eachFreshPart(fn: (part: number, row: number) => void): void {
    for (let row = 0; row < this.size; row++) {
      if ((this.state[row] & (FRESH | HAS)) !== (FRESH | HAS)) continue;
      const more = this.more.get(row);
      if (more) for (const p of more) fn(p, row);
      else if (this.first[row] >= 0) fn(this.first[row], row);
    }
  }

  /** The largest part id it lists (-1: none). */
  lastPart(row: number): number {
    const more = this.more.get(row);
    return more ? Math.max(...more) : this.first[row];
  }

  /** Its sha1's first 64 bits, as the manifest writes them. */
  private sha1(row: number): string {
    return hex8(this.shas[row * 2]) + hex8(this.shas[row * 2 + 1]);
  }

  /** Its entry as an object (for the refresh of one log). */
  entry(row: number): Entry | undefined {
    if (!this.has(row)) return undefined;
    const b = row * WIDTH;
    const v = this.nums;
    const sha1 = this.sha1(row);
    return { dev: v[b + DEV], ino: v[b + INO], size: v[b + SIZE], mtimeMs: v[b + MTIME], ctimeMs: v[b + CTIME], to: v[b + TO], flags: this.flagBits[row], sha1, parts: [...this.parts(row)] };
  }
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/** Every entry of `c` is one a writer makes: finite numbers, `to` within the size, known flags, parts below `nextPart`, keys in order. */
function validColumns(c: ManifestColumns, nextPart: number): boolean {
  const n = c.entries;
  const v = c.nums;
  let end = 0;
  for (let row = 0; row < n; row++) {
    const b = row * WIDTH;
    for (let i = 0; i < WIDTH; i++) if (!Number.isFinite(v[b + i])) return false;
    if (!(v[b + TO] >= 0 && v[b + TO] <= v[b + SIZE]) || c.flags[row] > (ALWAYS | RACY)) return false;
    const p = c.first[row];
    if (p < -1 || p >= nextPart) return false;
    if (c.keyEnds[row] < end) return false;
    end = c.keyEnds[row];
  }
  // each entry with several parts: its position (ascending), its count (2 or more), its parts (the first is `first`'s)
  const more = c.more;
  let last = -1;
  for (let i = 0; i < more.length; ) {
    const row = more[i];
    const count = more[i + 1];
    if (!(row > last && row < n && count >= 2 && i + 2 + count <= more.length) || more[i + 2] !== c.first[row]) return false;
    for (let k = i + 2; k < i + 2 + count; k++) if (!(more[k] >= 0 && more[k] < nextPart)) return false;
    last = row;
    i += 2 + count;
  }
  return true;
}
