// A large log listed before it is read: its head (the header, the first
// user message that titles it) and its tail (the last event's time, whether a
// turn is open) give the row a user looks for at once, while the first scan
// reads the whole log in the background (scan.ts). The session it makes is
// marked `partial`: its counts are not known, and nothing acts on it until
// the whole read replaces it in the store.
import fs from 'node:fs';
import { expandRow } from '../session/events.js';
import { Session } from '../session/session.js';
import { LogReader } from './log-reader.js';
import { openRegular } from './open-file.js';
import { logLoader } from './session-file.js';
import { isCompressedLog } from './zstd-log.js';

/** How much of the head is read: the header and the first events (the title is the first user message). */
const HEAD_BYTES = 256 * 1024;
/** How much of the tail is read for the last event and the last turn's start or end. */
const TAIL_BYTES = 1024 * 1024;

/** A partial session of `file` from its head and tail, or undefined (compressed, no header in the head, unreadable). */
export function partialSession(file: string): Session | undefined {
  if (isCompressedLog(file)) return undefined;
  let fd: number;
  let size: number;
  try {
    const o = openRegular(file);
    fd = o.fd;
    size = o.st.size;
  } catch {
    return undefined;
  }
  try {
    const head = read(fd, 0, Math.min(size, HEAD_BYTES));
    const end = head.lastIndexOf(10) + 1;
    if (end === 0) return undefined;
    const reader = new LogReader(file, { retain: false });
    reader.feed(head.subarray(0, end));
    if (!reader.header || reader.refused !== undefined) return undefined;
    if (size > end) tailFacts(reader, read(fd, Math.max(end, size - TAIL_BYTES), size));
    const session = new Session(reader.header, file, reader, logLoader);
    session.partial = true;
    return session;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function read(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(to - from);
  let off = 0;
  while (off < buf.length) {
    const n = fs.readSync(fd, buf, off, buf.length - off, from + off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/**
 * The head's facts brought to the tail's end where the tail says: the last
 * event's type and time, and the state (a turn/end last seen: between turns;
 * a turn/start: a turn open). A tail with no turn event leaves the head's state.
 */
function tailFacts(reader: LogReader, tail: Buffer): void {
  const f = reader.facts;
  const v0 = reader.header?.version === 0;
  let last: { type: string; time?: number } | undefined;
  let turn: 'start' | 'end' | undefined;
  // the first line of the window may be cut: start after its end; the last may be unfinished: it fails to parse
  for (const line of tail.subarray(tail.indexOf(10) + 1).toString('utf8').split('\n')) {
    if (line === '') continue;
    let rows: ReturnType<typeof expandRow>;
    try {
      rows = expandRow(JSON.parse(line), v0);
    } catch {
      continue;
    }
    if (typeof rows === 'string') continue;
    for (const e of rows) {
      last = { type: e.type, time: typeof e.time === 'number' ? e.time : undefined };
      if (e.type === 'turn/start') turn = 'start';
      else if (e.type === 'turn/end') turn = 'end';
    }
  }
  if (!last) return;
  f.lastEventType = last.type;
  if (last.time !== undefined) f.lastEventTime = last.time;
  if (turn === 'end') {
    f.openTurn = null;
    f.sawTurnEnd = true;
    f.endsAtBoundary = true;
  } else if (turn === 'start') f.endsAtBoundary = false;
}
