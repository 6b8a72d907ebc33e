// The audit of every session (AuditIndex) in background slices, one session
// at least per slice, between frames: once the first scan's list is drawn,
// and again for the sessions a change touched. Its own file: the one job that
// follows the store's journal rather than an action.
import { AuditIndex, type AuditMemory } from '../../src/session/audit-index.js';
import type { SessionStore } from '../../src/session/store.js';
import { milestone } from '../../src/trace.js';
import type { BackgroundJobs, Job, Slice } from './background-jobs.js';

export class BackgroundAudit {
  readonly index: AuditIndex;
  /** the store's journal version the audit's work list is as of (its first step reads the store as it is then) */
  private seen: number;
  private readonly slices: Job;

  constructor(
    jobs: BackgroundJobs,
    private readonly store: SessionStore,
    memory: AuditMemory | undefined,
    private readonly host: {
      /** false: no audit (its slices are never armed) */
      enabled: boolean;
      /** the first scan's list is drawn: the audit waits for it */
      listShown: () => boolean;
      /** findings changed: looked at in a coming frame */
      changed: () => void;
    },
  ) {
    this.index = new AuditIndex(memory, store);
    this.seen = store.changes.version;
    this.slices = jobs.add({ step: (slice) => this.step(slice), delay: 20 });
  }

  /**
   * The store emitted. The audit looks at the store again only when a
   * session came, went or changed: an emit for the live status or a skipped
   * file moved no session (after the first scan of 100,000 sessions, the
   * watcher's start made it build its work list of the whole root again).
   */
  storeChanged(): void {
    const changes = this.store.changes.version;
    if (changes === this.seen) return;
    this.seen = changes;
    this.index.invalidate();
  }

  /** Arms the next slice (a no-op while one is armed, or with the audit off). */
  schedule(): void {
    if (this.host.enabled) this.slices.arm();
  }

  /** One slice; true while sessions are left (or the list is not drawn yet). */
  private step(slice: Slice): boolean {
    if (!this.host.listShown()) return true;
    const { changed, done } = this.index.step(() => this.store.list(), slice.ms);
    if (changed) this.host.changed();
    if (done) milestone('audit done');
    return !done;
  }

  close(): void {
    this.index.cancel();
  }
}
