// The index's fast path through an event line: a listing folds each event into
// LogFacts, and for most events (assistant chunks, tool calls and results,
// steps: nearly all of a log's bytes) the fold reads only type, seq, time and
// ignorable. JSON.parse would build every string of every tool result only to
// drop it. Here the line's bytes are checked against the JSON grammar in one
// pass, building nothing, and only those four top-level fields are read (and
// whether there is a data field: expandRow requires one).
//
// The audit's fold (event-audit.ts) reads one more field, of tool calls and
// results (nearly all of a real log's lines): data's callId. The scan reads
// it too when it is a string at data's top level (the last one, as
// JSON.parse keeps); anything else (absent, not a string, an escaped key
// that might spell it) takes the full parse.
//
// The answer is the same event envelope expandRow would give, or undefined
// when this scan is not sure: anything it does not handle (an event whose
// fold reads its data, a packed row, an escape in a key or in the type, a bad
// envelope, deep nesting, anything that is not valid JSON) goes through the
// full parse, which produces the diagnostics. So the scan only ever needs to
// say "valid JSON, and here are the fields": never why not.
//
// The caller checks that the bytes are valid UTF-8 first (isUtf8): this scan
// never decodes them, and invalid bytes must reach the decoder (U+FFFD, the
// INVALID_UTF8 warning) as before.
import { PACKED_TYPES, type SessionEvent } from '../session/events.js';
import { FOLD_READS_DATA } from '../session/log-facts.js';

/** Deeper than this the scan gives up (the full parse decides). Real events nest a few levels. */
const MAX_DEPTH = 64;

// Every scanning function takes the bytes, a position and the end, and returns
// the position after what it read, or -1 when that is not valid JSON. Plain
// arguments and locals, no shared mutable state: V8 keeps them in registers
// (with the position in a module-level `let` the same scan took twice as long).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The envelope of the event on bytes [start, stop) of `buf` (no newline), when
 * the line is valid JSON, a good single event row, and of a type whose fold
 * needs nothing else (`data` is left undefined; for a tool call or result,
 * `{callId}`). Otherwise undefined.
 */
export function scanEnvelope(b: Uint8Array, start: number, end: number): SessionEvent | undefined {
  let i = skipSpace(b, start, end);
  if (i >= end || b[i] !== 0x7b) return undefined; // `{`: only an object can be an event
  i = skipSpace(b, i + 1, end);
  // Duplicate keys: JSON.parse keeps the last, so each key's last value wins here too.
  let typeAt = -1;
  let typeEnd = 0;
  let seqAt = -1;
  let seqEnd = 0;
  let timeAt = -1;
  let timeEnd = 0;
  let hasData = false;
  let ignorable = false;
  oddEnvelope = false;
  surfaceKeys = 0;
  if (i < end && b[i] === 0x7d) return undefined; // {}: no type
  for (;;) {
    if (i >= end || b[i] !== QUOTE) return undefined;
    const keyAt = i + 1;
    i = string(b, i, end);
    if (i < 0) return undefined;
    const key = keyId(b, keyAt, i - 1);
    if (key < 0) return undefined; // an escaped key may spell "type" or "seq": the full parse decides
    i = skipSpace(b, i, end);
    if (i >= end || b[i] !== 0x3a) return undefined; // `:`
    const at = skipSpace(b, i + 1, end);
    const c = b[at];
    if (key === K_DATA) {
      callAt = -1; // a later data replaces an earlier one
      callSure = true;
    }
    i = key === K_DATA && c === 0x7b ? object(b, at, end, 2, true) : value(b, at, end, 1);
    if (i < 0) return undefined;
    if (key === K_TYPE) {
      typeAt = c === QUOTE ? at + 1 : -1;
      typeEnd = i - 1;
    } else if (key === K_SEQ) {
      seqAt = startsNumber(c) ? at : -1;
      seqEnd = i;
    } else if (key === K_TIME) {
      timeAt = startsNumber(c) ? at : -1;
      timeEnd = i;
    } else if (key === K_DATA) hasData = true;
    else if (key === K_IGNORABLE) {
      ignorable = c === 0x74; // `true` (a validated literal)
      if (!ignorable) oddEnvelope = true;
    } else if (key === K_OTHER) oddEnvelope = true;
    else if (key === K_SURFACE_OP) surfaceKeys |= SURFACE_OP;
    else if (key === K_SOURCES) surfaceKeys |= SOURCES;
    i = skipSpace(b, i, end);
    if (i >= end) return undefined;
    const d = b[i];
    i = skipSpace(b, i + 1, end);
    if (d === 0x7d) break; // `}`
    if (d !== 0x2c) return undefined; // `,`
  }
  if (i < end) return undefined; // something after the object
  // expandRow's checks, in its terms: a failing one goes to the full path for its message.
  if (typeAt < 0 || typeEnd === typeAt || !hasData || seqAt < 0 || timeAt < 0) return undefined;
  for (let j = typeAt; j < typeEnd; j++) if (b[j] === BACKSLASH) return undefined; // an escaped type: the full parse decodes it
  const seq = numberValue(b, seqAt, seqEnd);
  const time = numberValue(b, timeAt, timeEnd);
  if (!Number.isInteger(seq) || seq < 0 || !Number.isFinite(time)) return undefined;
  // -0 too: the harness's format packages refuse it as a time (sessionFormatSafeInteger)
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(time) || Object.is(time, -0)) oddEnvelope = true;
  const type = typeText(b, typeAt, typeEnd);
  if (FULL_PARSE.has(type)) return undefined;
  let data: { callId: string } | undefined;
  if (type === 'tool/call' || type === 'tool/result') {
    if (callAt < 0 || !callSure) return undefined;
    data = { callId: stringValue(b, callAt, callEnd) };
  }
  const ev: SessionEvent = { type, seq, time, data };
  if (ignorable) ev.ignorable = true;
  return ev;
}

/**
 * Whether the event the last scan answered for is outside rc.8's envelope
 * (rc8-rules.ts): a key it does not allow, ignorable not true, seq or time not
 * a safe integer. An rc.8 log takes the full parse for such a line, which says why.
 */
export const scannedOddEnvelope = (): boolean => oddEnvelope;
let oddEnvelope = false;

/**
 * Which of the surface keys the row the last scan answered for has
 * (SURFACE_OP | SOURCES): a v2+ log checks them by type (session/row-rules.ts).
 */
export const scannedSurfaceKeys = (): number => surfaceKeys;
export const SURFACE_OP = 1;
export const SOURCES = 2;
let surfaceKeys = 0;

/** Types the scan never answers for: their fold reads data, a packed row expands, a second header is an error. */
const FULL_PARSE = new Set<string>([...FOLD_READS_DATA, ...Object.keys(PACKED_TYPES), 'session']);

// data's callId, from object(…, data): the bytes of its string (quotes excluded), or
// -1 (none, or its last value is not a string); callSure false when a key of
// data holds an escape (it might decode to "callId"). Module state, set once a
// line: the scan's hot loops keep theirs in locals.
let callAt = -1;
let callEnd = 0;
let callSure = true;
const CALL_ID = [...'callId'].map((ch) => ch.charCodeAt(0));

function hasEscape(b: Uint8Array, from: number, to: number): boolean {
  for (let j = from; j < to; j++) if (b[j] === BACKSLASH) return true;
  return false;
}

function sameBytes(b: Uint8Array, from: number, to: number, word: number[]): boolean {
  if (to - from !== word.length) return false;
  for (let j = 0; j < word.length; j++) if (b[from + j] !== word[j]) return false;
  return true;
}

/** The (validated) string on [from, to) without its quotes: decoded, its escapes by JSON.parse. */
function stringValue(b: Uint8Array, from: number, to: number): string {
  if (hasEscape(b, from, to)) return JSON.parse(decoder.decode(b.subarray(from - 1, to + 1))) as string;
  // a call id is short and ASCII nearly always: built from its bytes (a TextDecoder call costs more than the id)
  if (to - from <= 64) {
    let id = '';
    for (let j = from; j < to; j++) {
      const c = b[j];
      if (c >= 0x80) return decoder.decode(b.subarray(from, to));
      id += String.fromCharCode(c);
    }
    return id;
  }
  return decoder.decode(b.subarray(from, to));
}

const K_OTHER = 0;
const K_TYPE = 1;
const K_SEQ = 2;
const K_TIME = 3;
const K_DATA = 4;
const K_IGNORABLE = 5;
/** the envelope's other keys (rc8-rules.ts): read past, noted in surfaceKeys */
const K_SURFACE_OP = 6;
const K_SOURCES = 7;
const ascii = (s: string): number[] => [...s].map((ch) => ch.charCodeAt(0));
const KEYS: Array<[number, number[]]> = [
  [K_TYPE, ascii('type')],
  [K_SEQ, ascii('seq')],
  [K_TIME, ascii('time')],
  [K_DATA, ascii('data')],
  [K_IGNORABLE, ascii('ignorable')],
  [K_SURFACE_OP, ascii('surfaceOp')],
  [K_SOURCES, ascii('sourceEventSeqs')],
];

/** Which key the scan reads lies on [from, to); -1 when it holds an escape (it might decode to one). */
function keyId(b: Uint8Array, from: number, to: number): number {
  const n = to - from;
  next: for (let k = 0; k < KEYS.length; k++) {
    const word = KEYS[k][1];
    if (word.length !== n) continue;
    for (let j = 0; j < n; j++) if (b[from + j] !== word[j]) continue next;
    return KEYS[k][0];
  }
  for (let j = from; j < to; j++) if (b[j] === BACKSLASH) return -1;
  return K_OTHER;
}

// The type as a string: decoded once and reused while lines repeat it (a log is runs of assistant/chunk).
let lastType = '';
let lastTypeBytes = new Uint8Array(0);
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the type, as JSON.parse keeps it
function typeText(b: Uint8Array, from: number, to: number): string {
  const n = to - from;
  if (n === lastTypeBytes.length) {
    let j = 0;
    while (j < n && b[from + j] === lastTypeBytes[j]) j++;
    if (j === n) return lastType;
  }
  lastTypeBytes = new Uint8Array(b.subarray(from, to)); // a copy: a Buffer's slice() is a view, and read buffers are reused
  lastType = decoder.decode(lastTypeBytes);
  return lastType;
}

/**
 * The double of the (validated) number on [from, to): a plain integer of up
 * to 15 digits summed exactly, anything else by Number(), which reads JSON's
 * number grammar to the same double as JSON.parse.
 */
function numberValue(b: Uint8Array, from: number, to: number): number {
  if (to - from <= 15) {
    let v = 0;
    let j = from;
    while (j < to && b[j] >= 0x30 && b[j] <= 0x39) v = v * 10 + (b[j++] - 0x30);
    if (j === to) return v;
  }
  let s = '';
  for (let j = from; j < to; j++) s += String.fromCharCode(b[j]);
  return Number(s);
}

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** One JSON value at i (no space before it). */
function value(b: Uint8Array, i: number, end: number, depth: number): number {
  if (i >= end) return -1;
  const c = b[i];
  if (c === QUOTE) return string(b, i, end);
  if (startsNumber(c)) return number(b, i, end);
  if (c === 0x7b) return object(b, i, end, depth + 1);
  if (c === 0x5b) return array(b, i, end, depth + 1);
  if (c === 0x74) return literal(b, i, end, TRUE);
  if (c === 0x66) return literal(b, i, end, FALSE);
  if (c === 0x6e) return literal(b, i, end, NULL);
  return -1;
}

const TRUE = ascii('true');
const FALSE = ascii('false');
const NULL = ascii('null');
function literal(b: Uint8Array, i: number, end: number, word: number[]): number {
  if (i + word.length > end) return -1;
  for (let j = 0; j < word.length; j++) if (b[i + j] !== word[j]) return -1;
  return i + word.length;
}

/** An object at i; `data`: the event's data, whose top-level callId it notes in callAt/callEnd/callSure. */
function object(b: Uint8Array, i: number, end: number, depth: number, data = false): number {
  if (depth > MAX_DEPTH) return -1;
  i = skipSpace(b, i + 1, end);
  if (i < end && b[i] === 0x7d) return i + 1;
  for (;;) {
    if (i >= end || b[i] !== QUOTE) return -1;
    const keyAt = i + 1;
    i = string(b, i, end);
    if (i < 0) return -1;
    const keyEnd = i - 1;
    i = skipSpace(b, i, end);
    if (i >= end || b[i] !== 0x3a) return -1;
    const at = skipSpace(b, i + 1, end);
    i = value(b, at, end, depth);
    if (i < 0) return -1;
    if (data) {
      if (sameBytes(b, keyAt, keyEnd, CALL_ID)) {
        callAt = b[at] === QUOTE ? at + 1 : -1;
        callEnd = i - 1;
      } else if (hasEscape(b, keyAt, keyEnd)) callSure = false;
    }
    i = skipSpace(b, i, end);
    if (i >= end) return -1;
    const d = b[i];
    if (d === 0x7d) return i + 1;
    if (d !== 0x2c) return -1;
    i = skipSpace(b, i + 1, end);
  }
}

function array(b: Uint8Array, i: number, end: number, depth: number): number {
  if (depth > MAX_DEPTH) return -1;
  i = skipSpace(b, i + 1, end);
  if (i < end && b[i] === 0x5d) return i + 1;
  for (;;) {
    i = value(b, i, end, depth);
    if (i < 0) return -1;
    i = skipSpace(b, i, end);
    if (i >= end) return -1;
    const d = b[i];
    if (d === 0x5d) return i + 1;
    if (d !== 0x2c) return -1;
    i = skipSpace(b, i + 1, end);
  }
}

/**
 * A string at i (its opening quote). JSON strings forbid raw control
 * characters; an escape is `\` and one of `"\/bfnrt`, or `u` and 4 hex digits.
 * Bytes of 0x80 and up are taken as they are (the caller checked UTF-8).
 */
function string(b: Uint8Array, i: number, end: number): number {
  i++;
  while (i < end) {
    const c = b[i++];
    if (c === QUOTE) return i;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      if (i >= end) return -1;
      const e = b[i];
      if (e === 0x75) {
        if (i + 5 > end || !isHex(b[i + 1]) || !isHex(b[i + 2]) || !isHex(b[i + 3]) || !isHex(b[i + 4])) return -1;
        i += 5;
      } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i++;
      else return -1;
    }
  }
  return -1; // no closing quote
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const startsNumber = (c: number): boolean => c === 0x2d || isDigit(c);

/** A number at i: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
function number(b: Uint8Array, i: number, end: number): number {
  if (b[i] === 0x2d) i++;
  if (i >= end) return -1;
  if (b[i] === 0x30) i++;
  else if (b[i] >= 0x31 && b[i] <= 0x39) while (i < end && isDigit(b[i])) i++;
  else return -1;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(b[i])) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= end || !isDigit(b[i])) return -1;
    while (i < end && isDigit(b[i])) i++;
  }
  return i;
}
