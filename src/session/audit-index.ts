// The audit, kept current in the background: each session's findings are
// computed once (reading its events and its parents' for the seed check) and
// again only when it or its parents change. `step` audits stale sessions until
// a time budget is spent, so the TUI runs it in small slices between frames
// and never blocks a key for long (one session is the unit of work).
import { auditRoot, auditSession, sessionsById, type Finding } from './audit.js';
import type { Diagnostic } from './diagnostics.js';
import type { Session } from './session.js';

const keyOf = (s: Session): string => s.file ?? `mem:${s.id}`;

/** What a session's findings depend on: its own log and its parents' (the seed check). */
function signature(s: Session, byId: ReadonlyMap<string, readonly Session[]>): string {
  const parents = s.parentSession !== undefined ? (byId.get(s.parentSession) ?? []) : [];
  return `${s.length}|${s.log.consumed}|${s.diagnostics.length}|${parents.map((p) => `${keyOf(p)}:${p.length}`).join(',')}`;
}

interface Entry {
  session: Session;
  sig: string;
  findings: Finding[];
}

export class AuditIndex {
  private readonly done = new Map<string, Entry>();
  /** bumps whenever a session's findings were (re)computed or dropped */
  version = 0;

  /** Sessions whose findings are missing or out of date. */
  stale(sessions: readonly Session[], byId = sessionsById(sessions)): Session[] {
    return sessions.filter((s) => {
      const e = this.done.get(keyOf(s));
      return !e || e.session !== s || e.sig !== signature(s, byId);
    });
  }

  /**
   * Audits stale sessions until `budgetMs` is spent (at least one). Returns
   * whether findings changed and whether every session is now current.
   */
  step(sessions: readonly Session[], budgetMs: number, clock: () => number = () => performance.now()): { changed: boolean; done: boolean } {
    const start = clock();
    const byId = sessionsById(sessions);
    const live = new Set(sessions.map(keyOf));
    let changed = false;
    for (const key of this.done.keys())
      if (!live.has(key)) {
        this.done.delete(key);
        changed = true;
      }
    const todo = this.stale(sessions, byId);
    let i = 0;
    for (; i < todo.length; i++) {
      if (i > 0 && clock() - start >= budgetMs) break;
      const s = todo[i];
      let findings: Finding[];
      try {
        findings = auditSession(s, byId);
      } catch (e) {
        // unreadable now (deleted meanwhile): say so as a finding; a later change re-audits it
        findings = [{ code: 'READ_FAILED', severity: 'error', session: s.id, file: s.file, message: `could not audit: ${(e as Error).message}` }];
      }
      this.done.set(keyOf(s), { session: s, sig: signature(s, byId), findings });
      changed = true;
    }
    if (changed) this.version++;
    return { changed, done: i >= todo.length };
  }

  /** Every finding known so far: the root's (cheap, always current) and the audited sessions'. */
  findings(sessions: readonly Session[], refused: readonly Diagnostic[]): Finding[] {
    const out = auditRoot(sessions, refused);
    for (const s of sessions) {
      const e = this.done.get(keyOf(s));
      // not audited yet: its reader diagnostics at least
      if (e && e.session === s) out.push(...e.findings);
      else out.push(...s.diagnostics.map((d) => ({ code: d.code, severity: d.severity, session: s.id, file: d.file, line: d.line, message: d.message })));
    }
    return out;
  }
}
