// Opening a session file without ever blocking, and the real (byte) names of
// files whose names are not valid UTF-8.
//
// A name can be replaced by a FIFO between a folder listing and the open():
// a plain open() of a FIFO blocks until a writer appears (forever, and no
// signal handler in JS can run meanwhile). So every read opens with O_NONBLOCK
// and checks the type with fstat on the opened descriptor: anything that is
// not a regular file is closed at once and reported (NOT_A_FILE). O_NONBLOCK
// changes nothing for regular files.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';

const C = fs.constants;
export const READ_FLAGS = C.O_RDONLY | (C.O_NONBLOCK ?? 0) | (C.O_NOCTTY ?? 0);

/** Thrown (as an errno-like error) when the opened path is not a regular file. */
export class NotAFileError extends Error {
  readonly code = 'NOT_A_FILE';
  constructor(
    readonly file: string,
    readonly what: string,
  ) {
    super(`${what}, not a regular file: not read`);
  }
}

/** What an fs.Stats is, in words (for diagnostics). */
export function kindOf(st: fs.Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

// ---- names that are not valid UTF-8 ------------------------------------------

/** display path -> the real path bytes, for names that are not valid UTF-8 */
const realNames = new Map<string, Buffer>();

/**
 * A display name for a file name given as bytes: the UTF-8 text when it is
 * valid, otherwise the valid parts with every invalid byte written as \xNN.
 * The real bytes are remembered so fsPath() can reach the file again.
 */
export function displayName(dirDisplay: string, name: Buffer, sep: string): string {
  if (isUtf8(name)) {
    const text = name.toString('utf8');
    return dirDisplay.endsWith(sep) ? dirDisplay + text : dirDisplay + sep + text;
  }
  let out = '';
  let i = 0;
  while (i < name.length) {
    const len = utf8SeqLen(name, i);
    if (len > 0) {
      out += name.toString('utf8', i, i + len);
      i += len;
    } else out += '\\x' + name[i++].toString(16).toUpperCase().padStart(2, '0');
  }
  const display = dirDisplay.endsWith(sep) ? dirDisplay + out : dirDisplay + sep + out;
  const dirReal = fsPath(dirDisplay);
  const dirBytes = typeof dirReal === 'string' ? Buffer.from(dirReal, 'utf8') : dirReal;
  realNames.set(display, Buffer.concat([dirBytes, dirBytes[dirBytes.length - 1] === sep.charCodeAt(0) ? Buffer.alloc(0) : Buffer.from(sep), name]));
  return display;
}

/** Length of a valid UTF-8 sequence at buf[i], 0 when the byte starts none. */
function utf8SeqLen(b: Buffer, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > b.length) return 0;
  for (let k = 1; k < n; k++) if ((b[i + k] & 0xc0) !== 0x80) return 0;
  const s = b.toString('utf8', i, i + n);
  return s.includes('\uFFFD') ? 0 : n;
}

/** The path to give to fs for a display path (the real bytes when the name is not UTF-8). */
export function fsPath(display: string): string | Buffer {
  // (most roots have no such name: no lookup, which hashes the path, for each of 100,000 logs)
  return realNames.size === 0 ? display : (realNames.get(display) ?? display);
}

// ---- opening --------------------------------------------------------------------

/**
 * Opens `file` for reading without blocking and returns the descriptor and its
 * fstat. Throws NotAFileError (after closing) when it is not a regular file,
 * and the usual errno errors otherwise.
 */
export function openRegular(file: string): { fd: number; st: fs.Stats } {
  const fd = fs.openSync(fsPath(file), READ_FLAGS);
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw new NotAFileError(file, kindOf(st));
  }
  return { fd, st };
}

/** An error's text with its code said once ("ENOSPC: no space left on device, write"). */
export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as NodeJS.ErrnoException).code;
  const msg = e.message;
  if (!code || msg.startsWith(code + ':') || msg.includes(code)) return msg;
  return `${code}: ${msg}`;
}

/**
 * Fills `buf` from byte `at` of the open file `fd` (a read may return less
 * than asked); returns how many bytes it got, fewer only at the file's end.
 */
export function readFullyAt(fd: number, buf: Uint8Array, at: number): number {
  let got = 0;
  while (got < buf.length) {
    const n = fs.readSync(fd, buf, got, buf.length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}
