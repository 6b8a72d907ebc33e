// Transcript -> JSON (any nesting depth; HTML- and terminal-safe escapes), a block at a time.
import { jsonWithStreamedArray } from '../cli/json-out.js';
import { safeStringify } from '../session/json-safe.js';
import { jsonSafe } from './escape.js';
import type { TranscriptStream } from './transcript.js';

/** The transcript as the JSON text of {format, version, ...head, blocks}, a piece a block. */
export function* jsonText(t: TranscriptStream): Generator<string> {
  for (const piece of jsonWithStreamedArray({ format: 'dsh-transcript', version: 1, ...t.head }, 'blocks', t.blocks, (v) => safeStringify(v, 2))) yield jsonSafe(piece);
  yield '\n';
}
