// The fact catalog's file: one entry per log as columns, so a warm start of
// 100,000 sessions reads it with a few reads and no parse per entry (as
// JSON lines it was a JSON.parse and ~450 characters of string per entry:
// ~270 ms and ~47 MB of garbage before a session was listed).
//
//   head    JSON, padded with spaces to its room, then '\n' (written last: a
//           room of spaces is no head, so a file left with it is damaged)
//   snaps   each session's reader snapshot as JSON text (fact-cache.ts),
//           read only when that session's log state is first needed
//   nums    Float64Array, WIDTH numbers per entry (NUM), 8-aligned in the file
//   offsK   Uint32Array, where each KEPT string of each entry starts in keptText
//   offsT   Uint32Array, the same for the TRANSIENT strings in transText
//   keptText, transText   UTF-8; their offsets count UTF-16 units (string.length)
//   folders the folder listings' lines (folder-listings.ts), '\n'-joined
//
// Kept strings are what the list holds on to (a title): sliced from their
// own text, which stays in memory while any of them does (~20 bytes an entry
// at 100,000); transient ones (the path, the header's JSON) are dropped with
// the catalog after the save. Numbers are little-endian doubles, NaN for an
// absent one; strings absent are marked in NUM.present. Nothing here trusts
// an entry: fact-cache.ts compares its stat with the file's.
import os from 'node:os';
import type { ChunkSource } from './atomic-lines.js';
import { readFullyAt } from './open-file.js';

/** An entry's numbers, by position in its row of `nums`. */
export const NUM = {
  dev: 0,
  ino: 1,
  size: 2,
  mtimeMs: 3,
  /** ctimeMs - mtimeMs (exact: both are near each other, Sterbenz) */
  ctimeDelta: 4,
  pending: 5,
  kind: 6,
  /** its snapshot's bytes in the snaps section (0, 0: none) */
  snapAt: 7,
  snapLen: 8,
  /** PRESENT bits */
  present: 9,
  turns: 10,
  events: 11,
  state: 12,
  diagnostics: 13,
  block: 14,
  tokens: 15,
  lastEventTime: 16,
  consumed: 17,
  seedFrom: 18,
} as const;
export const WIDTH = 19;

/** Strings the list keeps, by position. */
export const KEPT = { title: 0, lastEventType: 1, resume: 2, upgrade: 3 } as const;
const KEPT_N = 4;
/** Strings needed while loading only. `head`: the header's JSON (a session), or the diagnostics' (a refused file). */
export const TRANSIENT = { key: 0, head: 1, structure: 2 } as const;
const TRANSIENT_N = 3;

/** Bits of NUM.present. */
export const PRESENT = { title: 1, lastEventType: 2, upgrade: 4, structure: 8, takesTitle: 16 } as const;

/** One entry as written: its numbers (WIDTH; snapAt and snapLen are set here), strings ('' when absent), snapshot text. */
export interface NewEntry {
  nums: Float64Array;
  kept: readonly string[];
  transient: readonly string[];
  snapshot?: string;
}

/** What the head says besides the layout. */
export interface CatalogIdentity {
  dshBrowseCache: string;
  root: string | undefined;
  path: string;
  stamp: number;
}

interface Head extends CatalogIdentity {
  endian: string;
  entries: number;
  snapBytes: number;
  keptBytes: number;
  keptChars: number;
  transBytes: number;
  transChars: number;
  folderBytes: number;
}

const pad8 = (n: number): number => (n + 7) & ~7;
/** entries slotOf looks at from its cursor before it makes the map */
const NEAR = 8;
const LAYOUT = ['entries', 'snapBytes', 'keptBytes', 'keptChars', 'transBytes', 'transChars', 'folderBytes'] as const;
/** a head longer than this is no head (a root path is at most 4,096 bytes, escaped up to 6x) */
const MAX_HEAD = 64 * 1024;

/** Whether `s` survives UTF-8 (no lone surrogate): a string that would come back changed is not stored. */
export const storable = (s: string): boolean => !/[\uD800-\uDFFF]/.test(s) || !LONE_SURROGATE.test(s);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A loaded catalog: its columns, and its file open for the snapshots. */
export class Catalog {
  /** key -> entry, made on the first key slotOf does not find near its cursor */
  private slots?: Map<string, number>;
  /** the entry after the one slotOf found last */
  private cursor = 0;

  get stamp(): number {
    return this.identity.stamp;
  }

  constructor(
    readonly fd: number,
    /** what its head says it is */
    readonly identity: CatalogIdentity,
    readonly size: number,
    readonly nums: Float64Array,
    private readonly offsK: Uint32Array,
    private readonly offsT: Uint32Array,
    private readonly keptText: string,
    private readonly transText: string,
    /** where the snaps section starts in the file */
    readonly snapBase: number,
    readonly folderLines: string[],
  ) {}

  /**
   * The entry whose key is `key`, or undefined. A warm scan asks in the
   * order the entries were written (it walks the root as the run that wrote
   * them did), so each key is looked for at the cursor and a few entries on
   * (files deleted since) with one comparison each; the first key found
   * nowhere near (a new file, a moved one) makes the map of every key, used
   * from then on. At 100,000 entries the map, made at once, was ~40 ms and
   * 100,000 strings of every warm start.
   */
  slotOf(key: string): number | undefined {
    if (this.slots) return this.slots.get(key);
    const end = Math.min(this.size, this.cursor + NEAR);
    for (let i = this.cursor; i < end; i++) {
      if (!this.keyIs(i, key)) continue;
      this.cursor = i + 1;
      return i;
    }
    const slots = (this.slots = new Map());
    for (let i = 0; i < this.size; i++) slots.set(this.transient(i, TRANSIENT.key), i);
    return slots.get(key);
  }

  /** Whether entry `i`'s key is `key` (without making the key's string). */
  private keyIs(i: number, key: string): boolean {
    const at = i * TRANSIENT_N + TRANSIENT.key;
    const from = this.offsT[at];
    return this.offsT[at + 1] - from === key.length && this.transText.startsWith(key, from);
  }

  kept(i: number, field: number): string {
    const at = i * KEPT_N + field;
    return this.keptText.slice(this.offsK[at], this.offsK[at + 1]);
  }

  transient(i: number, field: number): string {
    const at = i * TRANSIENT_N + field;
    return this.transText.slice(this.offsT[at], this.offsT[at + 1]);
  }

  num(i: number, field: number): number {
    return this.nums[i * WIDTH + field];
  }

  /** Entry `i` as a writer takes it again (numbers and strings; the snapshot stays in this file). */
  entry(i: number): { nums: Float64Array; kept: string[]; transient: string[] } {
    const kept: string[] = [];
    for (let f = 0; f < KEPT_N; f++) kept.push(this.kept(i, f));
    const transient: string[] = [];
    for (let f = 0; f < TRANSIENT_N; f++) transient.push(this.transient(i, f));
    return { nums: this.nums.slice(i * WIDTH, (i + 1) * WIDTH), kept, transient };
  }
}

/** Why a file is not a catalog this run can use. */
export class CatalogMismatch extends Error {
  constructor(
    message: string,
    /** the version it says it is, when it says one */
    readonly version?: string,
  ) {
    super(message);
  }
}

/** Where the head says each section lies; throws when they do not add up to the file's size. */
function sectionsOf(h: Head, nl: number, size: number): { numsAt: number; numBytes: number; offKBytes: number; offTBytes: number; tail: number } {
  const n = h.entries;
  const numsAt = pad8(nl + 1 + h.snapBytes);
  const numBytes = n * WIDTH * 8;
  const offKBytes = pad8((n * KEPT_N + 1) * 4);
  const offTBytes = pad8((n * TRANSIENT_N + 1) * 4);
  const tail = numBytes + offKBytes + offTBytes + h.keptBytes + h.transBytes + h.folderBytes;
  if (numsAt + tail !== size) throw new CatalogMismatch('damaged: its size is not its sections');
  return { numsAt, numBytes, offKBytes, offTBytes, tail };
}

/** The head of the catalog in `fd`, checked against `want`, and where its line ends. */
function readHead(fd: number, size: number, want?: Omit<CatalogIdentity, 'stamp'>): { h: Head; nl: number } {
  const first = Buffer.allocUnsafe(Math.min(size, MAX_HEAD));
  const got = readFullyAt(fd, first, 0);
  const nl = first.subarray(0, got).indexOf(10);
  if (nl < 0) throw new CatalogMismatch('no head');
  let head: Partial<Head>;
  try {
    head = JSON.parse(first.toString('utf8', 0, nl)) as Partial<Head>;
  } catch {
    throw new CatalogMismatch('no head');
  }
  if (typeof head !== 'object' || head === null) throw new CatalogMismatch('no head');
  if (typeof head.dshBrowseCache !== 'string' || (want && head.dshBrowseCache !== want.dshBrowseCache)) throw new CatalogMismatch('another version', typeof head.dshBrowseCache === 'string' ? head.dshBrowseCache : undefined);
  if ((want && (head.root !== want.root || head.path !== want.path)) || head.endian !== os.endianness() || typeof head.stamp !== 'number') throw new CatalogMismatch('another root');
  for (const k of LAYOUT) if (!Number.isSafeInteger(head[k]) || head[k]! < 0) throw new CatalogMismatch('damaged head');
  return { h: head as Head, nl };
}

/**
 * Reads the catalog in the open file `fd` (of `size` bytes). Throws
 * CatalogMismatch when it is not one written for `want` (another version,
 * root or path; without `want`, any version), or is damaged (truncated,
 * grown, its sizes or offsets wrong).
 */
export function readCatalog(fd: number, size: number, want?: Omit<CatalogIdentity, 'stamp'>): Catalog {
  const { h, nl } = readHead(fd, size, want);
  const n = h.entries;
  const snapBase = nl + 1;
  const { numsAt, numBytes, offKBytes, offTBytes, tail } = sectionsOf(h, nl, size);
  // (a buffer of its own: its ArrayBuffer starts at the nums, 8-aligned)
  const buf = Buffer.allocUnsafeSlow(tail);
  if (readFullyAt(fd, buf, numsAt) !== tail) throw new CatalogMismatch('damaged: shorter than its sections');
  const ab = buf.buffer;
  const nums = new Float64Array(ab, buf.byteOffset, n * WIDTH);
  const offsK = new Uint32Array(ab, buf.byteOffset + numBytes, n * KEPT_N + 1);
  const offsT = new Uint32Array(ab, buf.byteOffset + numBytes + offKBytes, n * TRANSIENT_N + 1);
  let at = numBytes + offKBytes + offTBytes;
  const keptText = buf.toString('utf8', at, (at += h.keptBytes));
  const transText = buf.toString('utf8', at, (at += h.transBytes));
  const folders = buf.toString('utf8', at, (at += h.folderBytes));
  if (keptText.length !== h.keptChars || transText.length !== h.transChars || !ascending(offsK, h.keptChars) || !ascending(offsT, h.transChars)) throw new CatalogMismatch('damaged: its strings');
  for (let i = 0; i < n; i++) {
    const snapAt = nums[i * WIDTH + NUM.snapAt];
    const snapLen = nums[i * WIDTH + NUM.snapLen];
    if (!(snapAt >= 0 && snapLen >= 0 && snapAt + snapLen <= h.snapBytes)) throw new CatalogMismatch('damaged: its snapshots');
  }
  return new Catalog(fd, h, n, nums, offsK, offsT, keptText, transText, snapBase, folders === '' ? [] : folders.split('\n'));
}

/**
 * Only the folder listings of the catalog in `fd` and the stamp of the run
 * that wrote them (a search walks the root with them, and needs no entry):
 * the head and the last section, two reads. Throws as readCatalog.
 */
export function readCatalogFolders(fd: number, size: number, want: Omit<CatalogIdentity, 'stamp'>): { stamp: number; folderLines: string[] } {
  const { h, nl } = readHead(fd, size, want);
  sectionsOf(h, nl, size);
  const buf = Buffer.allocUnsafe(h.folderBytes);
  if (readFullyAt(fd, buf, size - h.folderBytes) !== h.folderBytes) throw new CatalogMismatch('damaged: shorter than its sections');
  const text = buf.toString('utf8');
  return { stamp: h.stamp, folderLines: text === '' ? [] : text.split('\n') };
}

function ascending(offs: Uint32Array, end: number): boolean {
  if (offs[0] !== 0 || offs[offs.length - 1] !== end) return false;
  for (let i = 1; i < offs.length; i++) if (offs[i] < offs[i - 1]) return false;
  return true;
}

/** An entry to write: a new one, or entry `slot` of the loaded catalog as it is. */
export type WriteEntry = NewEntry | { from: Catalog; slot: number };

/**
 * The writer's chunks stay small: the columns are held as JS arrays and
 * strings (V8's heap, compacted after) and encoded this many bytes at a time
 * as they are written, and a copy of snapshot bytes is read at most this much
 * at once. Held as buffers of their own, the columns of 100,000 entries were
 * ~50 MB of malloc'd memory at once, and the process kept 12 MB more after
 * the write than a run that wrote none.
 */
const CHUNK_BYTES = 64 * 1024;
/** a slice of snapshots ends past this many bytes (a save that copies them all is one read a chunk) */
const SLICE_BYTES = 1024 * 1024;
/** strings joined this many at a time (the texts are never one string) */
const TEXT_BATCH = 512;

/**
 * The catalog file as a ChunkSource (atomic-lines.ts): the snapshots as the
 * entries come (a loaded entry's copied from its file, adjacent ones in one
 * read), then the columns.
 */
export function catalogSource(identity: CatalogIdentity, entries: Iterator<WriteEntry>, folders: () => readonly string[]): ChunkSource {
  const fields = { ...identity, endian: os.endianness() };
  const widest = Object.fromEntries(LAYOUT.map((k) => [k, Number.MAX_SAFE_INTEGER]));
  const roomBytes = Buffer.byteLength(JSON.stringify({ ...fields, ...widest })) + 1;
  const headRoom = Buffer.alloc(roomBytes, ' ');
  headRoom[roomBytes - 1] = 10;

  let n = 0;
  const nums: number[] = [];
  const offsK: number[] = [0];
  const offsT: number[] = [0];
  let keptChars = 0;
  let transChars = 0;
  const keptText: string[] = [];
  const transText: string[] = [];
  let keptBatch: string[] = [];
  let transBatch: string[] = [];
  let snapBytes = 0;
  let tail: Generator<Buffer> | undefined;
  const bytes = { keptBytes: 0, transBytes: 0, folderBytes: 0 };
  let layout: Record<(typeof LAYOUT)[number], number> | undefined;

  const flushText = (): void => {
    if (keptBatch.length) keptText.push(keptBatch.join(''));
    if (transBatch.length) transText.push(transBatch.join(''));
    keptBatch = [];
    transBatch = [];
  };

  /** a pending copy of snapshot bytes from a loaded catalog: [from, to) of its file */
  let copy: { cat: Catalog; from: number; to: number } | undefined;
  const takeCopy = (parts: Buffer[]): void => {
    if (!copy) return;
    const buf = Buffer.allocUnsafe(copy.to - copy.from);
    if (readFullyAt(copy.cat.fd, buf, copy.from) !== buf.length) throw new Error('the catalog being copied is shorter than it was');
    parts.push(buf);
    copy = undefined;
  };

  const add = (e: WriteEntry, parts: Buffer[]): void => {
    let row: Float64Array;
    let kept: readonly string[];
    let transient: readonly string[];
    let snapLen = 0;
    if ('from' in e) {
      const old = e.from.entry(e.slot);
      ({ nums: row, kept, transient } = old);
      snapLen = row[NUM.snapLen];
      if (snapLen > 0) {
        const from = e.from.snapBase + row[NUM.snapAt];
        if (copy && (copy.cat !== e.from || copy.to !== from || copy.to - copy.from >= CHUNK_BYTES)) takeCopy(parts);
        if (copy) copy.to += snapLen;
        else copy = { cat: e.from, from, to: from + snapLen };
        sliceBytes += snapLen;
      }
    } else {
      ({ nums: row, kept, transient } = e);
      if (e.snapshot !== undefined) {
        takeCopy(parts);
        const b = Buffer.from(e.snapshot, 'utf8');
        parts.push(b);
        sliceBytes += b.length;
        snapLen = b.length;
      }
    }
    for (let f = 0; f < WIDTH; f++) nums.push(f === NUM.snapAt ? (snapLen > 0 ? snapBytes : 0) : f === NUM.snapLen ? snapLen : row[f]);
    snapBytes += snapLen;
    for (const s of kept) {
      keptBatch.push(s);
      offsK.push((keptChars += s.length));
    }
    for (const s of transient) {
      transBatch.push(s);
      offsT.push((transChars += s.length));
    }
    n++;
    if (n % TEXT_BATCH === 0) flushText();
  };

  /** `a`'s numbers as small chunks of `Kind`'s bytes, the last padded to 8 */
  function* typed(a: number[], Kind: Float64ArrayConstructor | Uint32ArrayConstructor): Generator<Buffer> {
    const per = CHUNK_BYTES / Kind.BYTES_PER_ELEMENT;
    for (let i = 0; i < a.length; i += per) {
      const part = a.slice(i, i + per);
      const size = part.length * Kind.BYTES_PER_ELEMENT;
      const b = Buffer.alloc(i + per >= a.length ? pad8(size) : size);
      new Kind(b.buffer, b.byteOffset, part.length).set(part);
      yield b;
    }
  }

  function* text(pieces: string[], count: 'keptBytes' | 'transBytes' | 'folderBytes'): Generator<Buffer> {
    for (const piece of pieces) {
      const b = Buffer.from(piece, 'utf8');
      bytes[count] += b.length;
      yield b;
    }
  }

  /** the columns, after the snapshots (8-aligned in the file) */
  function* columns(): Generator<Buffer> {
    yield Buffer.alloc(pad8(roomBytes + snapBytes) - roomBytes - snapBytes);
    yield* typed(nums, Float64Array);
    yield* typed(offsK, Uint32Array);
    yield* typed(offsT, Uint32Array);
    yield* text(keptText, 'keptBytes');
    yield* text(transText, 'transBytes');
    yield* text([folders().join('\n')], 'folderBytes');
    layout = { entries: n, snapBytes, keptChars, transChars, ...bytes };
  }

  /** bytes of the slice being made (its parts and the copy pending) */
  let sliceBytes = 0;
  const next = (full: () => boolean): Buffer => {
    if (tail) {
      // (an empty buffer ends the body: an empty section is skipped)
      for (let b = tail.next(); !b.done; b = tail.next()) if (b.value.length > 0) return b.value;
      return Buffer.alloc(0);
    }
    const parts: Buffer[] = [];
    sliceBytes = 0;
    for (let k = 1; ; k++) {
      const it = entries.next();
      if (it.done) break;
      add(it.value, parts);
      if ((k & 63) === 0 && (full() || sliceBytes >= SLICE_BYTES)) {
        takeCopy(parts);
        // (entries without a snapshot give no bytes until the columns: an empty buffer would end the body)
        if (parts.length > 0) return Buffer.concat(parts);
      }
    }
    takeCopy(parts);
    flushText();
    tail = columns();
    return parts.length > 0 ? Buffer.concat(parts) : next(full);
  };

  return {
    headRoom,
    next,
    head() {
      if (!layout) throw new Error('head asked before the body was written');
      const json = Buffer.from(JSON.stringify({ ...fields, ...layout }), 'utf8');
      const out = Buffer.alloc(roomBytes, ' ');
      json.copy(out);
      out[roomBytes - 1] = 10;
      return out;
    },
  };
}
