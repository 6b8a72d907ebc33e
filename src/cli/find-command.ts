// `dsh-browse find [--dir DIR] QUERY [--json]`: like grep over sessions, with the
// query language of src/session/query.ts. Exit 0 with matches, 1 without.
//
// One pass over the files: a file whose raw text cannot hold the query's
// words is not parsed at all; the others are read once, searched, and
// dropped, so memory stays bounded by the largest session. Within a file only
// the event lines that may hold the words are parsed (search.ts
// eventLineFilter); the rest give the session's facts from their envelope.
import fs from 'node:fs';
import path from 'node:path';
import { isQueryError, parseQuery, queryErrorLine, type Query, type QueryError } from '../session/query.js';
import { buildSearchDoc, eventLineFilter, fileMayMatch, matchSession, requiredLiterals, sessionMeta, type EventMatch } from '../session/search.js';
import { readLog, sessionFromRead } from '../storage/session-file.js';
import { currentGeneration, registerGeneration, type GenerationMap } from '../storage/generations.js';
import { listSessionFiles } from '../storage/walk.js';
import { isCompressedLog } from '../storage/zstd-log.js';
import { UsageError, type Out } from './commands.js';
import { cell, painter } from './format.js';

export interface FindMatch extends Omit<EventMatch, 'seq' | 'turn'> {
  id: string;
  file: string;
  /** null for a session-level match (a query with no positive word, tool:, is:error or reason:) */
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

/** Files up to this size are tested whole for the query's words before they are parsed; larger ones are filtered line by line. */
const PREFILTER_MAX = 64 * 1024 * 1024;

/** Every match of `q` under `dir`, files in path order, events in seq order. */
export function findMatches(dir: string, q: Query): FindMatch[] {
  const literals = requiredLiterals(q);
  const needEvents = literals !== undefined || q.terms.some((t) => t.kind === 'text' || t.kind === 'tool' || t.kind === 'error' || t.kind === 'reason');
  // per line: only events that may match are parsed and kept (the rest give their facts from the envelope)
  const keepLine = eventLineFilter(q);
  const out: FindMatch[] = [];
  // one session per harness folder: its highest generation (older ones are never read, as in list and the browser)
  const gens: GenerationMap = new Map();
  const files = listSessionFiles(dir).sort();
  for (const f of files) registerGeneration(gens, f);
  for (const file of files) {
    const current = currentGeneration(gens, path.dirname(file));
    if (current !== undefined && current !== file) continue;
    try {
      // the raw-bytes test needs the text: a compressed log goes straight to the (bounded) reader, and so
      // does a huge one (a whole-file buffer past 2 GB, or a folded string past 512 MB, cannot be made)
      if (literals && literals.length > 0 && !isCompressedLog(file) && fs.statSync(file).size <= PREFILTER_MAX && !fileMayMatch(fs.readFileSync(file), literals)) continue;
      const read = readLog(file, needEvents ? { retain: true, keepLine } : false);
      const { session } = sessionFromRead(file, read);
      if (!session) continue;
      // the reader's events, not the session's: only the ones keepLine kept
      const m = matchSession(q, sessionMeta(session), () => buildSearchDoc(read.reader.events));
      if (!m) continue;
      if (m.kind === 'session') out.push({ id: session.id, file, seq: null, turn: null, type: 'session', snippet: session.facts.title ?? '' });
      else for (const e of m.matches) out.push({ id: session.id, file, ...e });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') continue; // vanished or unreadable: list/audit report it
      throw e;
    }
  }
  return out;
}

export function cmdFind(dir: string, query: string, out: Out): number {
  const matches = findMatches(dir, parseOrThrow(query));
  if (out.json) out.write(JSON.stringify({ matches }, null, 2) + '\n');
  else {
    const p = painter(out.color);
    for (const m of matches) {
      const where = m.seq === null ? '' : `#${m.seq}${m.turn !== null ? ` turn ${m.turn}` : ''} `;
      out.write(`${p('magenta', cell(m.file, 120))}: ${p('bold', cell(m.id, 40))} ${p('gray', where)}${p('cyan', cell(m.type, 30))} ${cell(m.snippet, 100)}\n`);
    }
  }
  return matches.length > 0 ? 0 : 1;
}
