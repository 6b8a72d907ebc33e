// One segment of the content index: for each trigram, the sorted ids of the
// log parts that hold it (a part: the bytes of one log indexed in one go).
// Written once, atomically, never changed; merged into a new one later.
//
//   0       "DSHTRI02"
//   8       u32 K: trigrams          12  u32 P: bytes of postings
//   16      u32: FNV-1a of the trigrams' bytes
//   20      K x u32: the trigrams, strictly increasing
//   20+4K   (K+1) x u32: where each trigram's postings start (and the end), from the postings' start
//   24+8K   K x u32: FNV-1a of each trigram's postings
//   24+12K  the postings: per trigram, its part ids: a kind byte, then varints
//           (the first whole, then the gaps) or a bitmap from the first id
//
// All numbers little-endian. A segment whose size, magic, order or a
// checksum is off is refused (SegmentError) and the index rebuilt: the
// trigrams are checked when the segment opens, a trigram's postings when
// they are read (a damaged list could otherwise name the wrong logs).
import { indexIn } from '../session/sorted.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readFullyAt } from './open-file.js';

const MAGIC = 'DSHTRI03';
const HEAD = 20;

export class SegmentError extends Error {}

/** A segment open for queries: its trigrams in memory, postings read on demand. */
export class SegmentReader {
  readonly trigrams: Uint32Array;
  private readonly offsetsAt: number;
  private readonly sumsAt: number;
  private readonly postingsAt: number;
  private readonly postingsBytes: number;

  private constructor(
    readonly file: string,
    private readonly fd: number,
    k: number,
    p: number,
    sum: number,
  ) {
    this.trigrams = new Uint32Array(k);
    const bytes = Buffer.from(this.trigrams.buffer);
    readFully(fd, bytes, HEAD);
    if (fnv1a(bytes) !== sum) throw new SegmentError(`${file}: trigrams damaged`);
    for (let i = 1; i < k; i++) if (this.trigrams[i] <= this.trigrams[i - 1]) throw new SegmentError(`${file}: trigrams out of order`);
    if (k > 0 && this.trigrams[k - 1] > 0xffffff) throw new SegmentError(`${file}: not a trigram`);
    this.offsetsAt = HEAD + 4 * k;
    this.sumsAt = HEAD + 8 * k + 4;
    this.postingsAt = HEAD + 12 * k + 4;
    this.postingsBytes = p;
  }

  /** Opens and checks a segment; throws SegmentError (or an fs error) when it cannot be used. */
  static open(file: string): SegmentReader {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(HEAD);
      if (fs.readSync(fd, head, 0, HEAD, 0) !== HEAD || head.toString('latin1', 0, 8) !== MAGIC) throw new SegmentError(`${file}: not a segment`);
      const k = head.readUInt32LE(8);
      const p = head.readUInt32LE(12);
      if (fs.fstatSync(fd).size !== HEAD + 12 * k + 4 + p) throw new SegmentError(`${file}: size does not match its head`);
      return new SegmentReader(file, fd, k, p, head.readUInt32LE(16));
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  /** Every trigram with its postings, in order, read sequentially (a merge). */
  *entries(): Generator<PostingsEntry> {
    const k = this.trigrams.length;
    const offsets = new Uint32Array(k + 1);
    readFully(this.fd, Buffer.from(offsets.buffer), this.offsetsAt);
    const sums = new Uint32Array(k);
    readFully(this.fd, Buffer.from(sums.buffer), this.sumsAt);
    if (offsets[k] !== this.postingsBytes) throw new SegmentError(`${this.file}: postings out of bounds`);
    let window = Buffer.alloc(0);
    let windowAt = 0;
    for (let i = 0; i < k; i++) {
      const from = offsets[i];
      const to = offsets[i + 1];
      if (from > to) throw new SegmentError(`${this.file}: postings out of bounds`);
      if (to > windowAt + window.length) {
        window = Buffer.allocUnsafe(Math.max(1 << 20, to - from));
        windowAt = from;
        readFully(this.fd, window.subarray(0, Math.min(window.length, this.postingsBytes - from)), this.postingsAt + from);
        window = window.subarray(0, Math.min(window.length, this.postingsBytes - from));
      }
      const bytes = window.subarray(from - windowAt, to - windowAt);
      if (fnv1a(bytes) !== sums[i]) throw new SegmentError(`${this.file}: postings damaged`);
      const ids = decodeIds(bytes, this.file);
      yield { trigram: this.trigrams[i], ids, n: ids.length };
    }
  }

  /** Index of `t` among the trigrams, or -1. */
  private find(t: number): number {
    const a = this.trigrams;
    return indexIn(a.length, (i) => a[i], t);
  }

  /** The part ids that hold trigram `t`, increasing (empty when none). */
  postings(t: number): number[] {
    const i = this.find(t);
    return i < 0 ? [] : this.postingsOfIndex(i);
  }

  /** The postings of the i-th trigram. */
  postingsOfIndex(i: number): number[] {
    const off = Buffer.alloc(8);
    readFully(this.fd, off, this.offsetsAt + 4 * i);
    const from = off.readUInt32LE(0);
    const to = off.readUInt32LE(4);
    if (from > to || to > this.postingsBytes) throw new SegmentError(`${this.file}: postings out of bounds`);
    const sum = Buffer.alloc(4);
    readFully(this.fd, sum, this.sumsAt + 4 * i);
    const buf = Buffer.allocUnsafe(to - from);
    readFully(this.fd, buf, this.postingsAt + from);
    if (fnv1a(buf) !== sum.readUInt32LE(0)) throw new SegmentError(`${this.file}: postings damaged`);
    return decodeIds(buf, this.file);
  }
}

export interface PostingsEntry {
  trigram: number;
  ids: ArrayLike<number>;
  n: number;
}

/** 32-bit FNV-1a: a damaged list or table shows as another sum (not a defence against a forger: the files are 0600 in the user's folder). */
export function fnv1a(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

function readFully(fd: number, buf: Buffer, at: number): void {
  if (readFullyAt(fd, buf, at) < buf.length) throw new SegmentError('segment ends early');
}

const LIST = 0;
const BITMAP = 1;

/** A trigram's ids: after a kind byte, varints (the first whole, then the gaps), or a bitmap from a first id. */
function decodeIds(buf: Buffer, file: string): number[] {
  const out: number[] = [];
  if (buf.length === 0) throw new SegmentError(`${file}: empty postings`);
  let i = 1;
  const varint = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      if (i >= buf.length || shift > 28) throw new SegmentError(`${file}: bad varint`);
      const b = buf[i++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return v;
    }
  };
  if (buf[0] === BITMAP) {
    const base = varint();
    for (let byte = 0; i < buf.length; i++, byte++) {
      const b = buf[i];
      if (b !== 0) for (let bit = 0; bit < 8; bit++) if (b & (1 << bit)) out.push(base + byte * 8 + bit);
    }
    if (out.length === 0 || out[0] !== base) throw new SegmentError(`${file}: bad bitmap`);
    return out;
  }
  if (buf[0] !== LIST) throw new SegmentError(`${file}: unknown postings kind`);
  let prev = 0;
  while (i < buf.length) {
    const v = varint();
    if (out.length > 0 && v === 0) throw new SegmentError(`${file}: ids out of order`);
    prev = out.length === 0 ? v : prev + v;
    out.push(prev);
  }
  return out;
}

const varintBytes = (v: number): number => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);

/**
 * Appends `ids` (increasing): as varints of their gaps, or, when that is
 * larger (a trigram most logs hold, such as the JSON keys'), as a bitmap of
 * the ids from the first: at 100,000 small logs most postings are dense.
 */
function encodeIds(ids: ArrayLike<number>, n: number, out: ByteSink): void {
  let listBytes = 0;
  for (let i = 0; i < n; i++) listBytes += varintBytes(i === 0 ? ids[0] : ids[i] - ids[i - 1]);
  const base = ids[0];
  const mapBytes = varintBytes(base) + Math.ceil((ids[n - 1] - base + 1) / 8);
  if (mapBytes < listBytes) {
    out.byte(BITMAP);
    putVarint(base, out);
    const map = new Uint8Array(Math.ceil((ids[n - 1] - base + 1) / 8));
    for (let i = 0; i < n; i++) {
      const d = ids[i] - base;
      map[d >>> 3] |= 1 << (d & 7);
    }
    for (const b of map) out.byte(b);
    return;
  }
  out.byte(LIST);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    putVarint(i === 0 ? ids[0] : ids[i] - prev, out);
    prev = ids[i];
  }
}

function putVarint(v: number, out: ByteSink): void {
  while (v >= 0x80) {
    out.byte((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.byte(v);
}

/** Bytes written to a file in 1 MB pieces. */
class ByteSink {
  private buf = Buffer.allocUnsafe(1 << 20);
  private n = 0;
  written = 0;
  /** FNV-1a of the bytes since it was last set */
  sum = 0x811c9dc5;
  constructor(
    private readonly fd: number,
    private at: number,
  ) {}
  byte(b: number): void {
    if (this.n === this.buf.length) this.flush();
    this.buf[this.n++] = b;
    this.written++;
    this.sum = Math.imul(this.sum ^ b, 0x01000193);
  }
  flush(): void {
    let off = 0;
    while (off < this.n) off += fs.writeSync(this.fd, this.buf, off, this.n - off, this.at + off);
    this.at += this.n;
    this.n = 0;
  }
}

/** What a new segment is made of: the trigrams in increasing order, each with its part ids in increasing order. */
export type PostingsSource = Iterable<PostingsEntry>;

/**
 * Writes a segment to `file` atomically (a temp file beside it, 0600, fsync,
 * rename). The postings go first to an unlinked spill file (their place in
 * the segment depends on how many trigrams there are), then are copied
 * after the tables.
 */
export function writeSegment(file: string, src: PostingsSource): { bytes: number; trigrams: number } {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  let done = false;
  try {
    const trigrams: number[] = [];
    const offsets: number[] = [];
    const sums: number[] = [];
    const spill = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.postings.tmp`);
    const sfd = fs.openSync(spill, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    let p: number;
    try {
      fs.unlinkSync(spill); // anonymous from here: nothing is left behind whatever happens
      const sink = new ByteSink(sfd, 0);
      for (const { trigram, ids, n } of src) {
        if (n === 0) continue;
        trigrams.push(trigram);
        offsets.push(sink.written);
        sink.sum = 0x811c9dc5;
        encodeIds(ids, n, sink);
        sums.push(sink.sum >>> 0);
      }
      sink.flush();
      p = sink.written;
      offsets.push(p);
      const k = trigrams.length;
      const tri = Buffer.from(Uint32Array.from(trigrams).buffer);
      const head = Buffer.alloc(HEAD);
      head.write(MAGIC, 0, 'latin1');
      head.writeUInt32LE(k, 8);
      head.writeUInt32LE(p, 12);
      head.writeUInt32LE(fnv1a(tri), 16);
      writeAll(fd, head, 0);
      writeAll(fd, tri, HEAD);
      writeAll(fd, Buffer.from(Uint32Array.from(offsets).buffer), HEAD + 4 * k);
      writeAll(fd, Buffer.from(Uint32Array.from(sums).buffer), HEAD + 8 * k + 4);
      const copy = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; at < p; ) {
        const n = fs.readSync(sfd, copy, 0, Math.min(copy.length, p - at), at);
        if (n === 0) throw new Error('postings spill ended early');
        writeAll(fd, copy.subarray(0, n), HEAD + 12 * k + 4 + at);
        at += n;
      }
    } finally {
      fs.closeSync(sfd);
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
    done = true;
    return { bytes: HEAD + 12 * trigrams.length + 4 + p, trigrams: trigrams.length };
  } finally {
    if (!done) {
      try {
        fs.closeSync(fd);
      } catch {
        // closed
      }
      try {
        fs.unlinkSync(tmp);
      } catch {
        // gone
      }
    }
  }
}

function writeAll(fd: number, buf: Buffer, at: number): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off, at + off);
}

/**
 * The postings of parts held in memory (each part's trigrams sorted), as a
 * PostingsSource: the pairs sorted by trigram with two stable passes of a
 * 12-bit radix sort, so each trigram's ids stay in part order.
 */
export function* postingsOfParts(parts: ReadonlyArray<{ id: number; trigrams: Uint32Array }>): Generator<PostingsEntry> {
  let total = 0;
  for (const p of parts) total += p.trigrams.length;
  let keys = new Uint32Array(total);
  let ids = new Uint32Array(total);
  let at = 0;
  for (const p of parts) {
    keys.set(p.trigrams, at);
    ids.fill(p.id, at, at + p.trigrams.length);
    at += p.trigrams.length;
  }
  let k2 = new Uint32Array(total);
  let i2 = new Uint32Array(total);
  for (const shift of [0, 12]) {
    const count = new Uint32Array(4097);
    for (let i = 0; i < total; i++) count[((keys[i] >>> shift) & 0xfff) + 1]++;
    for (let b = 0; b < 4096; b++) count[b + 1] += count[b];
    for (let i = 0; i < total; i++) {
      const d = count[(keys[i] >>> shift) & 0xfff]++;
      k2[d] = keys[i];
      i2[d] = ids[i];
    }
    [keys, k2] = [k2, keys];
    [ids, i2] = [i2, ids];
  }
  k2 = i2 = new Uint32Array(0);
  for (let i = 0; i < total; ) {
    let j = i;
    while (j < total && keys[j] === keys[i]) j++;
    yield { trigram: keys[i], ids: ids.subarray(i, j), n: j - i };
    i = j;
  }
}

/**
 * The postings of several sources merged by trigram: each trigram's ids are
 * the sources' in the order given (each source's ids above the ones before,
 * as part ids grow), with `keep` deciding which ids stay.
 */
export function* mergePostings(sources: ReadonlyArray<SegmentReader | Iterable<PostingsEntry>>, keep: (id: number) => boolean): Generator<PostingsEntry> {
  const its = sources.map((s) => (s instanceof SegmentReader ? segmentEntries(s) : s[Symbol.iterator]()));
  const heads = its.map((it) => it.next());
  const out: number[] = [];
  for (;;) {
    let t = Infinity;
    for (const h of heads) if (!h.done && h.value.trigram < t) t = h.value.trigram;
    if (t === Infinity) return;
    out.length = 0;
    for (let s = 0; s < heads.length; s++) {
      const h = heads[s];
      if (h.done || h.value.trigram !== t) continue;
      const { ids, n } = h.value;
      for (let i = 0; i < n; i++) if (keep(ids[i])) out.push(ids[i]);
      heads[s] = its[s].next();
    }
    if (out.length > 0) yield { trigram: t, ids: out, n: out.length };
  }
}

function* segmentEntries(s: SegmentReader): Generator<PostingsEntry> {
  yield* s.entries();
}
