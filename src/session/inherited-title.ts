// The title of a fork child with no prompt of its own (a fork at its parent's
// head, not yet continued). Its own log can only offer the first prompt it
// inherited, which is the ROOT's first prompt: a child of a child then shows a
// different title than its parent, whose title is the first prompt after ITS
// seed. What the parent showed at the cut is the title the child keeps; which
// prompt that was needs the parent's own seedLength, so it is resolved through
// the lineage (the harness itself keeps no title in the RFC era; rc.8 titles
// are session/title events, copied with the seed, so they match already).
import type { Session } from './session.js';

/** Parents further than this are not followed (a cycle of ids ends here too). */
const MAX_DEPTH = 64;

/** A child whose title may come from its parent: every prompt it has is inherited, and no session/title names it. */
export function takesParentTitle(s: Session): boolean {
  if (s.row) return s.row.takesTitle === true;
  const f = s.facts;
  return s.seedLength !== undefined && f.titleInherited === true && f.sessionTitle === undefined;
}

/**
 * The title `p` showed when its log was `cut` events long, or undefined when
 * that cannot be told (no prompt before the cut, a session/title, a parent
 * that cannot be resolved).
 */
export function titleAtCut(p: Session, cut: number, parentOf: (s: Session) => Session | undefined, depth = 0): string | undefined {
  const f = p.facts;
  if (f.sessionTitle !== undefined) return undefined;
  if (f.title !== undefined && !f.titleInherited && f.titleSeq !== undefined && f.titleSeq < cut) return f.title;
  // no prompt of its own before the cut: it showed what its own parent showed at its cut
  const seed = p.seedLength;
  if (seed === undefined || depth >= MAX_DEPTH) return undefined;
  const g = parentOf(p);
  return g && g !== p ? titleAtCut(g, Math.min(seed, cut), parentOf, depth + 1) : undefined;
}

/** The title a child with no prompt of its own shows: its parent's at the cut, else the first prompt it inherited. */
export function inheritedTitle(s: Session, parentOf: (s: Session) => Session | undefined): string | undefined {
  if (!takesParentTitle(s)) return s.facts.title;
  const p = parentOf(s);
  return (p && p !== s ? titleAtCut(p, s.seedLength!, parentOf) : undefined) ?? s.facts.title;
}
