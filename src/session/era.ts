// Which harness era wrote a session, and so how a child of it must be written.
// rc.8 always writes `delegationDepth` (its header check requires it); rc.8
// also keeps each session in a folder of its own and has its own vocabulary.
import type { SessionHeader } from './events.js';
import type { LogFacts } from './log-facts.js';
import { generationOf } from './generation-name.js';

export type Era = 'rfc' | 'rc8';

/** An rc.8 header: it carries delegationDepth (or another rc.8-only key), or a later format (v1+: every one since rc.8). */
export const isRc8Header = (h: SessionHeader): boolean =>
  h.version >= 1 || typeof h.delegationDepth === 'number' || h.origin !== undefined || h.agentPreset !== undefined;

/** A file in the rc.8 folder layout: <root>/--<project>--|_no-cwd/<id>/session[.vN].jsonl[.zstd]. */
export function isRc8LayoutPath(file: string | undefined): boolean {
  if (!file) return false;
  // the last three segments, '/' or '\\' apart, found from the end (a split of the whole path was a
  // string per segment, for every session the list asks about)
  const a = sepBefore(file, file.length);
  const b = sepBefore(file, a);
  if (b < 0 || generationOf(file.slice(a + 1)) === undefined) return false;
  const grand = file.slice(sepBefore(file, b) + 1, b);
  return /^--.*--$/.test(grand) || grand === '_no-cwd';
}

/** The last '/' or '\\' of `s` before `end` (-1: none). */
function sepBefore(s: string, end: number): number {
  if (end <= 0) return -1;
  return Math.max(s.lastIndexOf('/', end - 1), s.lastIndexOf('\\', end - 1));
}

/** The boundary rule a log follows, decided before its events are read: its header and where it lies. */
export const usesRc8Rule = (h: SessionHeader, file: string | undefined): boolean => isRc8Header(h) || isRc8LayoutPath(file);

/** The era of a session: header, then layout, then vocabulary (session/end-seed, request/header, ...). */
export function eraOf(s: { header: SessionHeader; file?: string; facts: LogFacts }): Era {
  return usesRc8Rule(s.header, s.file) || s.facts.rc8Rule === true || s.facts.rc8Vocabulary === true ? 'rc8' : 'rfc';
}
