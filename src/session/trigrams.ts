// Byte trigrams of a log's case-folded text: the unit of the content index
// (src/storage/content-index.ts). Pure: bytes in, sorted numbers out.
//
// Why raw bytes are enough (search.ts, "raw prefilters"): a query word's
// piece that `requiredLiterals` keeps lies, case aside, in the log's bytes
// as written, unless a JSON escape hides one of its characters. So the
// trigrams of the folded bytes of a log hold every trigram of every such
// piece of every word that matches in it. A prompt/blocked event's text
// blocks run together in its search text (a word may span two of them), so
// that text is added as the search builds it. A log with an escape that may
// hide a character (HIDING_ESCAPE in search.ts), or a line naming
// prompt/blocked that does not parse, is marked `always`: a candidate for
// every query. A trigram is three bytes of the UTF-8 of the folded text, as
// one 24-bit number; a piece shorter than three bytes constrains nothing.
import { indexIn } from './sorted.js';
import { isAscii } from 'node:buffer';
import { blockedTextsOf } from './events.js';
import { foldCase } from './literal.js';

/** ASCII bytes lowercased (what foldCase does to ASCII text), other bytes as they are. */
const LOWER = new Uint8Array(256);
for (let i = 0; i < 256; i++) LOWER[i] = i >= 65 && i <= 90 ? i + 32 : i;

const BACKSLASH = 0x5c;
const HEX = /^[0-9a-fA-F]{4}$/;

/**
 * Whether `buf[start, end)` (whole JSON lines) holds an escape that may hide
 * a word's character: `\/`, or `\u` but for C0 controls and DEL. Escapes are
 * read in pairs, so an escaped backslash (`\\`) before a `/` or `u` is not one.
 */
export function holdsHidingEscape(whole: Buffer, start: number, end: number): boolean {
  // (searched within the region: indexOf has no end, and a small log in a large read buffer would be searched past it)
  const buf = whole.subarray(start, end);
  end = buf.length;
  for (let i = buf.indexOf(BACKSLASH); i >= 0 && i < end; i = buf.indexOf(BACKSLASH, i + 2)) {
    if (i + 1 >= end) return true; // a lone backslash at the end: not JSON, say it may
    const c = buf[i + 1];
    if (c === 0x2f) return true; // \/
    if (c !== 0x75) continue; // \\, \n, \" ...: the pair is skipped
    const hex = buf.toString('latin1', i + 2, Math.min(end, i + 6));
    if (!HEX.test(hex)) return true; // not a whole escape: may hide, say so
    const n = parseInt(hex, 16);
    if (!(n < 0x20 || n === 0x7f)) return true;
  }
  return false;
}

const PROMPT_BLOCKED = Buffer.from('prompt/blocked');

/**
 * Clear bitmaps (2 MB each) for the next collectors: one per log indexed was
 * 2 MB to allocate and zero, 200 GB of it at 100,000 logs. A few, for the
 * collectors that run at once (a large log read in the background while
 * others are read).
 */
const FREE: Uint32Array[] = [];
const MAX_FREE = 4;

/**
 * The distinct trigrams of the bytes fed to it, and whether the text may hide
 * a word from them (`always`). One collector per log part being indexed.
 */
export class TrigramCollector {
  /** one bit per possible trigram (2^24): taken from FREE on first use, given back clear by take() */
  private bits: Uint32Array | undefined;
  private list = new Uint32Array(1024);
  private n = 0;
  always = false;
  /** bytes fed */
  bytes = 0;

  /** Adds the trigrams of `buf[start, end)` (whole lines: a trigram across two feeds is not seen). */
  add(buf: Buffer, start = 0, end = buf.length): void {
    if (end - start < 3) return;
    this.bytes += end - start;
    if (!this.always && holdsHidingEscape(buf, start, end)) this.always = true;
    this.region(buf, start, end);
    const region = buf.subarray(start, end);
    for (let i = region.indexOf(PROMPT_BLOCKED); i >= 0; i = region.indexOf(PROMPT_BLOCKED, i + 1)) i = this.blocked(region, 0, region.length, i);
  }

  /**
   * The line holding `buf[at]` (within [start, end)), which names
   * prompt/blocked: each prompt/blocked event of it has its blocks' text
   * added as the search joins them. Returns the line's end (the search goes on after it).
   */
  private blocked(buf: Buffer, start: number, end: number, at: number): number {
    const from = Math.max(start, buf.lastIndexOf(10, at) + 1);
    let to = buf.indexOf(10, at);
    if (to < 0 || to > end) to = end;
    const texts = blockedTextsOf(buf.toString('utf8', from, to));
    // not one event (a damaged line: its events are salvaged in pieces): say it may hold anything
    if (texts === undefined) {
      this.always = true;
      return to;
    }
    for (const t of texts) {
      const text = Buffer.from(t);
      this.region(text, 0, text.length);
    }
    return to;
  }

  /** The trigrams of one region, the window started afresh. */
  private region(buf: Buffer, start: number, end: number): void {
    this.t = 0;
    this.have = 0;
    if (isAscii(buf.subarray(start, end))) {
      this.push(buf, start, end);
      return;
    }
    // ASCII bytes as they are; each run of other bytes (whole UTF-8 sequences) decoded, folded and encoded again
    for (let i = start; i < end; ) {
      let j = i;
      while (j < end && buf[j] < 0x80) j++;
      if (j > i) this.push(buf, i, j);
      if (j === end) break;
      let k = j;
      while (k < end && buf[k] >= 0x80) k++;
      const folded = Buffer.from(foldCase(buf.toString('utf8', j, k)));
      this.push(folded, 0, folded.length);
      i = k;
    }
  }

  /** the last two bytes pushed (t) and how many of them there are (have) */
  private t = 0;
  private have = 0;

  /** Pushes folded bytes (ASCII still to lowercase) through the trigram window. */
  private push(b: Buffer, start: number, end: number): void {
    const bits = (this.bits ??= FREE.pop() ?? new Uint32Array(1 << 19));
    let list = this.list;
    let n = this.n;
    let t = this.t;
    let i = start;
    for (; this.have < 2 && i < end; i++, this.have++) t = ((t << 8) | LOWER[b[i]]) & 0xffff;
    for (; i < end; i++) {
      t = ((t << 8) | LOWER[b[i]]) & 0xffffff;
      const w = t >>> 5;
      const m = 1 << (t & 31);
      if ((bits[w] & m) !== 0) continue;
      bits[w] |= m;
      if (n === list.length) {
        const grown = new Uint32Array(list.length * 2);
        grown.set(list);
        list = grown;
      }
      list[n++] = t;
    }
    this.t = t & 0xffff;
    this.list = list;
    this.n = n;
  }

  /** How many distinct trigrams so far. */
  get size(): number {
    return this.n;
  }

  /** The distinct trigrams, sorted; the collector is empty again (its `always` and `bytes` are kept). */
  take(): Uint32Array {
    const out = this.list.slice(0, this.n).sort();
    const bits = this.bits;
    if (bits) {
      for (let i = 0; i < this.n; i++) bits[this.list[i] >>> 5] = 0;
      if (FREE.length < MAX_FREE) FREE.push(bits);
      this.bits = undefined;
    }
    this.n = 0;
    return out;
  }
}


const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The trigrams every log that may hold all of `pieces` (folded, as
 * requiredLiterals gives them) holds: the union of each piece's, sorted.
 * Empty when no piece is three bytes long: the index narrows nothing.
 */
export function trigramsOf(pieces: readonly string[]): Uint32Array {
  const seen = new Set<number>();
  // a lone surrogate has no UTF-8 of its own (it matches half of a pair): the piece is cut there
  for (const p of pieces.flatMap((p) => p.split(LONE_SURROGATE))) {
    const b = Buffer.from(p);
    for (let i = 2; i < b.length; i++) seen.add((b[i - 2] << 16) | (b[i - 1] << 8) | b[i]);
  }
  return Uint32Array.from(seen).sort();
}

/** Whether sorted `set` holds `t` (binary search). */
export function hasTrigram(set: Uint32Array, t: number): boolean {
  return indexIn(set.length, (i) => set[i], t) >= 0;
}
