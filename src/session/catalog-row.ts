// A session's row in the catalog: what the root's passes ask of every
// session (its list fields, its resume and upgrade verdicts alone, the
// audit's clean pass) as computed from its facts when the catalog was
// written. A warm start lists a session from its row and builds its log
// state only when something needs more (opening it, a finding to show,
// another session sharing its id). Each value is the output of the function
// that owns it, never a second rule: the row is a memo of them, trusted for
// the same log (the catalog's keys) and the same root path.
import type { StructureFinding } from './event-audit.js';
import { forkBlockOf, stateOf, type ForkBlock, type SessionState } from './log-facts.js';
import type { Session } from './session.js';
import { spentTokens } from './usage.js';

/** The list's fields that a session's facts decide (the catalog keeps them: its row). */
export interface ListFacts {
  turns: number;
  events: number;
  state: SessionState;
  diagnostics: number;
  /** why a fork of the whole log is refused (forkBlockOf; undefined: allowed, or an item without facts: not inside an open turn) */
  forkBlock?: ForkBlock;
  /** tokens in + out from assistant/message usage (undefined: the log records none) */
  tokens?: number;
  title?: string;
  /** its last event's time (createdAt stands in for activity without one) */
  lastEventTime?: number;
  lastEventType?: string;
}

/** What a catalog session answers without its log state (its header answers the rest). */
export interface CatalogRow extends ListFacts {
  /** resumeVerdict's reason when no other session has its id and its root is not refused ('' when it would resume) */
  resume: string;
  /** upgradeRefusal (absent: none) */
  upgrade?: string;
  /** takesParentTitle (inherited-title.ts) */
  takesTitle?: true;
  /** bytes of the log its facts describe */
  consumed: number;
  /** v2+: facts.seedFrom (Session.seedLength) */
  seedFrom?: number;
  /** the reader's folded structural findings (absent: not known, the audit reads the log) */
  structure?: readonly StructureFinding[];
}

/** The list facts of `s`: its row's while it has one, else from its facts. */
export function listFactsOf(s: Session): ListFacts {
  if (s.row) return s.row;
  const f = s.facts;
  const out: ListFacts = { turns: f.turns, events: f.events, state: stateOf(f), diagnostics: s.diagnostics.length };
  const block = forkBlockOf(f);
  if (block !== undefined) out.forkBlock = block;
  if (f.usage && f.usage.messages > 0) out.tokens = spentTokens(f.usage);
  if (f.title !== undefined) out.title = f.title;
  if (f.lastEventTime !== undefined) out.lastEventTime = f.lastEventTime;
  if (f.lastEventType !== undefined) out.lastEventType = f.lastEventType;
  return out;
}
