// `dsh-browse find [--dir DIR] QUERY [--json]`: like grep over sessions, with the
// query language of src/session/query.ts. Exit 0 with matches, 1 without.
//
// The content index (storage/content-index.ts) first rules out the logs that
// cannot hold the query's words; then one pass over the others, matches
// written as they are found: a file whose
// raw text cannot hold the query's words is not parsed at all; the others are
// read once, searched, and dropped. Within a file only the event lines that
// may hold the words are parsed (search.ts eventLineFilter); the rest give the
// session's facts from their envelope. A large log (64 MB and up) is read
// twice instead, facts then events in batches, so memory holds a batch
// however many of its events match.
import fs from 'node:fs';
import path from 'node:path';
import { isQueryError, parseQuery, queryErrorLine, type Query, type QueryError } from '../session/query.js';
import { buildSearchDoc, eventLineFilter, streamMayMatch, holdsAnyEventTerm, hasPositiveEventTerms, matchEntries, matchSession, requiredLiterals, SearchDocBuilder, sessionMeta, sessionTermsMatch, type EventMatch } from '../session/search.js';
import type { Session } from '../session/session.js';
import { readLog, sessionFromRead, startReadLog, type ReadJob } from '../storage/session-file.js';
import { currentGeneration, registerGeneration, type GenerationMap } from '../storage/generations.js';
import { iterateSessionFiles, listSessionFiles } from '../storage/walk.js';
import { cacheDir, keptListings } from '../storage/fact-cache.js';
import { statAheadOf, type StatAhead } from '../storage/stat-ahead.js';
import { ContentIndex } from '../storage/content-index.js';
import { trigramsOf } from '../session/trigrams.js';
import { isCompressedLog } from '../storage/zstd-log.js';
import { zstdFor } from '../storage/zstd-codecs.js';
import { NotAFileError, openRegular } from '../storage/open-file.js';
import { batched } from './batched.js';
import { UsageError, writePieces, type Out } from './commands.js';
import { jsonWithStreamedArray } from './json-out.js';
import { cell, painter } from './format.js';

export interface FindMatch extends Omit<EventMatch, 'seq' | 'turn'> {
  id: string;
  file: string;
  /** null for a session-level match (a query with no positive event term: a word, tool:, is:error, reason:, file:, is:failed-edit) */
  seq: number | null;
  turn: number | null;
}

/** Most characters of the query echoed in an error (an over-long query is the error itself). */
const ECHO = 200;

/** A query error as one line: position (1-based column), message and the query (its start, when long). */
export function queryErrorText(query: string, error: QueryError): string {
  const last = query.charCodeAt(ECHO - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? ECHO - 1 : ECHO; // not inside a surrogate pair
  const shown = query.length > ECHO ? `${query.slice(0, cut)}… (${query.length} characters)` : query;
  return `${queryErrorLine(error)} (query: ${shown})`;
}

export function parseOrThrow(query: string): Query {
  const q = parseQuery(query);
  if (isQueryError(q)) throw new UsageError(queryErrorText(query, q));
  return q;
}

/** Plain logs from this size are read twice (facts, then events in batches) rather than once with their matching events kept. */
let streamMin = 64 * 1024 * 1024;
/** Bytes of a log tested at once for the query's words (streamMayMatch). */
let streamChunk = 64 * 1024;
/** Tests: the size from which a log's events are matched a batch at a time, and the chunks its words are looked for in first. */
export function setFindStreamMin(bytes: number, chunk = 64 * 1024): void {
  streamMin = bytes;
  streamChunk = chunk;
}

/**
 * Whether the raw bytes of a plain log may hold every literal, read a chunk
 * at a time (never held whole): false when they cannot, else the log's size
 * as opened (undefined: not a regular file, read as before, which says what it is).
 */
function bytesMayMatch(file: string, literals: readonly string[]): false | { size?: number } {
  let fd: number;
  let size: number;
  try {
    ({ fd, st: { size } } = openRegular(file));
  } catch (e) {
    if (e instanceof NotAFileError) return {};
    throw e;
  }
  try {
    // (a small log's buffer is its size: no 64 KB each for 100,000 logs of 500 bytes)
    return streamMayMatch((buf, at, pos, length) => fs.readSync(fd, buf, at, length, pos), literals, Math.max(1, Math.min(streamChunk, size))) && { size };
  } finally {
    fs.closeSync(fd);
  }
}

/** Every match of `q` under `dir`, files in path order, events in seq order. */
export function findMatches(dir: string, q: Query, index?: ContentIndex): FindMatch[] {
  return [...findEach(dir, q, index)];
}

/** findIn over the logs under `dir` (findLogs). */
export function findEach(dir: string, q: Query, index?: ContentIndex): Generator<FindMatch> {
  return findIn(findLogs(dir, index && { root: index.root, dir: index.dir }), q, index);
}

/**
 * The logs find searches under `dir`, in path order: one session per harness
 * folder, its highest generation (older ones are never read, as in list and
 * the browser). With `cache` (the content index's root and cache folder), the
 * walk reuses the folder listings the fact cache keeps (a folder whose stat
 * is as listed is not listed again: at 100,000 logs most of the walk);
 * without it, no cache is read at all.
 */
export function findLogs(dir: string, cache?: { root: string; dir: string }): string[] {
  const gens: GenerationMap = new Map();
  const files = (cache ? [...iterateSessionFiles(dir, undefined, undefined, keptListings(cache.root, { dir: cache.dir }))] : listSessionFiles(dir)).sort();
  for (const f of files) registerGeneration(gens, f);
  return files.filter((file) => {
    const current = currentGeneration(gens, path.dirname(file));
    return current === undefined || current === file;
  });
}

/** Whether find asks the content index about `q` (it has words to rule logs out by). */
const indexTrigrams = (q: Query): Uint32Array | undefined => {
  const literals = requiredLiterals(q);
  const tri = literals ? trigramsOf(literals) : undefined;
  return tri && tri.length > 0 ? tri : undefined;
};

/**
 * findMatches one match at a time, as the files are read: a log of
 * `streamMin` bytes or more has its session terms tried on its facts first,
 * then its events are read in batches, matched and dropped (a query that
 * matches every event of a 10 GB log holds one batch, not the log).
 * `ahead`: the logs' stats, taken on a worker thread (the index's check of
 * every log is mostly those).
 */
export function* findIn(logs: readonly string[], q: Query, index?: ContentIndex, ahead?: StatAhead): Generator<FindMatch> {
  const literals = requiredLiterals(q);
  const needEvents = literals !== undefined || q.terms.some((t) => t.kind === 'text' || t.kind === 'tool' || t.kind === 'error' || t.kind === 'reason');
  // per line: only events that may match are parsed and kept (the rest give their facts from the envelope)
  const keepLine = eventLineFilter(q);
  // the content index, brought up to date first, rules out the logs that cannot hold the query's words
  const tri = index ? indexTrigrams(q) : undefined;
  let mayHold = (_file: string): boolean => true;
  if (index && tri) {
    index.refreshAll(logs, ahead);
    mayHold = index.matcher(tri);
  }
  for (const file of logs) {
    if (!mayHold(file)) continue;
    let found: FindMatch[];
    try {
      const plain = !isCompressedLog(file);
      // its bytes first, as rg would: a log without the words is read once, never parsed (a
      // compressed log goes straight to the bounded reader: the test needs the text)
      const tested = plain && literals && literals.length > 0 ? bytesMayMatch(file, literals) : {};
      if (!tested) continue;
      if (plain && needEvents && (tested.size ?? fs.statSync(file).size) >= streamMin) {
        yield* findInLarge(file, q, keepLine);
        continue;
      }
      const read = readLog(file, needEvents ? { retain: true, keepLine } : false);
      const { session } = sessionFromRead(file, read);
      if (!session) continue;
      // the reader's events, not the session's: only the ones keepLine kept
      const m = matchSession(q, sessionMeta(session), () => buildSearchDoc(read.reader.events));
      if (!m) continue;
      found = m.kind === 'session' ? [sessionMatch(session, file)] : m.matches.map((e) => ({ id: session.id, file, ...e }));
    } catch (e) {
      if (vanished(e)) continue; // vanished or unreadable: list/audit report it
      throw e;
    }
    yield* found;
  }
}

const sessionMatch = (session: Session, file: string): FindMatch => ({ id: session.id, file, seq: null, turn: null, type: 'session', snippet: session.facts.title ?? '' });

function vanished(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR';
}

/** One large log: its facts read first (the session terms), then its events a chunk at a time up to the same end. */
function* findInLarge(file: string, q: Query, keepLine: ReturnType<typeof eventLineFilter>): Generator<FindMatch> {
  let job: ReadJob | undefined;
  try {
    const read = readLog(file, false);
    const { session } = sessionFromRead(file, read);
    if (!session || !sessionTermsMatch(q, sessionMeta(session))) return;
    job = startReadLog(file, { retain: true, keepLine }, read.reader.consumed, true);
    const doc = new SearchDocBuilder();
    const positive = hasPositiveEventTerms(q);
    for (let done = false; !done; ) {
      done = job.step(() => true);
      const entries = doc.add(job.drain());
      if (!positive) {
        // only negated event terms: the session matches when no event holds any of them
        if (entries.some((e) => holdsAnyEventTerm(q, e))) return;
        continue;
      }
      for (const m of matchEntries(q, entries)) yield { id: session.id, file, ...m };
    }
    if (!positive) yield sessionMatch(session, file);
  } catch (e) {
    if (vanished(e)) return;
    throw e;
  } finally {
    job?.close();
  }
}

export async function cmdFind(dir: string, query: string, out: Out, opts: { cache?: boolean } = {}): Promise<number> {
  const q = parseOrThrow(query);
  const root = path.resolve(dir);
  const cached = opts.cache !== false;
  const logs = findLogs(dir, cached ? { root, dir: cacheDir() } : undefined);
  await zstdFor(logs);
  // a kept index checks every log by its stat: they start on a worker thread now, while its manifest is read
  const kept = cached && indexTrigrams(q) !== undefined && fs.existsSync(ContentIndex.fileFor(root) ?? '');
  const ahead = kept ? statAheadOf(logs, logs.length) : undefined;
  const index = cached ? new ContentIndex(root) : undefined;
  let found = 0;
  const counted = (function* () {
    for (const m of findIn(logs, q, index, ahead)) {
      found++;
      yield m;
    }
    index?.save();
    index?.close();
  })();
  if (out.json) await writePieces(out, batched(jsonWithStreamedArray({ matches: [] }, 'matches', counted, (v) => JSON.stringify(v, null, 2)), 16 * 1024));
  else {
    const p = painter(out.color);
    const lines = (function* () {
      for (const m of counted) {
        const where = m.seq === null ? '' : `#${m.seq}${m.turn !== null ? ` turn ${m.turn}` : ''} `;
        yield `${p('magenta', cell(m.file, 120))}: ${p('bold', cell(m.id, 40))} ${p('gray', where)}${p('cyan', cell(m.type, 30))} ${cell(m.snippet, 100)}\n`;
      }
    })();
    await writePieces(out, batched(lines, 16 * 1024));
  }
  if (out.json) out.write('\n');
  return found > 0 ? 0 : 1;
}
