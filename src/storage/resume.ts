// What `dsh --resume` would say about a session: the harness's verdict on
// resuming it. Pure: no I/O, only the session's header, facts and file path.
import path from 'node:path';
import { eraOf } from '../session/era.js';
import { NEWEST_FORMAT } from '../session/formats.js';
import type { Session } from '../session/session.js';
import { encodeSegment } from './id-encoding.js';
import { layoutOf, rc8ProjectFolder, rc8RootOf } from './layout.js';

export interface ResumeVerdict {
  resumable: boolean;
  /** why the harness would refuse it (absent when resumable) */
  reason?: string;
}

const safeInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0);

/**
 * The harness's verdict on resuming `s`, by the rules of the era that wrote it
 * (rc.8: 611615650f; RFC era: 0bf8749128). `sameId` lists every session with
 * the same id in the root (rc.8 refuses a root holding one id twice).
 */
export function resumeVerdict(
  s: Pick<Session, 'header' | 'file' | 'facts' | 'id' | 'cwd'>,
  sameId: readonly { file?: string }[] = [],
  /** why rc.8 refuses this session's whole root (see rc8RootRefusalsOf in root-refusals.ts), when it does */
  rootRefusal?: string,
): ResumeVerdict {
  const no = (reason: string): ResumeVerdict => ({ resumable: false, reason });
  const h = s.header;
  const era = eraOf(s);
  const file = s.file;
  if (!(Number.isInteger(h.version) && h.version >= 0 && h.version <= NEWEST_FORMAT)) return no(`format version ${String(h.version)}: the current harness reads versions 0 to ${NEWEST_FORMAT}`);
  if (!file) return no('not written to disk');
  const layout = layoutOf(file);
  if (era === 'rc8') {
    if (layout !== 'rc8-harness') return no(`not in a harness root: dsh --resume looks for <root>/--<project>--/<id>/${h.version === 0 ? 'session.jsonl' : `session.v${h.version}.jsonl`}`);
    if (!safeInt(h.delegationDepth)) return no('rc.8 header has no delegationDepth: rc.8 reads it as "first line is not a session header"');
    if (!safeInt(h.createdAt)) return no('createdAt is not a non-negative safe integer');
    if (h.origin !== undefined && h.origin !== 'subagent') return no('origin must be "subagent" when present');
    if (h.agentPreset !== undefined && typeof h.agentPreset !== 'string') return no('agentPreset is not a string');
  } else if (layout !== 'v0-harness') return no('not in a harness root: the RFC-era dsh --resume looks for <root>/cwd-<hash>/<id>.jsonl');
  if (h.cwd !== undefined && !path.isAbsolute(h.cwd)) return no(`cwd ${JSON.stringify(h.cwd)} is not an absolute path`);
  if (s.id.length === 0) return no('the id is empty');
  if (era === 'rc8') {
    const expected = path.join(rc8RootOf(file), rc8ProjectFolder(h.cwd), encodeSegment(s.id), path.basename(file));
    if (expected !== file) return no(`header id and cwd identify ${expected}, not this file: rc.8 calls it corrupt`);
    if (rootRefusal !== undefined) return no(rootRefusal);
    const others = sameId.filter((o) => o.file !== file);
    if (others.length > 0) return no(`id also used by ${others[0].file}: rc.8 refuses a root holding one id twice`);
  } else {
    // The RFC-era loader looks for <encoded id>.jsonl in every bucket folder of the root.
    if (path.basename(file) !== encodeSegment(s.id) + '.jsonl') return no(`file name is not the encoded id (${encodeSegment(s.id)}.jsonl): dsh --resume cannot find it`);
  }
  // v2+ seed rules (session-format-v1-to-v2 .. v3-to-v4): the harness refuses a broken cut
  if (s.facts.seedMarker === 'seeded' && s.facts.seedFrom === undefined && s.facts.events > 0) return no('isSeeded is true but no session/end-seed {"inherited":true} marks the cut');
  if (s.facts.unresolvedCallSeq !== undefined) return no(`a tool call is still unanswered at the step or turn end at seq ${s.facts.unresolvedCallSeq}: the harness refuses the log`);
  if (s.facts.unknownEventLine !== undefined) return no(`line ${s.facts.unknownEventLine} has an event type the v${h.version} harness does not know and that is not marked ignorable`);
  if (s.facts.strayInheritedMarker !== undefined) return no(`an inherited session/end-seed (seq ${s.facts.strayInheritedMarker}) in a log whose header says isSeeded false`);
  if (s.facts.damagedBeforeTurnEnd !== undefined)
    return no(`a damaged line or seq gap precedes the turn/end at line ${s.facts.damagedBeforeTurnEnd}: corrupt committed region`);
  return { resumable: true };
}

// The command that continues a session (dsh --resume=<id>, in its cwd): src/session/resume-command.ts.
