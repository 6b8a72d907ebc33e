// Search over sessions with a parsed Query (see query.ts). Pure: the caller
// gives sessions (or their header/facts) and events; nothing here reads files.
//
// What a free word or phrase sees, per event (chunks are skipped: the
// assistant/message that follows them carries the same text whole):
//   messages (user/assistant/context/steering/system, both eras): text,
//     reasoning, tool-call blocks (name and arguments)
//   tool/call: name and arguments; tool/result: result text and error
//   turn/end: reason kind and its message; any other event: the strings in its data
//   a write or edit (tool/call and its result): the path it touched (file:)
// Event terms (words, tool:, is:error, reason:, file:, is:failed-edit) must all hold on the same
// event; session terms (is:open/fork/spawn/root/damaged/upgrade-refused, cwd:, id:, after:,
// before:) on the session. A query whose only event terms are negated is
// answered per session: the session matches when no event has what is excluded.
import { upgradeRefusal } from './upgrade.js';
import { isAscii } from 'node:buffer';
import picomatch from 'picomatch';
import { callEffect, EDIT_TOOLS, mayTouchPath } from './call-effect.js';
import { blockedTextsOf, contentText, endReason, messageOf, type SessionEvent } from './events.js';
import { textOf } from './json-safe.js';
import { stateOf } from './log-facts.js';
import { foldCase, indexOfFolded } from './literal.js';
import { isEventTerm, type Query, type Term } from './query.js';
import type { Session } from './session.js';

export interface SearchEntry {
  seq: number;
  /** the turn the event belongs to, or null between turns */
  turn: number | null;
  type: string;
  /** all searchable text of the event, as written (may hold control characters) */
  text: string;
  /** tool/call and tool/result (the result's call name when known) */
  tool?: string;
  /** tool/result with an error */
  isError?: boolean;
  /** turn/end reason kind */
  reason?: string;
  /** tool/call and tool/result: the paths the call wrote or edited, or named with an unknown effect (call-effect.ts) */
  paths?: string[];
  /** tool/result of a write or edit that failed */
  failedEdit?: boolean;
}

export interface SessionMeta {
  id: string;
  cwd?: string;
  kind: 'root' | 'fork' | 'spawn';
  open: boolean;
  damaged: boolean;
  /** the current release would refuse it on upgrade (upgradeRefusal) */
  upgradeRefused: boolean;
  createdAt: number;
  /** last activity: the last event's time, else createdAt */
  lastTime: number;
}

export interface EventMatch {
  seq: number;
  turn: number | null;
  type: string;
  snippet: string;
}

/**
 * Folded text (see literal.ts), remembered for the last two haystacks (an
 * entry's text and its tool name are compared with every term of a query in
 * turn) and for recent needles (a query's values recur for every entry).
 */
const memo: Array<{ text: string; folded: string }> = [];
function foldedText(s: string): string {
  for (const m of memo) if (m.text === s) return m.folded;
  const folded = foldCase(s);
  memo.unshift({ text: s, folded });
  if (memo.length > 2) memo.pop();
  return folded;
}
const needleCache = new Map<string, string>();
function foldedNeedle(s: string): string {
  let f = needleCache.get(s);
  if (f === undefined) {
    if (needleCache.size > 256) needleCache.clear();
    needleCache.set(s, (f = foldCase(s)));
  }
  return f;
}

/** How a word, phrase or field value is compared: literally, case-insensitive as a `/…/iu` regular expression was (Unicode simple case folding). */
export function containsWord(text: string, word: string): boolean {
  return indexOfFolded(foldedText(text), foldedNeedle(word)) >= 0;
}

/** Most text kept per event for searching (a multi-megabyte tool result is cut here). */
export const MAX_EVENT_TEXT = 256 * 1024;
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function blocksText(content: unknown, out: string[]): void {
  if (typeof content === 'string') {
    out.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const b of content) {
    if (!isObj(b)) continue;
    if ((b.type === 'text' || b.type === 'reasoning') && typeof b.text === 'string') out.push(b.text);
    else if (b.type === 'tool-call') out.push(textOf(b.name ?? ''), typeof b.arguments === 'string' ? b.arguments : textOf(b.arguments ?? ''));
    else if (b.type === 'tool-result') blocksText(b.content, out);
  }
}

/** String leaves of any value, iteratively, up to `limit` characters in all. */
function stringLeaves(v: unknown, out: string[], limit: number): void {
  const stack: unknown[] = [v];
  let size = 0;
  while (stack.length && size < limit) {
    const x = stack.pop();
    if (typeof x === 'string') {
      out.push(x);
      size += x.length;
    } else if (typeof x === 'number' || typeof x === 'boolean') out.push(String(x));
    else if (Array.isArray(x)) for (let i = x.length - 1; i >= 0; i--) stack.push(x[i]);
    else if (isObj(x)) {
      const vals = Object.values(x);
      for (let i = vals.length - 1; i >= 0; i--) stack.push(vals[i]);
    }
  }
}

const MESSAGE_TYPES = new Set(['user/message', 'assistant/message', 'context/message', 'steering/message', 'system/message']);

/** The searchable entries of a session's events (one per event, chunks left out). */
export function buildSearchDoc(events: readonly SessionEvent[]): SearchEntry[] {
  return new SearchDocBuilder().add(events);
}

/**
 * buildSearchDoc for a log read in batches: each batch's entries, the call
 * names and turn number carried from the batches before (a large log is
 * searched a batch at a time, its entries matched and dropped).
 */
export class SearchDocBuilder {
  private readonly callNames = new Map<string, string>();
  /** the paths each call touched, for its result (only calls that touched one) */
  private readonly callPaths = new Map<string, string[]>();
  private turn: number | null = null;

  add(events: readonly SessionEvent[]): SearchEntry[] {
    const out: SearchEntry[] = [];
    const callNames = this.callNames;
    let turn = this.turn;
    for (const e of events) {
      const d = isObj(e.data) ? e.data : {};
      if (e.type === 'turn/start') turn = typeof d.turn === 'number' ? d.turn : turn === null ? 1 : turn + 1;
      const at = typeof d.turn === 'number' && e.type !== 'turn/start' ? d.turn : turn;
      if (e.type === 'assistant/chunk') continue;
      const parts: string[] = [];
      const entry: Omit<SearchEntry, 'text' | 'lower'> = { seq: e.seq, turn: at, type: e.type };
      if (MESSAGE_TYPES.has(e.type)) blocksText(messageOf(e).content, parts);
      else if (e.type === 'tool/call') {
        const name = textOf(d.name ?? '');
        const callId = textOf(d.callId ?? '');
        callNames.set(callId, name);
        entry.tool = name;
        const paths = touchedPaths(name, d.arguments);
        if (paths) {
          entry.paths = paths;
          this.callPaths.set(callId, paths);
        }
        parts.push(name, typeof d.arguments === 'string' ? d.arguments : textOf(d.arguments ?? ''));
      } else if (e.type === 'tool/result') {
        const msg = messageOf(e);
        const callId = textOf(d.callId ?? (msg as any).source?.callId ?? '');
        entry.tool = callNames.get(callId) ?? (typeof d.name === 'string' ? d.name : undefined);
        let isError = d.isError === true;
        const blocks = Array.isArray(d.content) ? d.content : Array.isArray(msg.content) ? (msg.content as unknown[]) : [];
        for (const b of blocks) if (isObj(b) && b.type === 'tool-result' && b.isError === true) isError = true;
        blocksText(blocks, parts);
        if (d.error !== undefined) parts.push(textOf(d.error));
        entry.isError = isError;
        const paths = this.callPaths.get(callId);
        if (paths) entry.paths = paths;
        if (isError && entry.tool !== undefined && EDIT_TOOLS.has(entry.tool)) entry.failedEdit = true;
      } else if (e.type === 'turn/end') {
        entry.reason = endReason(e);
        parts.push(entry.reason);
        if (isObj(d.reason)) stringLeaves(d.reason, parts, MAX_EVENT_TEXT);
        turn = null;
      } else if (e.type === 'prompt/blocked') {
        parts.push(contentText(d.content));
        stringLeaves(d.reason, parts, MAX_EVENT_TEXT);
      } else stringLeaves(d, parts, MAX_EVENT_TEXT);
      let text = parts.filter((p) => p !== '').join(' ');
      if (text.length > MAX_EVENT_TEXT) text = text.slice(0, MAX_EVENT_TEXT);
      out.push({ ...entry, text });
    }
    this.turn = turn;
    return out;
  }
}

/** The paths a call wrote or edited, or named with an effect the log cannot tell; undefined for none. */
function touchedPaths(name: string, args: unknown): string[] | undefined {
  if (!mayTouchPath(name)) return undefined;
  const fx = callEffect(name, args, undefined);
  return fx.kind === 'edit' || fx.kind === 'unknown' ? [fx.path] : undefined;
}

const matchers = new Map<string, (p: string) => boolean>();
/**
 * The matcher of a file: glob: picomatch's, case-insensitive, dot files
 * included; a glob that is not absolute also matches at any depth (the log
 * may hold a path absolute or relative to its cwd), and one without a slash
 * matches a file's name.
 */
export function globMatcher(glob: string): (p: string) => boolean {
  let m = matchers.get(glob);
  if (!m) {
    if (matchers.size > 256) matchers.clear();
    const patterns = glob.startsWith('/') ? [glob] : [glob, `**/${glob}`];
    const test = picomatch(patterns, { dot: true, nocase: true });
    matchers.set(glob, (m = (p: string) => test(p)));
  }
  return m;
}

export function sessionMeta(s: Session): SessionMeta {
  const f = s.facts;
  const meta: SessionMeta = {
    id: s.id,
    kind: s.kind,
    open: stateOf(f) === 'open-turn',
    damaged: s.diagnostics.length > 0 || f.validLength !== undefined,
    upgradeRefused: upgradeRefusal(s) !== undefined,
    createdAt: s.header.createdAt,
    lastTime: f.lastEventTime ?? s.header.createdAt,
  };
  if (s.cwd !== undefined) meta.cwd = s.cwd;
  return meta;
}

function sessionTermHolds(t: Term, m: SessionMeta): boolean {
  switch (t.kind) {
    case 'flag':
      return t.flag === 'open' ? m.open : t.flag === 'damaged' ? m.damaged : t.flag === 'upgrade-refused' ? m.upgradeRefused : m.kind === t.flag;
    case 'cwd':
      return m.cwd !== undefined && containsWord(m.cwd, t.value);
    case 'id':
      return containsWord(m.id, t.value);
    case 'after':
      return m.lastTime >= t.time;
    case 'before':
      return m.createdAt < t.time;
    default:
      return true;
  }
}

/** The session terms of `q` all hold for the session (event terms are not looked at). */
export function sessionTermsMatch(q: Query, m: SessionMeta): boolean {
  for (const t of q.terms) if (!isEventTerm(t) && sessionTermHolds(t, m) === t.negated) return false;
  return true;
}

/** Whether one event term holds for an entry (ignoring its negation). */
export function eventTermHolds(t: Term, e: SearchEntry): boolean {
  switch (t.kind) {
    case 'text':
      return containsWord(e.text, t.value);
    case 'tool':
      return e.tool !== undefined && containsWord(e.tool, t.value);
    case 'error':
      return e.isError === true;
    case 'file':
      return e.paths !== undefined && e.paths.some(globMatcher(t.value));
    case 'failedEdit':
      return e.failedEdit === true;
    case 'reason':
      return e.reason !== undefined && e.reason.length === t.value.length && containsWord(e.reason, t.value);
    default:
      return true;
  }
}

export const hasEventTerms = (q: Query): boolean => q.terms.some(isEventTerm);
const positiveEventTerms = (q: Query): Term[] => q.terms.filter((t) => isEventTerm(t) && !t.negated);
/** The query has an event term that must hold (not only negated ones): its matches are events, not sessions. */
export const hasPositiveEventTerms = (q: Query): boolean => positiveEventTerms(q).length > 0;

/** Whether any event term of the query (ignoring negation) holds for the entry: with only negated ones, such an entry rules its session out. */
export function holdsAnyEventTerm(q: Query, e: SearchEntry): boolean {
  return q.terms.some((t) => isEventTerm(t) && eventTermHolds(t, e));
}

/** Whether one entry satisfies every event term of the query. */
export function entryMatches(q: Query, e: SearchEntry): boolean {
  for (const t of q.terms) if (isEventTerm(t) && eventTermHolds(t, e) === t.negated) return false;
  return true;
}

/** The distinct positive words and phrases of a query, folded (the ones highlighted). */
function highlightNeedles(q: Query): string[] {
  const out = new Set<string>();
  for (const t of q.terms) if (t.kind === 'text' && !t.negated && t.value !== '') out.add(foldedNeedle(t.value));
  return [...out];
}

/** Start and end (exclusive) of every occurrence of the query's positive words in `text`, sorted, not overlapping. */
export function highlightRanges(q: Query, text: string): Array<[number, number]> {
  const needles = highlightNeedles(q);
  if (needles.length === 0) return [];
  const folded = foldedText(text);
  const ranges: Array<[number, number]> = [];
  for (const n of needles) for (let i = indexOfFolded(folded, n); i >= 0; i = indexOfFolded(folded, n, i + n.length)) ranges.push([i, i + n.length]);
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([...r]);
  }
  return out;
}

/**
 * The first range of highlightRanges(q, text), found without listing every
 * occurrence: each word's occurrences are walked only as far as the first
 * merged range reaches.
 */
export function firstHighlight(q: Query, text: string): [number, number] | undefined {
  const needles = highlightNeedles(q);
  if (needles.length === 0) return undefined;
  const folded = foldedText(text);
  // per word, its next occurrence not yet merged (-1: none left)
  const next = needles.map((n) => indexOfFolded(folded, n));
  let start = -1;
  for (const i of next) if (i >= 0 && (start < 0 || i < start)) start = i;
  if (start < 0) return undefined;
  let end = start;
  for (let grew = true; grew; ) {
    grew = false;
    needles.forEach((n, k) => {
      while (next[k] >= 0 && next[k] <= end) {
        if (next[k] + n.length > end) {
          end = next[k] + n.length;
          grew = true;
        }
        next[k] = indexOfFolded(folded, n, next[k] + n.length);
      }
    });
  }
  return [start, end];
}

/** About `width` characters of `text` around the first query word (the start when none), one line. */
export function snippetOf(q: Query, text: string, width = 80): string {
  const r = firstHighlight(q, text);
  let start = 0;
  if (r && r[1] > width) start = Math.max(0, r[0] - Math.floor((width - (r[1] - r[0])) / 2));
  let s = text.slice(start, start + width).replace(/\s+/g, ' ').trim();
  if (start > 0) s = '…' + s;
  if (start + width < text.length) s += '…';
  return s;
}

/** The matching events of one session's entries (a session that fails its session terms has none). */
export function matchEntries(q: Query, entries: readonly SearchEntry[], limit = Infinity): EventMatch[] {
  const out: EventMatch[] = [];
  for (const e of entries) {
    if (out.length >= limit) break;
    if (entryMatches(q, e)) out.push({ seq: e.seq, turn: e.turn, type: e.type, snippet: snippetOf(q, e.text) });
  }
  return out;
}

export type SessionMatch = { kind: 'events'; matches: EventMatch[] } | { kind: 'session' };

/**
 * Matches one session: null when it does not match; `session` when the query
 * has no positive event term (a session-level answer); else its matching events.
 * `entries` is called only when the session terms hold and events are needed.
 */
export function matchSession(q: Query, meta: SessionMeta, entries: () => readonly SearchEntry[]): SessionMatch | null {
  if (!sessionTermsMatch(q, meta)) return null;
  if (!hasEventTerms(q)) return { kind: 'session' };
  const doc = entries();
  if (positiveEventTerms(q).length === 0) return doc.some((e) => holdsAnyEventTerm(q, e)) ? null : { kind: 'session' };
  const matches = matchEntries(q, doc);
  return matches.length ? { kind: 'events', matches } : null;
}

// ---- raw prefilters: bytes that certainly hold no match are not parsed -------
//
// An entry's text (buildSearchDoc) is its parts joined by spaces. A part is
// a JSON string of the line as written (up to its escapes), or text made from
// other JSON: String(number) of a number leaf, JSON.stringify of tool
// arguments (compact: no spaces, numbers normalised), the '?' of a turn/end
// without reason, and in a prompt/blocked its text blocks run together. So a
// word's piece between two spaces lies within one part; a piece that holds a
// character no made-up text can hold (see maybeMadeUp) lies within a JSON
// string, and so is in the raw bytes, case aside, unless an escape hides one
// of its characters (`"`, `\` and controls are always escaped: such pieces are
// not looked for).

/** Words that occur outside strings in compact JSON or in String(number) ('e' of an exponent, Infinity). */
const MADE_UP_WORDS = ['true', 'false', 'null', 'infinity', 'e'];
const MADE_UP_CHARS = '{}[]:,0123456789.+-';

/** Whether a folded piece (no space) may lie in text that is not a JSON string of the line as written. */
export function maybeMadeUp(p: string): boolean {
  if (p === '?') return true; // endReason of a turn/end without one
  for (let i = 0; i < p.length; ) {
    const c = p[i];
    if (c >= 'a' && c <= 'z') {
      let j = i;
      while (j < p.length && p[j] >= 'a' && p[j] <= 'z') j++;
      const run = p.slice(i, j);
      const first = i === 0;
      const last = j === p.length;
      if (!MADE_UP_WORDS.some((w) => (first && last ? w.includes(run) : first ? w.endsWith(run) : last ? w.startsWith(run) : w === run))) return false;
      i = j;
    } else if (MADE_UP_CHARS.includes(c)) i++;
    else return false;
  }
  return true;
}

/** The folded pieces of a searched value that any text holding it holds as written in its line (see above). */
function rawPieces(value: string): string[] {
  const out: string[] = [];
  for (const piece of value.split(' ')) {
    if (piece === '' || /["\\\u0000-\u001f\u007f]/.test(piece)) continue;
    const f = foldedNeedle(piece);
    if (!maybeMadeUp(f)) out.push(f);
  }
  return out;
}

/**
 * Literal strings (folded) that must occur in a session file's raw bytes,
 * case aside, for the session to have a matching event: the pieces of its
 * positive words, tool names and reasons that text made from other JSON
 * cannot hold (see above). Undefined when the query has no positive event term.
 */
export function requiredLiterals(q: Query): string[] | undefined {
  if (positiveEventTerms(q).length === 0) return undefined;
  const out = new Set<string>();
  for (const t of positiveEventTerms(q)) if (t.kind === 'text' || t.kind === 'tool' || t.kind === 'reason') for (const p of rawPieces(t.value)) out.add(p);
  return [...out];
}

/** JSON escapes that may hide a word's character: any \\uXXXX but C0 controls and DEL, and \\/ (as the bytes are, any case). */
const HIDING_ESCAPE = /\\u(?!00[01][0-9a-f]|007f)|\\\//i;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The bytes of a region of a log, asked whether they may hold a literal
 * (case-insensitive, as the matcher compares); false only when they
 * certainly cannot. Cheap: a literal that folds to ASCII is looked for
 * case-insensitively in the bytes read as latin1 (a region of ASCII bytes is
 * then decided), any other first by its exact bytes; the bytes are decoded
 * and folded only for a literal neither finds in a region holding other
 * bytes. What it works out is kept for the next literal.
 */
class RawRegion {
  private lower: string | undefined;
  private ascii: boolean | undefined;
  private folded: string | undefined;
  private hiding: boolean | undefined;
  constructor(private readonly region: Buffer) {}

  mayHold(l: string): boolean {
    const region = this.region;
    const n = foldedNeedle(l);
    // (an ASCII literal's exact bytes are among what the lowercase search below finds: a 1 GB log's
    // bytes were searched once more for each, 0.35 s)
    if (!ASCII_ONLY.test(l) && region.indexOf(l) >= 0) return true;
    if (ASCII_ONLY.test(n)) {
      // latin1: one character per byte, and lowercasing maps no byte of 0x80 and up to ASCII
      const lower = (this.lower ??= region.toString('latin1').toLowerCase());
      if (lower.includes(n)) return true;
      if ((this.hiding ??= this.mayHide(lower))) return true;
      // other bytes fold to ASCII only as K (Kelvin) and ſ (long s): without them the bytes are decided
      if ((this.ascii ??= isAscii(region)) || !foldsIntoAscii(region, n)) return false;
    }
    if (this.folded === undefined) {
      const text = region.toString('utf8');
      if ((this.hiding ??= this.mayHide(text))) return true;
      this.folded = foldCase(text);
    }
    return indexOfFolded(this.folded, n) >= 0;
  }

  /** HIDING_ESCAPE in `text` (the region's): the pattern only where the bytes hold a backslash before u, U or / (searching bytes is ~4x faster). */
  private mayHide(text: string): boolean {
    const r = this.region;
    return (r.indexOf(ESC_U) >= 0 || r.indexOf(ESC_UPPER_U) >= 0 || r.indexOf(ESC_SLASH) >= 0) && HIDING_ESCAPE.test(text);
  }
}

const ESC_U = Buffer.from('\\u');
const ESC_UPPER_U = Buffer.from('\\U');
const ESC_SLASH = Buffer.from('\\/');

const BLOCKED = Buffer.from('prompt/blocked');

/** Whether bytes [start, end) of `raw` may hold every literal (RawRegion's test). */
export function rawMayMatch(raw: Buffer, literals: readonly string[], start = 0, end = raw.length): boolean {
  if (literals.length === 0) return true;
  const r = new RawRegion(start === 0 && end === raw.length ? raw : raw.subarray(start, end));
  for (const l of literals) if (!r.mayHold(l)) return false;
  return true;
}

/**
 * Whether a log's bytes, read a chunk at a time through `read` (never held
 * whole), may hold every literal: each literal anywhere (rawMayMatch's
 * test), or, for a prompt/blocked event, in the text its blocks run into, as
 * the search joins them (taken as "anything", a 1 GB log that holds two of
 * them was parsed whole for any word). Each literal is looked for in each
 * chunk and the end of the one before it (`overlap` bytes, more than any
 * literal's bytes can span), so one that spans two reads is seen whole.
 */
export function streamMayMatch(read: (buf: Buffer, at: number, pos: number, length: number) => number, literals: readonly string[], chunk: number): boolean {
  if (literals.length === 0) return true;
  const left = new Set(literals);
  const overlap = 4 * Math.max(...literals.map((l) => Buffer.byteLength(l))) + 16;
  const buf = Buffer.allocUnsafe(overlap + chunk);
  let have = 0;
  for (let pos = 0; ; ) {
    const n = read(buf, have, pos, chunk);
    if (n <= 0) return false;
    pos += n;
    const region = buf.subarray(0, have + n);
    const r = new RawRegion(region);
    for (const l of left) if (r.mayHold(l)) left.delete(l);
    // a prompt/blocked event runs its text blocks together: its words are looked for there too
    for (let i = region.indexOf(BLOCKED); i >= 0 && left.size > 0; i = region.indexOf(BLOCKED, i + 1)) {
      const from = region.lastIndexOf(10, i) + 1;
      const to = region.indexOf(10, i);
      // (a line cut by a read, or one that is not one event: it may hold anything)
      const texts = from > 0 && to >= 0 ? blockedTextsOf(region.toString('utf8', from, to)) : undefined;
      if (texts === undefined) return true;
      for (const t of texts) {
        const b = new RawRegion(Buffer.from(t));
        for (const l of left) if (b.mayHold(l)) left.delete(l);
      }
      i = to;
    }
    if (left.size === 0) return true;
    // the last bytes go first in the next read's buffer
    have = Math.min(overlap, region.length);
    region.copy(buf, 0, region.length - have);
  }
}

/** The code points above ASCII that fold to an ASCII one (a test checks every code point), as UTF-8. */
export const FOLDS_TO_ASCII: ReadonlyMap<string, Buffer> = new Map([
  ['k', Buffer.from('\u212a')],
  ['s', Buffer.from('\u017f')],
]);
const foldsIntoAscii = (region: Buffer, n: string): boolean => {
  for (const [c, bytes] of FOLDS_TO_ASCII) if (n.includes(c) && region.indexOf(bytes) >= 0) return true;
  return false;
};


/**
 * For `find`: which event lines of a log must be parsed for `q` (a
 * LogReader keepLine; the others are folded into facts from their envelope
 * only, and left out of the events buildSearchDoc gets). Left out: assistant
 * chunks (no entry), and lines that certainly cannot hold a piece of every
 * positive word (rawPieces). Kept: turn/start and turn/end (they number the
 * turns), tool/call when the query has a tool: term (it names the results),
 * prompt/blocked (see above). Leaving out entries that cannot match changes
 * no answer of matchSession.
 */
export function eventLineFilter(q: Query): (type: string, buf: Buffer, start: number, end: number) => boolean {
  const pieces = new Set<string>();
  for (const t of positiveEventTerms(q)) if (t.kind === 'text') for (const p of rawPieces(t.value)) pieces.add(p);
  const needed = [...pieces];
  const namesResults = q.terms.some((t) => t.kind === 'tool' || t.kind === 'file' || t.kind === 'failedEdit');
  return (type, buf, start, end) => {
    if (type === 'assistant/chunk') return false;
    if (type === 'turn/start' || type === 'turn/end' || type === 'prompt/blocked' || (namesResults && type === 'tool/call')) return true;
    return rawMayMatch(buf, needed, start, end);
  };
}
