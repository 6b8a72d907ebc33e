// File names from session ids (docs/formats.md, "Files on disk"). The
// encoding keeps
// [A-Za-z0-9._-] and writes every other UTF-16 code unit as ~XXXX, so no id
// can name a path outside its folder ('/', NUL, '.' and '..' are all encoded).
import { createHash } from 'node:crypto';

const SAFE = /^[A-Za-z0-9._-]$/;
const ALL_SAFE = /^[A-Za-z0-9._-]*$/;

/** Longest encoded name we write; longer ones are capped and hashed. */
export const MAX_ENCODED_LENGTH = 200;

/**
 * The harness's own path-segment encoding (both eras): no cap. The harness
 * refuses an empty id; a name longer than the file system allows fails there.
 */
export function encodeSegment(id: string): string {
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  // nearly every id is safe whole: one test, no string built (the list asks for each session)
  if (ALL_SAFE.test(id)) return id;
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i];
    out += SAFE.test(ch) ? ch : '~' + id.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

/** Longest file name (bytes) a Linux/macOS file system takes: the harness cannot write a longer one. */
export const MAX_NAME_BYTES = 255;

/**
 * Our name for flat folders (not read by the harness): the harness encoding,
 * capped at MAX_ENCODED_LENGTH and hashed beyond it.
 */
export function encodeId(id: string): string {
  let out = encodeSegment(id);
  if (out.length > MAX_ENCODED_LENGTH) {
    // '~~' never occurs in a plain encoding ('~' is always followed by 4 hex
    // digits), so a capped name cannot collide with an uncapped one.
    const hash = createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 32);
    out = out.slice(0, MAX_ENCODED_LENGTH - 34) + '~~' + hash;
  }
  return out;
}
