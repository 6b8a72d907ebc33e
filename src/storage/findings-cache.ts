// The findings cache: what the background audit (AuditIndex) found in each
// session its reader's fold could not answer, kept between runs beside the
// fact cache, so a warm start does not read those logs again to audit them.
// The fold (event-audit.ts, kept in the fact cache) answers nearly every
// session at once; what is left is a seeded child whose parent is in the
// root (its seed is compared with the parent's log) and a log whose fold is
// not known. So at 100,000 unseeded sessions the file is empty, and a warm
// start neither reads nor writes 100,000 entries (a 94 ms block of the audit
// on its first recall, ~0.2 s of CPU at each cold start's save).
//
// Where: the fact cache's folder, <hash of the root's real path>.findings
// (0600). Written once a run, when its first audit has covered every session
// (and only when something was audited anew, or an entry is gone). One line
// per such session after a header line:
//
//   {"dshBrowseFindings":"<FINDINGS_FORMAT>/<cacheVersion>","root":...,"stamp":S,"entries":      N}
//   (the count in a fixed width: the file is written as a stream, its head line last)
//   "<path relative to the root, as JSON>"\t[[dev,ino,size,mtimeMs,ctimeMs-mtimeMs],[parent...],findings]
//
// with each parent ["<path>",dev,ino,size,mtimeMs,ctimeMs-mtimeMs], in the
// order the session was audited against them (a session's findings also
// depend on its parents' logs: the seed check).
//
// Trust, as the fact cache's: findings are used only when the session's file
// and each of its parents' files (the same parents, in the same order) have
// the dev, ino, size, mtime and ctime they had when audited, and each file's
// mtime was at least RACY_MS older than the start of the run that audited it
// (such entries are not written at all). The stats compared are the index's,
// taken this run. Anything else is audited again. A file that is truncated,
// garbage, of another version, or unreadable is ignored (and rewritten);
// never an error.
import path from 'node:path';
import type { Finding } from '../session/audit.js';
import type { AuditedSession, AuditMemory } from '../session/audit-index.js';
import type { Session } from '../session/session.js';
import { headLine, writeLinesAtomicAsync } from './atomic-lines.js';
import { readLines } from './read-lines.js';
import { RACY_MS, cacheDir, cacheFileFor, cacheVersion, safeRealpath, type FactCacheOptions } from './fact-cache.js';
import type { RootIndex } from './load-root.js';
import type { FileStat } from './session-file.js';
import { milestone } from '../trace.js';

/** Bump when the audit's rules or this file's shape change. */
export const FINDINGS_FORMAT = 1;

const MAX_BYTES = 1024 * 1024 * 1024;

type Full = Required<FileStat>;
const full = (st: FileStat | undefined): st is Full => st !== undefined && st.dev !== undefined && st.ctimeMs !== undefined;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FindingsCache implements AuditMemory {
  readonly file?: string;
  readonly dir: string;
  /** one quiet note: why the cache was not used or not written */
  note?: string;
  /** sessions whose findings came from the cache, of how many asked for */
  hits = 0;
  lookups = 0;
  /** the write of keep(), when there is one (tests wait for it) */
  written?: Promise<boolean>;
  readonly startedAt: number;
  private readonly version = `${FINDINGS_FORMAT}/${cacheVersion()}`;
  private entries?: Map<string, string>;
  private stamp = -Infinity;
  private invalid = false;
  private kept = false;

  constructor(
    private readonly index: RootIndex,
    opts: FactCacheOptions = {},
  ) {
    this.dir = opts.dir ?? cacheDir();
    this.startedAt = (opts.now ?? Date.now)();
    const facts = cacheFileFor(index.root, this.dir);
    this.file = facts?.replace(/\.facts$/, '.findings');
  }

  /** Reads the cache file (on the first recall: the scan does not wait for it). */
  private load(): Map<string, string> {
    const entries = new Map<string, string>();
    this.entries = entries;
    if (!this.file) return entries;
    let lines: string[];
    try {
      lines = readLines(this.file, MAX_BYTES);
    } catch (e) {
      this.invalid = true;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.note = `findings cache ${this.file} not read (${(e as Error).message}): rebuilt`;
      return entries;
    }
    let head: Record<string, unknown>;
    try {
      const h = JSON.parse(lines[0]) as unknown;
      head = isObj(h) ? h : {};
    } catch {
      head = {};
    }
    if (
      head.dshBrowseFindings !== this.version ||
      head.root !== safeRealpath(this.index.root) ||
      typeof head.stamp !== 'number' ||
      typeof head.entries !== 'number' ||
      lines.length !== head.entries + 2 ||
      lines[lines.length - 1] !== ''
    ) {
      this.invalid = true;
      this.note = `findings cache ${this.file} is damaged or from another version: rebuilt`;
      return entries;
    }
    this.stamp = head.stamp;
    for (let i = 1; i < lines.length - 1; i++) {
      const line = lines[i];
      const tab = line.indexOf('\t');
      if (tab > 0) entries.set(line.slice(0, tab), line.slice(tab + 1));
    }
    return entries;
  }

  private keyOf(file: string): string {
    const r = this.index.root;
    return JSON.stringify(file.length > r.length + 1 && file.startsWith(r) && file[r.length] === path.sep ? file.slice(r.length + 1) : file);
  }

  /** The index's stat of a session's file, when the store's session for it is this one and the stat is from a full read. */
  private statOf(s: Session): Full | undefined {
    if (s.file === undefined || this.index.store.byFile(s.file) !== s) return undefined;
    const st = this.index.files.get(s.file);
    return full(st) && !st.refused && !st.older ? st : undefined;
  }

  recall(s: Session, parents: readonly Session[]): readonly Finding[] | undefined {
    const entries = this.entries ?? this.load();
    if (s.file === undefined) return undefined;
    this.lookups++;
    const line = entries.get(this.keyOf(s.file));
    if (line === undefined) return undefined;
    // the common entry (no parent, no finding) is compared as text: nothing parsed, nothing
    // allocated (100,000 parses were ~100 ms of a warm start); anything else is parsed below
    if (parents.length === 0 && line.endsWith(',[],[]]')) {
      const st = this.statOf(s);
      if (st && st.mtimeMs <= this.stamp - RACY_MS && line === `[[${st.dev},${st.ino},${st.size},${st.mtimeMs},${st.ctimeMs - st.mtimeMs}],[],[]]`) {
        this.hits++;
        return NO_FINDINGS;
      }
    }
    try {
      const a = JSON.parse(line) as unknown;
      if (!Array.isArray(a) || a.length !== 3) return undefined;
      const [own, ps, findings] = a as unknown[];
      if (!this.sameStat(this.statOf(s), own)) return undefined;
      if (!Array.isArray(ps) || ps.length !== parents.length) return undefined;
      for (let i = 0; i < ps.length; i++) {
        const p = parents[i];
        const stored = ps[i] as unknown;
        if (p.file === undefined || !Array.isArray(stored) || stored[0] !== this.keyOf(p.file)) return undefined;
        if (!this.sameStat(this.statOf(p), stored.slice(1))) return undefined;
      }
      if (!Array.isArray(findings) || !findings.every(isFinding)) return undefined;
      this.hits++;
      return findings;
    } catch {
      return undefined;
    }
  }

  /** A stored [dev,ino,size,mtimeMs,ctimeMs-mtimeMs] is the file's stat now, and was not racy when audited. */
  private sameStat(st: Full | undefined, t: unknown): boolean {
    if (!st || !Array.isArray(t) || t.length !== 5) return false;
    return t[0] === st.dev && t[1] === st.ino && t[2] === st.size && t[3] === st.mtimeMs && t[4] === st.ctimeMs - st.mtimeMs && st.mtimeMs <= this.stamp - RACY_MS;
  }

  /** The stored form of a stat, or undefined when the file changed too close to this run's start (racy: audited again next time). */
  private statTuple(st: Full | undefined): number[] | undefined {
    if (!st || !(st.mtimeMs <= this.startedAt - RACY_MS)) return undefined;
    return [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs - st.mtimeMs];
  }

  private encode(a: AuditedSession): string | undefined {
    const s = a.session;
    const own = this.statTuple(this.statOf(s));
    if (!own || s.file === undefined) return undefined;
    const ps: unknown[] = [];
    for (const p of a.parents) {
      const t = this.statTuple(this.statOf(p));
      if (!t || p.file === undefined) return undefined;
      ps.push([this.keyOf(p.file), ...t]);
    }
    return `${this.keyOf(s.file)}\t${JSON.stringify([own, ps, a.findings])}`;
  }

  /** Every session has been audited: rewrite the cache file when something was audited anew (once a run, in slices, asynchronously). */
  keep(audited: () => AuditedSession[]): void {
    if (this.kept || !this.file) return;
    this.kept = true;
    const entries = this.entries ?? this.load();
    const list = audited();
    if (!this.invalid && this.hits === list.length && this.hits === this.lookups && entries.size === this.hits) {
      this.release();
      return;
    }
    this.written = this.write(list).then((wrote) => {
      milestone('findings cache saved');
      return wrote;
    });
  }

  /** Writes the entries as they are encoded, a slice at a time (never the whole file in memory). */
  private async write(list: AuditedSession[], budgetMs = 8): Promise<boolean> {
    let entries = 0;
    const fields = { dshBrowseFindings: this.version, root: safeRealpath(this.index.root), stamp: this.startedAt };
    const lines = function* (this: FindingsCache): Generator<string> {
      for (const a of list) {
        const line = this.encode(a);
        if (line === undefined) continue;
        entries++;
        yield line;
      }
    }.call(this);
    try {
      return await writeLinesAtomicAsync(this.dir, this.file!, { headRoom: headLine(fields), lines, head: () => headLine(fields, entries) }, budgetMs);
    } catch (e) {
      this.note = `findings cache not written to ${this.dir} (${(e as Error).message})`;
      return false;
    } finally {
      this.release();
    }
  }

  private release(): void {
    this.entries = new Map();
  }
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

function isFinding(f: unknown): f is Finding {
  return isObj(f) && typeof f.code === 'string' && typeof f.message === 'string' && (f.severity === 'error' || f.severity === 'warning');
}
