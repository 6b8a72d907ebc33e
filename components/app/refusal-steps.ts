// rc.8's refusals of whole roots, found again from the files found whenever
// the count of files or sessions moved, in steps a frame's catch-up can pause
// between. Kept out of the controller because it is a pass over every path of
// the root with its own state (where it stopped), not part of drawing.
import { RootShapes, type ListRefusal } from '../../src/storage/root-refusals.js';
import type { RootIndex } from '../../src/storage/load-root.js';

const sameEntries = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
const sameList = (a: ReadonlyMap<string, ListRefusal>, b: ReadonlyMap<string, ListRefusal>): boolean => a.size === b.size && [...a].every(([k, v]) => b.get(k)?.reason === v.reason);

export class RefusalSteps {
  /** the verdicts of the last complete pass, and the counts of files and sessions it was made at */
  private current = { files: -1, sessions: -1, map: new Map<string, string>() as ReadonlyMap<string, string>, list: new Map<string, ListRefusal>() as ReadonlyMap<string, ListRefusal> };
  /** the pass under way (the count of files or sessions moved) */
  private job?: { files: number; sessions: number; paths: Iterator<string>; shapes: RootShapes };

  constructor(private readonly index: RootIndex) {}

  /** the root refusals as of the last complete pass */
  get map(): ReadonlyMap<string, string> {
    return this.current.map;
  }

  /** the refusals the Sessions list shows, as of the last complete pass */
  get list(): ReadonlyMap<string, ListRefusal> {
    return this.current.list;
  }

  /**
   * Found again when the count of files or sessions changed (a file added,
   * deleted or re-read as a session), not on every append, and not while the
   * first scan runs (a pass over every path per frame would cost the keys;
   * the scan's end brings it). In steps until `pause()` (80 ms at once for
   * 100,000 files); true when `map` and `list` are current. The same
   * verdicts keep the same maps, so the model is not rebuilt for them.
   */
  step(pause: () => boolean): boolean {
    const { index } = this;
    if (index.scan && !index.scan.finished) return true;
    const r = this.current;
    const files = index.files.size;
    const sessions = index.store.size;
    if (!this.job) {
      if (r.files === files && r.sessions === sessions) return true;
      // the live iterator: files added meanwhile are visited, deleted ones skipped (and the counts say to look again)
      this.job = { files, sessions, paths: index.files.keys(), shapes: new RootShapes() };
    }
    const job = this.job;
    for (let n = 1; ; n++) {
      const next = job.paths.next();
      if (next.done) break;
      const s = index.store.byFile(next.value);
      if (s) job.shapes.addSession(next.value, s, () => index.store.withId(s.id));
      else job.shapes.add(next.value);
      if (n % 1024 === 0 && pause()) return false;
    }
    this.job = undefined;
    const map = job.shapes.refusals();
    const list = job.shapes.listRefusals(map);
    this.current = { files: job.files, sessions: job.sessions, map: sameEntries(map, r.map) ? r.map : map, list: sameList(list, r.list) ? r.list : list };
    return index.files.size === job.files && index.store.size === job.sessions ? true : this.step(pause);
  }
}
