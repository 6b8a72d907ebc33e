// Where to start decoding a compressed log to reach a given offset of its
// text. zstd frames are independent, and the harness writes one
// frame per append, so decoding can start at any frame. Every read of a
// compressed log notes, about once per MB of text, where a frame starts in
// the file and in the text; a later read of a turn, the tail or a fork's seed
// starts at the last such place before it instead of at the file's start.
// A 10 GB log's map is ~10,000 places (two numbers each).
import { lastAtOrBefore } from '../session/sorted.js';
import type fs from 'node:fs';

/**
 * Text between two noted places (a read decodes at most this much, plus a
 * run of small frames decoded together, before what it wants); runs are
 * kept to it too (zstd-stream.ts). Tests set it to 1: every frame a place.
 */
let STEP = 1024 * 1024;
export const seekStep = (): number => STEP;
export function setSeekStep(bytes: number): void {
  STEP = bytes;
}
/** Maps kept (the most recently made first to go when past it). */
const MAX_MAPS = 256;

export class FrameMap {
  /** the file offsets of noted frame starts, and the text offsets they start at, both ascending */
  private readonly at: number[] = [0];
  private readonly text: number[] = [0];
  /**
   * where the last read that ran to the file's end stopped: its end, and its
   * text's (undefined when it ended in a torn frame, whose text the harness
   * drops and writes again): the next append is decoded from there
   */
  end?: { at: number; text: number };

  constructor(
    readonly file: string,
    readonly ino: number,
    readonly dev: number,
  ) {}

  /** A frame at file offset `at` starts text offset `text` (kept when a STEP past the last place noted). */
  note(at: number, text: number): void {
    const n = this.text.length;
    if (text - this.text[n - 1] < STEP || at <= this.at[n - 1]) return;
    this.at.push(at);
    this.text.push(text);
    if (n === 1) keep(this);
  }

  /** The file's end was read: `at` bytes, ending text offset `text` (kept with the map: a small log's, never kept, is read again whole). */
  ended(at: number, text: number): void {
    this.end = { at, text };
  }

  /** The last noted place at or before text offset `offset`. */
  before(offset: number): { at: number; text: number } {
    const text = this.text;
    // (the first place, text offset 0, when none is at or before: as an offset before it cannot be asked)
    const i = Math.max(0, lastAtOrBefore(text.length, (j) => text[j], offset));
    return { at: this.at[i], text: text[i] };
  }

  get places(): number {
    return this.text.length;
  }
}

// Only maps with a place past the start are kept (a small log's is never stored).
const maps = new Map<string, FrameMap>();

function keep(m: FrameMap): void {
  maps.delete(m.file);
  maps.set(m.file, m);
  if (maps.size > MAX_MAPS) maps.delete(maps.keys().next().value!);
}

/**
 * The map of `file` as opened (`st`): the one noted before when it is the
 * same file (inode), else a new one. `fresh`: a read of a log that may have
 * been rewritten in place (on load, or read again by the follower), which
 * notes every place again.
 */
export function frameMapOf(file: string, st: fs.Stats, fresh = false): FrameMap {
  const m = maps.get(file);
  if (m && !fresh && m.ino === st.ino && m.dev === st.dev) return m;
  if (m) maps.delete(file);
  return new FrameMap(file, st.ino, st.dev);
}

/** Forgets every map (tests). */
export const clearFrameMaps = (): void => maps.clear();
