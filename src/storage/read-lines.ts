import fs from 'node:fs';

/** The default read size: big enough for few syscalls, small enough to stay in memory the CPU touched before. */
const CHUNK = 1 << 20;

/**
 * The lines of a text file, as `fs.readFileSync(file, 'utf8').split('\n')`
 * gives them (a UTF-8 sequence never holds the byte "\n", so decoding line by
 * line gives the same strings, replacement characters included), read in
 * chunks through one reused buffer. Why: `readFileSync(…, 'utf8')` of the 40 MB
 * cache of a 100,000-session root took ~500 ms here (a whole-file buffer and a
 * whole-file string, every page of both new to the process) against ~150–230
 * ms this way. Throws when the file is not a regular file or holds more than
 * `maxBytes` (checked again as it is read: it may grow meanwhile).
 */
export function readLines(file: string, maxBytes: number, chunk = CHUNK): string[] {
  const fd = openLines(file, maxBytes);
  try {
    return readLinesFd(fd, maxBytes, chunk);
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens a text file for readLinesFd: a regular file of at most `maxBytes`, else throws. */
function openLines(file: string, maxBytes: number): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > maxBytes) throw new Error(`over ${maxBytes} bytes`);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  return fd;
}

/** readLines from an open file. */
function readLinesFd(fd: number, maxBytes: number, chunk = CHUNK): string[] {
  let buf = Buffer.allocUnsafe(Math.max(1, chunk));
  const out: string[] = [];
  // bytes of an unfinished line at the start of buf
  let have = 0;
  let total = 0;
  for (;;) {
    if (have === buf.length) {
      // one line longer than the buffer: grow it (only the line is kept)
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, have);
      buf = bigger;
    }
    const n = fs.readSync(fd, buf, have, buf.length - have, null);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw new Error(`over ${maxBytes} bytes`);
    const end = have + n;
    const data = buf.subarray(0, end);
    let start = 0;
    for (let nl = data.indexOf(10, have); nl !== -1; nl = data.indexOf(10, start)) {
      out.push(buf.toString('utf8', start, nl));
      start = nl + 1;
    }
    buf.copyWithin(0, start, end);
    have = end - start;
  }
  out.push(buf.toString('utf8', 0, have));
  return out;
}
