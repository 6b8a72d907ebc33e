// Problems, where they are: every diagnostic and audit finding as a row with
// its file, line, session and seq; the worst code per session (row badges);
// and where a tampered fork child first differs from its parent. Pure: the
// caller passes sessions, refused-file diagnostics and (when the audit has
// run) its findings.
import { sessionKey } from './session-key.js';
import { canonicalJson, type Finding, type Severity } from './audit.js';
import type { Diagnostic } from './diagnostics.js';
import type { SessionEvent } from './events.js';
import type { Session } from './session.js';
import { upgradeRefusal } from './upgrade.js';

export interface ProblemRow {
  severity: Severity;
  code: string;
  /** the file the problem is in; absent only for a finding about an id in memory */
  file?: string;
  /** 1-based line in `file`, when known */
  line?: number;
  /** the session to jump to (SessionStore.keyOf) */
  sessionKey?: string;
  sessionId?: string;
  /** the event to jump to */
  seq?: number;
  message: string;
}

/** Codes in order of how bad they are for a reader of the session (worst first); unknown codes rank after these, by name. */
export const CODE_RANK: readonly string[] = [
  'SEED_MISMATCH',
  'LINEAGE_CYCLE',
  'SEED_NOT_AT_BOUNDARY',
  'SEQ_GAP',
  'DUPLICATE_SEQ',
  'MALFORMED_LINE',
  'BAD_EVENT',
  'LINE_TOO_LONG',
  'SEED_MARKER',
  'BAD_ROW',
  'UNKNOWN_EVENT',
  'UNSUPPORTED_VERSION',
  'BAD_HEADER',
  'NO_HEADER',
  'NOT_A_STORED_LOG',
  'NOT_DSH_SESSION',
  'FOREIGN_FORMAT',
  'STALE_GENERATION',
  'READ_FAILED',
  'COMPRESSED',
  'UNANSWERED_TOOL_CALL',
  'DUPLICATE_ID',
  'ORPHAN_PARENT',
  'TURN_ENCLOSURE',
  'TURN_NUMBERING',
  'UNMATCHED_TOOL_RESULT',
  'UPGRADE_REFUSED',
  'INVALID_UTF8',
  'BLANK_LINE',
];

const rankOf = (code: string): number => {
  const i = CODE_RANK.indexOf(code);
  return i < 0 ? CODE_RANK.length : i;
};

/** Negative when `a` is worse than `b`: errors before warnings, then CODE_RANK, then code name. */
export function compareSeverity(a: { severity: Severity; code: string }, b: { severity: Severity; code: string }): number {
  if (a.severity !== b.severity) return a.severity === 'error' ? -1 : 1;
  return rankOf(a.code) - rankOf(b.code) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}


/** The seq a reader diagnostic is about, from its message (the reader names it there). */
function diagnosticSeq(d: { code: string; message: string }): number | undefined {
  const m = d.code === 'SEQ_GAP' ? /\bgot (\d+)/.exec(d.message) : d.code === 'DUPLICATE_SEQ' ? /^seq (\d+) repeats/.exec(d.message) : null;
  return m ? Number(m[1]) : undefined;
}

export interface ProblemsInput {
  sessions: readonly Session[];
  /** diagnostics of files that are not sessions (RootIndex.files[].refused) */
  refused: readonly Diagnostic[];
  /** auditSessions(sessions, refused): when given, these are the rows (they include every diagnostic) */
  findings?: readonly Finding[];
}

/**
 * Every problem as a row, worst first, then by file and line. Without
 * findings (the audit has not run yet) the rows are the diagnostics alone.
 * A finding about an id (DUPLICATE_ID, LINEAGE_CYCLE) becomes one row per
 * session with that id, so each gets its badge.
 */
export function problemRows(input: ProblemsInput): ProblemRow[] {
  const byFile = new Map<string, Session>();
  const byId = new Map<string, Session[]>();
  for (const s of input.sessions) {
    if (s.file !== undefined) byFile.set(s.file, s);
    const list = byId.get(s.id);
    if (list) list.push(s);
    else byId.set(s.id, [s]);
  }
  const rows: ProblemRow[] = [];
  const add = (p: { severity: Severity; code: string; message: string; file?: string; line?: number; seq?: number }, s: Session | undefined) => {
    const row: ProblemRow = { severity: p.severity, code: p.code, message: p.message };
    const file = p.file ?? s?.file;
    if (file !== undefined) row.file = file;
    if (p.line !== undefined) row.line = p.line;
    if (s) {
      row.sessionKey = sessionKey(s);
      row.sessionId = s.id;
    }
    const seq = p.seq ?? diagnosticSeq(p);
    if (seq !== undefined) row.seq = seq;
    rows.push(row);
  };
  if (input.findings) {
    for (const f of input.findings) {
      const s = f.file !== undefined ? byFile.get(f.file) : undefined;
      if (s || f.file !== undefined || f.session === undefined) add(f, s);
      else for (const t of byId.get(f.session) ?? [undefined]) add(f, t);
    }
  } else {
    for (const d of input.refused) add(d, undefined);
    for (const s of input.sessions) for (const d of s.diagnostics) add(d, s);
  }
  // a forecast, not damage: a warning on every session the current release would refuse on upgrade
  for (const s of input.sessions) {
    const why = upgradeRefusal(s);
    if (why !== undefined) add({ severity: 'warning', code: 'UPGRADE_REFUSED', message: why }, s);
  }
  return rows.sort((a, b) => compareSeverity(a, b) || cmp(a.file ?? '', b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.seq ?? 0) - (b.seq ?? 0));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface SessionBadge {
  severity: Severity;
  /** the worst code of the session */
  code: string;
  /** how many problems the session has */
  count: number;
}

/** The worst problem per session key, for the badge on its row. */
export function worstBySession(rows: readonly ProblemRow[]): Map<string, SessionBadge> {
  const out = new Map<string, SessionBadge>();
  for (const r of rows) {
    if (r.sessionKey === undefined) continue;
    const cur = out.get(r.sessionKey);
    if (!cur) out.set(r.sessionKey, { severity: r.severity, code: r.code, count: 1 });
    else {
      cur.count++;
      if (compareSeverity(r, cur) < 0) {
        cur.severity = r.severity;
        cur.code = r.code;
      }
    }
  }
  return out;
}

export interface SeedDivergence {
  /** the first seq whose event differs from the parent's, or where one side ends */
  seq: number;
  parentKey: string;
  /** the parent's event at `seq` (absent when the parent is shorter) */
  parentEvent?: SessionEvent;
  /** the child's event at `seq` (absent when the child is shorter than its seedLength) */
  childEvent?: SessionEvent;
}

/**
 * Where a fork child's seed first differs from its parent's log: null when
 * the child is not a fork, or its first seedLength events equal the parent's.
 * With several candidate parents (duplicate ids) the one that agrees longest
 * is compared; pass `parents` to choose them (default: every session whose id
 * is the child's parentSession). Reads both logs in batches; loads nothing.
 */
export function seedDivergence(child: Session, sessions: readonly Session[], parents = sessions.filter((s) => s.id === child.parentSession && s !== child)): SeedDivergence | null {
  const n = child.seedLength;
  if (n === undefined || child.parentSession === undefined || parents.length === 0) return null;
  let best: SeedDivergence | null = null;
  for (const p of parents) {
    // both logs read in batches side by side: a large one is never held
    const mine = eventsOf(child, n);
    const theirs = eventsOf(p, n);
    try {
      let i = 0;
      let a = mine.next();
      let b = theirs.next();
      while (i < n && !a.done && !b.done && canonicalJson(a.value) === canonicalJson(b.value)) {
        i++;
        a = mine.next();
        b = theirs.next();
      }
      if (i === n) return null; // this parent's prefix is the seed
      if (best === null || i > best.seq) {
        best = { seq: i, parentKey: sessionKey(p) };
        if (!b.done) best.parentEvent = b.value;
        if (!a.done) best.childEvent = a.value;
      }
    } finally {
      mine.return(undefined);
      theirs.return(undefined);
    }
  }
  return best;
}

/** The first `count` events of a session one by one, read in batches (its loaded events when it has them). */
function* eventsOf(s: Session, count: number): Generator<SessionEvent> {
  for (const batch of s.eventBatches(count)) yield* batch;
}
