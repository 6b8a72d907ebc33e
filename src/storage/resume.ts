// What `dsh --resume` would say about a session: the harness's verdict on
// resuming it. Pure: no I/O, only the session's header, facts and file path.
import path from 'node:path';
import type { CatalogRow } from '../session/catalog-row.js';
import { eraOf } from '../session/era.js';
import { stateOf } from '../session/log-facts.js';
import { foreignFormat, foreignFormatText, NEWEST_FORMAT } from '../session/formats.js';
import type { Session } from '../session/session.js';
import { encodeSegment } from './id-encoding.js';
import { LEGACY_KINDS, rc8HeaderProblem, RETIRED_HEADER_FIELDS } from '../session/rc8-rules.js';
import { layoutOf, rc8PathOf } from './layout.js';

export interface ResumeVerdict {
  resumable: boolean;
  /** why the harness would refuse it (absent when resumable) */
  reason?: string;
}


/**
 * The harness's verdict on resuming `s`, by the rules of the era that wrote it
 * (rc.8: 611615650f; RFC era: 0bf8749128). `sameId` lists every session with
 * the same id in the root (rc.8 refuses a root holding one id twice).
 */
export function resumeVerdict(
  s: Pick<Session, 'header' | 'file' | 'facts' | 'id' | 'cwd'> & { row?: CatalogRow },
  sameId: readonly { file?: string }[] = [],
  /** why rc.8 refuses this session's whole root (see rc8RootRefusalsOf in root-refusals.ts), when it does */
  rootRefusal?: string,
): ResumeVerdict {
  const no = (reason: string): ResumeVerdict => ({ resumable: false, reason });
  // a catalog session alone with its id, in a root not refused: the verdict its row kept (what follows, computed then)
  const kept = s.row;
  if (kept && rootRefusal === undefined && sameId.every((o) => o.file === s.file)) return kept.resume === '' ? { resumable: true } : no(kept.resume);
  const h = s.header;
  const era = eraOf(s);
  const file = s.file;
  const foreign = foreignFormat(h as typeof h & Record<string, unknown>);
  if (foreign) return no(`${foreignFormatText(foreign)}: the harness reads versions 0 to ${NEWEST_FORMAT}; only ${foreign.fork ? foreign.fork.name : 'the fork that wrote it'} resumes it`);
  if (!(Number.isInteger(h.version) && h.version >= 0 && h.version <= NEWEST_FORMAT)) return no(`format version ${String(h.version)}: the current harness reads versions 0 to ${NEWEST_FORMAT}`);
  if (!file) return no('not written to disk');
  const layout = layoutOf(file);
  if (era === 'rc8') {
    if (layout !== 'rc8-harness') return no(`not in a harness root: dsh --resume looks for <root>/--<project>--/<id>/${h.version === 0 ? 'session.jsonl' : `session.v${h.version}.jsonl`}`);
    const shape = rc8HeaderProblem(h);
    if (shape !== undefined) return no(shape);
    const retired = h.version === 0 ? RETIRED_HEADER_FIELDS.find((k) => Object.hasOwn(h, k)) : undefined;
    if (retired !== undefined) return no(`the header has the retired field ${retired}: rc.8 says "session header uses retired policy baseline fields"`);
  } else if (layout !== 'v0-harness') return no('not in a harness root: the RFC-era dsh --resume looks for <root>/cwd-<hash>/<id>.jsonl');
  if (h.cwd !== undefined && !path.isAbsolute(h.cwd)) return no(`cwd ${JSON.stringify(h.cwd)} is not an absolute path`);
  if (s.id.length === 0) return no('the id is empty');
  if (era === 'rc8') {
    const expected = rc8PathOf(file, h.cwd, s.id);
    if (expected !== file) return no(`header id and cwd identify ${expected}, not this file: rc.8 calls it corrupt`);
    if (rootRefusal !== undefined) return no(rootRefusal);
    const others = sameId.filter((o) => o.file !== file);
    if (others.length > 0) return no(`id also used by ${others[0].file}: rc.8 refuses a root holding one id twice`);
  } else {
    // The RFC-era loader looks for <encoded id>.jsonl in every bucket folder of the root.
    if (path.basename(file) !== encodeSegment(s.id) + '.jsonl') return no(`file name is not the encoded id (${encodeSegment(s.id)}.jsonl): dsh --resume cannot find it`);
  }
  // v2+: the harness decodes every row before it looks at the cut (row-rules.ts)
  const row = s.facts.rowRefusal;
  const rowSays = (r: NonNullable<typeof row>): ResumeVerdict => no(`the harness refuses the log at seq ${r.seq}: "${r.why}"`);
  if (row !== undefined && (row.phase ?? 0) === 0) return rowSays(row);
  // v2+ seed rules (session-format-v1-to-v2 .. v3-to-v4): the harness refuses a broken cut
  if (s.facts.seedMarker === 'seeded' && s.facts.seedFrom === undefined && s.facts.events > 0) return no('isSeeded is true but no session/end-seed {"inherited":true} marks the cut');
  if (row !== undefined) return rowSays(row);
  if (s.facts.unresolvedCallSeq !== undefined) return no(`a tool call is still unanswered at the step or turn end at seq ${s.facts.unresolvedCallSeq}: the harness refuses the log`);
  if (s.facts.unknownEventLine !== undefined) return no(`line ${s.facts.unknownEventLine} has an event type the v${h.version} harness does not know and that is not marked ignorable`);
  if (s.facts.strayInheritedMarker !== undefined) return no(`an inherited session/end-seed (seq ${s.facts.strayInheritedMarker}) in a log whose header says isSeeded false`);
  if (era === 'rc8' && s.facts.zstdTornRecord) return no('a complete zstd frame holds a damaged row or ends inside a line: rc.8 says "corrupt Zstandard session log: complete frame contains a torn JSONL record"');
  if (s.facts.damagedBeforeTurnEnd !== undefined)
    return no(`a damaged line or seq gap precedes the turn/end at line ${s.facts.damagedBeforeTurnEnd}: corrupt committed region`);
  // rc.8 v0 (rc8-rules.ts), in the order its coordinator checks them
  const { rc8Legacy, rc8Unknown, rc8Envelope } = s.facts;
  if (rc8Legacy) return no(`rc.8 refuses the log: "contains ${LEGACY_KINDS[rc8Legacy.kind]} at seq ${rc8Legacy.seq}"`);
  if (rc8Unknown) return no(`event type ${JSON.stringify(rc8Unknown.type)} (seq ${rc8Unknown.seq}) is unknown to rc.8 and not marked "ignorable": true: rc.8 refuses to interpret the log`);
  if (rc8Envelope) return no(`the event at seq ${rc8Envelope.seq} has an invalid event envelope for rc.8 (${rc8Envelope.why})`);
  return { resumable: true };
}

// The command that continues a session (dsh --resume=<id>, in its cwd): src/session/resume-command.ts.

/**
 * What `dsh --resume` adds to a fork child of rc.8's (v0), said in its Turns
 * header: rc.8 rebuilds a resumed session from its events as a seed, and its
 * Session constructor (packages/core/session/src/index.ts) appends
 * `session/end-seed` {} after a seed that does not end with one, after the
 * closers an open turn gets (interruptedTurnClosers), so the live session
 * has one event more than its file. Undefined when it adds nothing.
 */
export function resumeAddsMarker(s: Pick<Session, 'header' | 'file' | 'facts' | 'length' | 'kind'>): string | undefined {
  if (s.kind !== 'fork' || s.header.version !== 0 || eraOf(s) !== 'rc8' || s.length === 0 || s.facts.lastEventType === 'session/end-seed') return undefined;
  if (stateOf(s.facts) === 'open-turn') return 'resuming closes the open turn, then adds a session/end-seed marker after its closers';
  return `resuming adds a session/end-seed marker at seq ${s.length}`;
}
