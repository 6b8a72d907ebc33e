// The content index's manifest on disk (content-index.ts): its entries as
// columns, so a warm search of 100,000 logs reads it with one read and a few
// typed arrays over the bytes, instead of parsing 100,000 text lines (~0.45 s
// with their garbage, most of such a search once the stats moved to a worker).
//
// Layout: a head line (JSON, padded with spaces so the sections start 8-byte
// aligned), then the sections, each the length the head's counts make it:
//
//   nums    Float64 x 6 an entry: dev, ino, size, mtimeMs, ctimeMs, to
//   shas    Uint32 x 2 an entry: the first 64 bits of the sha1 of [0, to)
//   first   Int32 an entry: its first part (-1: none)
//   keyEnds Uint32 an entry: where its key ends in the keys' text (UTF-16 units)
//   more    Int32 x moreInts: for each entry with several parts, its position,
//           its count and its parts
//   flags   Uint8 an entry: ALWAYS, RACY (index-entries.ts)
//   keys    the keys (each log's path relative to the root), UTF-8, one text
//
// The numbers are in the writer's byte order (the head says which: another
// one is another root). A file whose size is not its sections', or whose keys
// or numbers do not read back, is damaged: the index is rebuilt.
import fs from 'node:fs';
import os from 'node:os';
import { openRegular, readFullyAt } from './open-file.js';

/** An entry's numbers, by position in `nums`. */
export const N = { dev: 0, ino: 1, size: 2, mtimeMs: 3, ctimeMs: 4, to: 5 } as const;
export const N_WIDTH = 6;

/** What the head says of the index (besides the sections' sizes). */
export interface ManifestHead {
  dshBrowseIndex: string;
  root: string | undefined;
  stamp: number;
  nextPart: number;
  segments: string[];
}

/** The entries, as columns (an entry is a position in each). */
export interface ManifestColumns {
  entries: number;
  nums: Float64Array<ArrayBuffer>;
  shas: Uint32Array<ArrayBuffer>;
  first: Int32Array<ArrayBuffer>;
  keyEnds: Uint32Array<ArrayBuffer>;
  more: Int32Array<ArrayBuffer>;
  flags: Uint8Array<ArrayBuffer>;
  keys: string;
}

/** Why a manifest cannot be used: `version`, another format or package's; `root`, another root's (or byte order); `damaged`, anything else. */
export class ManifestError extends Error {
  constructor(
    readonly why: 'version' | 'root' | 'damaged',
    message: string,
  ) {
    super(message);
  }
}

const SECTIONS = ['entries', 'moreInts', 'keyBytes', 'keyChars'] as const;
type Layout = Record<(typeof SECTIONS)[number], number>;
/** a head longer than this is no head (a root path is at most 4,096 bytes, escaped up to 6x) */
const MAX_HEAD = 64 * 1024;
const pad8 = (n: number): number => (n + 7) & ~7;

/** Where each section starts, after a head line that ends (its '\n' included) at `body`. */
function sectionsAt(body: number, l: Layout) {
  const n = l.entries;
  const nums = body;
  const shas = nums + n * N_WIDTH * 8;
  const first = shas + n * 8;
  const keyEnds = first + n * 4;
  const more = keyEnds + n * 4;
  const flags = more + l.moreInts * 4;
  const keys = flags + n;
  return { nums, shas, first, keyEnds, more, flags, keys, end: keys + l.keyBytes };
}

/** The manifest's bytes: the head line, then the sections. */
export function manifestBytes(head: ManifestHead, c: ManifestColumns): Buffer[] {
  const keys = Buffer.from(c.keys, 'utf8');
  const layout: Layout = { entries: c.entries, moreInts: c.more.length, keyBytes: keys.length, keyChars: c.keys.length };
  const json = JSON.stringify({ ...head, endian: os.endianness(), ...layout });
  const line = Buffer.alloc(pad8(Buffer.byteLength(json) + 1), ' ');
  line.write(json, 0, 'utf8');
  line[line.length - 1] = 10;
  const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return [line, bytes(c.nums), bytes(c.shas), bytes(c.first), bytes(c.keyEnds), bytes(c.more), bytes(c.flags), keys];
}

/**
 * The manifest in `file`, its head checked against `want` (the index's
 * version and root). Throws ManifestError when it cannot be used, and what
 * opening or reading throws (ENOENT: there is none).
 */
export function readManifest(file: string, want: { dshBrowseIndex: string; root: string | undefined }, maxBytes: number): { head: ManifestHead; columns: ManifestColumns } {
  const { fd, st } = openRegular(file);
  try {
    if (st.size > maxBytes) throw new ManifestError('damaged', `over ${maxBytes} bytes`);
    // (a buffer of its own: its ArrayBuffer starts at the head, so the sections are aligned)
    const buf = Buffer.allocUnsafeSlow(st.size);
    if (readFullyAt(fd, buf, 0) !== st.size) throw new ManifestError('damaged', 'shorter than its stat');
    return parseManifest(buf, want);
  } finally {
    fs.closeSync(fd);
  }
}

function parseManifest(buf: Buffer, want: { dshBrowseIndex: string; root: string | undefined }): { head: ManifestHead; columns: ManifestColumns } {
  const nl = buf.subarray(0, MAX_HEAD).indexOf(10);
  if (nl < 0) throw new ManifestError('damaged', 'no head');
  let h: Partial<ManifestHead & Layout & { endian: string }>;
  try {
    h = JSON.parse(buf.toString('utf8', 0, nl)) as typeof h;
  } catch {
    throw new ManifestError('damaged', 'no head');
  }
  if (typeof h !== 'object' || h === null) throw new ManifestError('damaged', 'no head');
  if (h.dshBrowseIndex !== want.dshBrowseIndex) throw new ManifestError(typeof h.dshBrowseIndex === 'string' ? 'version' : 'damaged', 'another version');
  if (h.root !== want.root || h.endian !== os.endianness()) throw new ManifestError('root', 'another root');
  const segments = h.segments;
  if (typeof h.stamp !== 'number' || !Number.isSafeInteger(h.nextPart) || h.nextPart! < 0 || !Array.isArray(segments) || !segments.every((s) => typeof s === 'string' && /^[0-9a-f]{16}$/.test(s))) throw new ManifestError('damaged', 'damaged head');
  for (const k of SECTIONS) if (!Number.isSafeInteger(h[k]) || h[k]! < 0) throw new ManifestError('damaged', 'damaged head');
  const layout = h as Layout;
  if ((nl + 1) % 8 !== 0) throw new ManifestError('damaged', 'damaged head');
  const at = sectionsAt(nl + 1, layout);
  if (at.end !== buf.length) throw new ManifestError('damaged', 'its size is not its sections');
  const n = layout.entries;
  const ab = buf.buffer as ArrayBuffer;
  const o = buf.byteOffset;
  const keys = buf.toString('utf8', at.keys, at.end);
  const columns: ManifestColumns = {
    entries: n,
    nums: new Float64Array(ab, o + at.nums, n * N_WIDTH),
    shas: new Uint32Array(ab, o + at.shas, n * 2),
    first: new Int32Array(ab, o + at.first, n),
    keyEnds: new Uint32Array(ab, o + at.keyEnds, n),
    more: new Int32Array(ab, o + at.more, layout.moreInts),
    flags: new Uint8Array(ab, o + at.flags, n),
    keys,
  };
  if (keys.length !== layout.keyChars || (n > 0 && columns.keyEnds[n - 1] !== keys.length)) throw new ManifestError('damaged', 'its keys');
  const head: ManifestHead = { dshBrowseIndex: h.dshBrowseIndex, root: h.root, stamp: h.stamp, nextPart: h.nextPart!, segments };
  return { head, columns };
}
