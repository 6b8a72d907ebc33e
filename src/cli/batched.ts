// Text made in many small pieces, written in few large ones: a streamed
// export or tree makes a piece a block, hundreds of thousands for a huge
// session, and a write each would cost more than making them.

/** Characters gathered before a piece is handed on. */
const BATCH = 64 * 1024;

/** The pieces of `pieces` joined into pieces of about `size` characters (the last one shorter). */
export function* batched(pieces: Iterable<string>, size = BATCH): Generator<string> {
  let parts: string[] = [];
  let n = 0;
  for (const p of pieces) {
    parts.push(p);
    n += p.length;
    if (n >= size) {
      yield parts.join('');
      parts = [];
      n = 0;
    }
  }
  if (parts.length > 0) yield parts.join('');
}
