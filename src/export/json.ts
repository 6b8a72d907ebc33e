// Transcript -> JSON (any nesting depth; HTML- and terminal-safe escapes), a block at a time, then the changes.
import { jsonWithStreamedArray, StreamedJson } from '../cli/json-out.js';
import { safeStringify } from '../session/json-safe.js';
import { jsonSafe } from './escape.js';
import type { TranscriptStream } from './transcript.js';
import { changesJson } from '../session/changes.js';

/** The transcript as the JSON text of {format, version, ...head, blocks}, a piece a block. */
export function* jsonText(t: TranscriptStream): Generator<string> {
  // a turn's items made as its pieces are read (a huge turn) are written as they come
  const blocks = (function* () {
    for (const b of t.blocks) yield b.kind === 'turn' && !Array.isArray(b.items) ? new StreamedJson(b, 'items', b.items) : b;
  })();
  // the changes follow the blocks: they are whole once the blocks are read (the object's last piece ends it)
  let last: string | undefined;
  for (const piece of jsonWithStreamedArray({ format: 'dsh-transcript', version: 1, ...t.head }, 'blocks', blocks, (v) => safeStringify(v, 2))) {
    if (last !== undefined) yield jsonSafe(last);
    last = piece;
  }
  const changes = safeStringify(changesJson(t.changes()), 2).replace(/\n/g, '\n  ');
  yield jsonSafe(last!.replace(/\n\}$/, `,\n  "changes": ${changes}\n}`));
  yield '\n';
}
