// Which session is a child's parent. Ids repeat across files (ten real harness
// logs share one placeholder id), so "the first session with that id" is a
// guess that draws a fork under the wrong twin. A child resolves to:
// - the file it was forked from in this process (recorded by the store);
// - else the only session with the parent id;
// - else, for a fork child, the one candidate whose first seedLength events
//   equal the child's (the audit's seed check);
// - else nothing: `ambiguous`, never a guess.
import { canonicalJson } from './audit.js';
import type { SessionEvent } from './events.js';
import type { Session } from './session.js';
import { sessionKey } from './session-key.js';

export type ParentLink =
  | { kind: 'none' }
  | { kind: 'resolved'; key: string }
  | { kind: 'missing' }
  | { kind: 'ambiguous'; candidates: string[] };

/** Runs `fn` on the session's events, unloading them again if they were not loaded before. */
function withEvents<T>(s: Session, fn: (ev: readonly SessionEvent[]) => T, fallback: T): T {
  const was = s.isLoaded;
  try {
    return fn(s.events);
  } catch {
    return fallback; // unreadable (deleted meanwhile): it cannot be shown to match
  } finally {
    if (!was) s.unload();
  }
}

/** The child's first `seedLength` events equal the candidate's first ones. */
export function seedMatches(child: Session, candidate: Session): boolean {
  const n = child.seedLength ?? 0;
  if (candidate.length < n) return false;
  const seed = withEvents(child, (ev) => (ev.length < n ? undefined : ev.slice(0, n).map(canonicalJson)), undefined);
  if (!seed) return false;
  return withEvents(candidate, (ev) => seed.every((c, i) => canonicalJson(ev[i]) === c), false);
}

interface Memo {
  sig: string;
  link: ParentLink;
}
const memo = new WeakMap<Session, Memo>();

/** The parent of one session among `byId` (sessions grouped by id). */
/** The links without a key: one frozen object each (asked for every session of a root). */
const NO_PARENT: ParentLink = Object.freeze({ kind: 'none' });
const MISSING_PARENT: ParentLink = Object.freeze({ kind: 'missing' });

export function parentLink(s: Session, byId: ReadonlyMap<string, readonly Session[]>): ParentLink {
  const pid = s.parentSession;
  if (pid === undefined || pid === '') return NO_PARENT;
  const candidates = byId.get(pid) ?? [];
  if (candidates.length === 0) return MISSING_PARENT;
  const from = s.forkedFrom;
  if (from !== undefined && candidates.some((c) => sessionKey(c) === from)) return { kind: 'resolved', key: from };
  if (candidates.length === 1) return { kind: 'resolved', key: sessionKey(candidates[0]) };
  const keys = candidates.map((c) => sessionKey(c));
  if (s.seedLength === undefined) return { kind: 'ambiguous', candidates: keys };
  // Comparing seeds reads files: remember the answer until a candidate or the child changes.
  const sig = `${s.length}|${candidates.map((c) => `${sessionKey(c)}:${c.length}:${c.log.consumed}`).join('|')}`;
  const m = memo.get(s);
  if (m && m.sig === sig) return m.link;
  const matching = candidates.filter((c) => c !== s && seedMatches(s, c));
  const link: ParentLink = matching.length === 1 ? { kind: 'resolved', key: sessionKey(matching[0]) } : { kind: 'ambiguous', candidates: keys };
  memo.set(s, { sig, link });
  return link;
}

/** Parent links for every session, by session key. */
export function resolveParents(sessions: readonly Session[]): Map<string, ParentLink> {
  const byId = new Map<string, Session[]>();
  for (const s of sessions) {
    const list = byId.get(s.id);
    if (list) list.push(s);
    else byId.set(s.id, [s]);
  }
  const out = new Map<string, ParentLink>();
  for (const s of sessions) out.set(sessionKey(s), parentLink(s, byId));
  return out;
}
