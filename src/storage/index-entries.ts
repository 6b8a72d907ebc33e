// The content index's entries in memory (content-index.ts): one row per log,
// as columns, for the manifest as loaded and for what this run refreshed.
// As objects (an entry, its parts array, its sha1 string, its manifest line
// and four map entries a log) the index of 100,000 logs held ~80 MB of heap
// once the browser's pass was over; as columns it is its path, a map entry
// and ~70 bytes of typed arrays a log. Rows are found by the log's path as
// the walk and the store name it (absolute), so a lookup builds no string.
//
// An entry says what was indexed of a log: its stat when read, its bytes
// [0, to), their sha1 (the first 64 bits), the flags and the parts (ids in
// the segments) its trigrams went into.

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

export class EntryTable {
  /** the log's path -> row */
  private readonly rows = new Map<string, number>();
  private files: string[] = [];
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
    return this.rows.get(file);
  }

  file(row: number): string {
    return this.files[row];
  }

  /** A row for `file` (a log the manifest did not list), holding no entry. */
  add(file: string): number {
    const row = this.size++;
    if (row === this.state.length) this.grow();
    this.rows.set(file, row);
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
   * A manifest line's entry (`text`: what follows the key and its tab), the
   * log at `file`, in a row of its own; false when any field is off or the
   * log is listed twice (it is then indexed again).
   */
  load(file: string, text: string, nextPart: number): boolean {
    if (this.rows.has(file) || !parseEntry(text, nextPart)) return false;
    const n = parsed.n;
    this.write(this.add(file), n[0], n[1], n[2], n[3], n[3] + n[4], n[5], n[6], parsed.sha[0], parsed.sha[1], parsed.parts);
    this.loaded++;
    this.unseen++;
    return true;
  }

  private put(row: number, e: Entry): void {
    this.write(row, e.dev, e.ino, e.size, e.mtimeMs, e.ctimeMs, e.to, e.flags, parseInt(e.sha1.slice(0, 8), 16), parseInt(e.sha1.slice(8, 16), 16), e.parts);
  }

  /** The one writer of a row's entry (a loaded line's, a refreshed log's). */
  private write(row: number, dev: number, ino: number, size: number, mtimeMs: number, ctimeMs: number, to: number, flags: number, shaHigh: number, shaLow: number, parts: readonly number[]): void {
    const b = row * WIDTH;
    const v = this.nums;
    v[b + DEV] = dev;
    v[b + INO] = ino;
    v[b + SIZE] = size;
    v[b + MTIME] = mtimeMs;
    v[b + CTIME] = ctimeMs;
    v[b + TO] = to;
    this.flagBits[row] = flags;
    this.shas[row * 2] = shaHigh;
    this.shas[row * 2 + 1] = shaLow;
    this.first[row] = parts.length > 0 ? parts[0] : -1;
    if (parts.length > 1) this.more.set(row, [...parts]);
    else this.more.delete(row);
    this.state[row] |= HAS;
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

  /** Its manifest text (what follows the key and its tab). */
  encode(row: number): string {
    const b = row * WIDTH;
    const v = this.nums;
    const sha1 = this.sha1(row);
    return `${v[b + DEV]},${v[b + INO]},${v[b + SIZE]},${v[b + MTIME]},${v[b + CTIME] - v[b + MTIME]},${v[b + TO]},${this.flagBits[row]},${sha1}\t${this.parts(row).join(';')}`;
  }
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/**
 * The last entry parseEntry read: dev, ino, size, mtimeMs, ctime - mtime,
 * to, flags; the sha1's two halves; the parts. One scratch, so a load of
 * 100,000 lines makes no object a line.
 */
const parsed = { n: new Float64Array(7), sha: new Uint32Array(2), parts: [] as number[] };

/** Reads an entry's manifest text into `parsed`; false when any field is off (the log is then indexed again). */
function parseEntry(text: string, nextPart: number): boolean {
  // field by field: a warm search of 100,000 logs parses every entry (split and map were ~0.9 µs each)
  const tab = text.indexOf('\t');
  if (tab < 0) return false;
  const n = parsed.n;
  let at = 0;
  for (let i = 0; i < 7; i++) {
    const comma = text.indexOf(',', at);
    if (comma < 0 || comma > tab) return false;
    const v = numberField(text, at, comma);
    if (!Number.isFinite(v)) return false;
    n[i] = v;
    at = comma + 1;
  }
  const sha1 = text.slice(at, tab);
  if (!SHA1.test(sha1)) return false;
  const size = n[2];
  const to = n[5];
  const flags = n[6];
  if (to < 0 || to > size || flags < 0 || flags > 3 || !Number.isInteger(flags)) return false;
  parsed.sha[0] = parseInt(sha1.slice(0, 8), 16);
  parsed.sha[1] = parseInt(sha1.slice(8), 16);
  const parts = parsed.parts;
  parts.length = 0;
  for (let from = tab + 1; from < text.length; ) {
    let semi = text.indexOf(';', from);
    if (semi < 0) semi = text.length;
    const p = numberField(text, from, semi);
    if (!(Number.isInteger(p) && p >= 0 && p < nextPart)) return false;
    parts.push(p);
    from = semi + 1;
  }
  return true;
}

const SHA1 = /^[0-9a-f]{16}$/;

/** The number written in text[from, to): NaN when empty (Number('') is 0). */
const numberField = (text: string, from: number, to: number): number => (to > from ? Number(text.slice(from, to)) : NaN);
