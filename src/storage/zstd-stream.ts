// A compressed log decoded as a bounded stream: frames are found from their
// headers, decoded in order, and the text handed to a sink a piece at a time;
// nothing holds the whole file or the whole text. A few MB on disk can decode
// to gigabytes (decoding a 5 GB bomb whole would take 5.4 GB of memory), so:
//   - a frame asking for a window over MAX_WINDOW is refused before any memory is taken;
//   - small frames with a declared size (rc.8's append batches) are decoded whole,
//     several at once, into at most WHOLE bytes;
//   - any other frame is streamed SLICE compressed bytes at a time, so the text
//     of one step is bounded (an RLE block turns 4 bytes into 128 KiB: a slice
//     gives at most 32768 times its size), and the sink can stop it at any point;
//   - step(pause) returns between pieces, so a caller keeps a UI responsive.
import { Decompress } from 'fzstd';
import { seekStep } from './zstd-seek.js';
import { bufferSource, decodeWhole, frameAt, HeaderReader, MAX_WINDOW, scanFrames, wasmDecoder, type ByteSource } from './zstd-frames.js';

/** Frames whose declared text is at most this are decoded whole. */
const WHOLE = 8 * 1024 * 1024;
/** Compressed bytes handed to a streaming decoder at a time. */
const SLICE = 8 * 1024;
/**
 * zstddec cannot free a streaming decoder that failed mid-input (its loop
 * never ends on an error, so it is abandoned): the WebAssembly memory it
 * holds (about its window) is lost. Past this much, fzstd streams instead.
 */
const LEAK_BUDGET = 256 * 1024 * 1024;
let leaked = 0;

/** Receives the text in order; false stops the stream. */
export type TextSink = (text: Uint8Array) => boolean;

export interface StreamOptions {
  /** where in the source to start: a frame's first byte (frames are independent, so any frame start will do) */
  from?: number;
  /** told where each complete frame (or run of frames decoded together) starts: its first byte, and the text delivered before it */
  onFrame?: (start: number, decoded: number) => void;
  /** told when the torn last frame is reached, all the text before it delivered */
  onTorn?: () => void;
}

type Advance = 'more' | 'done' | { error: string };
interface Job {
  advance(): Advance;
  /** stops early and frees what it holds */
  cancel(): void;
}

const STOP = Symbol('stop');
/** A zero-length skippable frame: fed after a frame's last byte, it makes zstddec flush the text it still holds. */
const FLUSH = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);

export class ZstdTextStream {
  /** bytes of text delivered */
  decoded = 0;
  /** complete frames read */
  frames = 0;
  /** bytes of the compressed source from a torn final frame on (an append in progress, or a crash) */
  tornBytes = 0;
  /** where the torn final frame starts: its first byte, and the text delivered before it */
  torn?: { at: number; text: number };
  /** set when the source is damaged from some point on: reading stopped there */
  error?: string;
  /** where in the compressed source reading is (the next frame, or inside the current one) */
  position = 0;
  done = false;
  /** set when the sink stopped the stream */
  stopped = false;
  private readonly heads: HeaderReader;
  private job?: Job;

  private readonly onFrame?: StreamOptions['onFrame'];
  private readonly onTorn?: StreamOptions['onTorn'];

  constructor(
    private readonly src: ByteSource,
    private readonly sink: TextSink,
    { from = 0, onFrame, onTorn }: StreamOptions = {},
  ) {
    this.heads = new HeaderReader(src);
    this.position = from;
    this.onFrame = onFrame;
    this.onTorn = onTorn;
  }

  /** Decodes until done (true) or until pause() says so between two pieces (false: call again). */
  step(pause?: () => boolean): boolean {
    while (!this.done) {
      if (this.job) {
        const r = this.job.advance();
        if (r === 'done') this.job = undefined;
        else if (r !== 'more') this.fail(r.error);
      } else this.nextFrame();
      if (!this.done && pause?.()) return false;
    }
    return true;
  }

  /** Stops reading (a cancelled load); nothing more reaches the sink. */
  close(): void {
    this.finish();
  }

  private finish(): void {
    this.done = true;
    const job = this.job;
    this.job = undefined;
    job?.cancel();
  }

  private fail(error: string): void {
    this.error = error;
    this.finish();
  }

  /** Hands text to the sink; false when the stream is over (the sink stopped it). */
  private deliver(text: Uint8Array): boolean {
    if (this.done) return false;
    if (text.length === 0) return true;
    this.decoded += text.length;
    if (this.sink(text)) return true;
    this.stopped = true;
    this.finish();
    return false;
  }

  private nextFrame(): void {
    const { src } = this;
    if (this.position >= src.size) return this.finish();
    const f = frameAt(this.heads, this.position);
    if (f.kind === 'bad') return this.fail(f.error);
    if (f.kind === 'skippable') {
      if (f.end > src.size) {
        this.tornBytes = src.size - f.start;
        this.torn = { at: f.start, text: this.decoded };
        this.onTorn?.();
        return this.finish();
      }
      this.position = f.end;
      return;
    }
    if (f.window !== undefined && f.window > MAX_WINDOW)
      return this.fail(`zstd frame at byte ${f.start} needs a ${f.window}-byte window, over the ${MAX_WINDOW}-byte limit of zstd decoders (the harness's included)`);
    if (f.kind === 'torn') {
      this.tornBytes = src.size - f.start;
      this.torn = { at: f.start, text: this.decoded };
      this.onTorn?.();
      if (f.window === undefined) return this.finish(); // not even a whole header yet
      this.job = this.streamJob(f.start, src.size, true, f.window);
      this.position = src.size;
      return;
    }
    this.position = f.end;
    this.onFrame?.(f.start, this.decoded);
    if (f.size === undefined || f.size > WHOLE || f.end - f.start > WHOLE) {
      this.job = this.streamJob(f.start, f.end, false, f.window);
      this.frames++;
      return;
    }
    // a run of small frames with declared sizes: one decode call. Its start is a
    // place a later read can start from (zstd-seek.ts), so a run is no longer
    // than the text between two places: a seek decodes little it does not need.
    const most = seekStep();
    const run = [f];
    let total = f.size;
    for (let pos = f.end; pos < src.size; ) {
      const g = frameAt(this.heads, pos);
      if (g.kind !== 'frame' || g.size === undefined || g.window > MAX_WINDOW || total + g.size > most || g.end - f.start > most) break;
      run.push(g);
      total += g.size;
      pos = g.end;
    }
    const last = run[run.length - 1];
    const text = decodeWhole(src.read(f.start, last.end - f.start), total);
    if (text) {
      this.frames += run.length;
      this.position = last.end;
      this.deliver(text);
      return;
    }
    // bad bytes somewhere in the run: keep every frame before the bad one
    for (const g of run) {
      const one = decodeWhole(src.read(g.start, g.end - g.start), g.size!);
      if (!one) return this.fail(`zstd frame at byte ${g.start} could not be decoded`);
      this.frames++;
      this.position = g.end;
      if (!this.deliver(one)) return;
    }
  }

  private streamJob(start: number, end: number, torn: boolean, window: number): Job {
    const w = wasmDecoder();
    return w && leaked < LEAK_BUDGET ? this.wasmJob(w, start, end, torn, window) : this.fzstdJob(start, end, torn);
  }

  /** zstddec's streaming decoder, fed SLICE bytes at a time by a generator it pulls from. */
  private wasmJob(w: NonNullable<ReturnType<typeof wasmDecoder>>, start: number, end: number, torn: boolean, window: number): Job {
    const { src } = this;
    let at = start;
    let stopInput = false;
    let empties = 0;
    function* input(): Generator<Uint8Array> {
      while (at < end && !stopInput) {
        const piece = src.read(at, Math.min(SLICE, end - at));
        if (piece.length === 0) return;
        at += piece.length;
        empties = 0;
        yield piece;
      }
      if (!torn && !stopInput) yield FLUSH;
    }
    const gen = w.decodeStreaming(input());
    const bad = (why: string): Advance => (torn ? 'done' : { error: `zstd frame at byte ${start} could not be decoded (${why})` });
    // zstddec keeps calling the decoder while input is left, and on an error it
    // consumes nothing and returns nothing: three empty results in a row without
    // a new slice mean it is stuck. It is abandoned (its memory is lost; counted).
    const stuck = (): boolean => {
      if (++empties < 3) return false;
      leaked += window + 512 * 1024;
      return true;
    };
    return {
      advance: () => {
        let r: IteratorResult<Uint8Array>;
        try {
          r = gen.next();
        } catch (e) {
          return bad((e as Error).message); // the decoder ended inside a frame
        }
        if (r.done) {
          // the decoder can end a frame before it asks for its last slice (the checksum's last bytes):
          // the next frame starts at the end its header gave, not where the input stopped
          this.position = end;
          return 'done';
        }
        if (r.value.length === 0) return stuck() ? bad('corrupt data') : 'more';
        empties = 0;
        this.position = Math.min(at, end);
        return this.deliver(r.value) ? 'more' : 'done';
      },
      cancel: () => {
        // drain what the current slice still yields (bounded by SLICE), so the decoder frees its memory
        stopInput = true;
        try {
          for (let r = gen.next(); !r.done; r = gen.next()) if (r.value.length === 0 && stuck()) return;
        } catch {
          /* ended inside a frame: freed */
        }
      },
    };
  }

  /** fzstd's streaming decoder (pure JavaScript; its window is at most MAX_WINDOW). */
  private fzstdJob(start: number, end: number, torn: boolean): Job {
    const { src } = this;
    let at = start;
    const dec = new Decompress((chunk) => {
      if (!this.deliver(chunk)) throw STOP;
    });
    return {
      advance: () => {
        if (at >= end) return 'done';
        const piece = src.read(at, Math.min(SLICE, end - at));
        if (piece.length === 0) return 'done';
        at += piece.length;
        this.position = at;
        try {
          dec.push(piece, !torn && at >= end);
        } catch (e) {
          if (e === STOP) return 'done';
          return torn ? 'done' : { error: `zstd frame at byte ${start} could not be decoded (${(e as Error).message})` };
        }
        return at >= end ? 'done' : 'more';
      },
      cancel: () => {},
    };
  }
}

export interface DecodedZstd {
  /** the text, in the pieces it was decoded in (lines may cross pieces) */
  chunks: Uint8Array[];
  length: number;
  frames: number;
  tornBytes: number;
  /** the first frame is exactly one line (rc.8 writes the header alone in it) */
  headerFrameIsOneLine?: boolean;
  error?: string;
}

/** Every piece of text a buffer decodes to, and the stream that decoded it (no bound: small buffers only). */
function collect(buf: Uint8Array): { chunks: Uint8Array[]; s: ZstdTextStream } {
  const chunks: Uint8Array[] = [];
  const s = new ZstdTextStream(bufferSource(buf), (t) => (chunks.push(t), true));
  s.step();
  return { chunks, s };
}

/** All the text of a small buffer at once (tests, a just-written child): unbounded, so never for a log from disk. */
export function decodeZstdLog(buf: Uint8Array): DecodedZstd {
  const { chunks, s } = collect(buf);
  let headerFrameIsOneLine: boolean | undefined;
  const first = scanFrames(buf).frames[0];
  if (first) {
    const head = decodedText(collect(buf.subarray(first.start, first.end)));
    headerFrameIsOneLine = head.length > 0 && head.indexOf(10) === head.length - 1;
  }
  return { chunks, length: s.decoded, frames: s.frames, tornBytes: s.tornBytes, headerFrameIsOneLine, ...(s.error !== undefined ? { error: s.error } : {}) };
}

export const decodedText = (d: { chunks: Uint8Array[] }): Buffer => Buffer.concat(d.chunks.map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength)));
