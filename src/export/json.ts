// Transcript -> JSON (any nesting depth; HTML- and terminal-safe escapes), a block at a time.
import { jsonWithStreamedArray, StreamedJson } from '../cli/json-out.js';
import { safeStringify } from '../session/json-safe.js';
import { jsonSafe } from './escape.js';
import type { TranscriptStream } from './transcript.js';

/** The transcript as the JSON text of {format, version, ...head, blocks}, a piece a block. */
export function* jsonText(t: TranscriptStream): Generator<string> {
  // a turn's items made as its pieces are read (a huge turn) are written as they come
  const blocks = (function* () {
    for (const b of t.blocks) yield b.kind === 'turn' && !Array.isArray(b.items) ? new StreamedJson(b, 'items', b.items) : b;
  })();
  for (const piece of jsonWithStreamedArray({ format: 'dsh-transcript', version: 1, ...t.head }, 'blocks', blocks, (v) => safeStringify(v, 2))) yield jsonSafe(piece);
  yield '\n';
}
