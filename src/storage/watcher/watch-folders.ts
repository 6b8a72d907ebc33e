// The watches themselves: one non-recursive fs.watch per folder (Node 20's
// recursive mode is not dependable on Linux), added as folders appear and
// dropped as they go, and the raw events they hear. A raw event for a name
// that turns out to be a new folder installs watchers for it and everything
// below it, then lists it (watch first, list second, so nothing created in
// between is missed). A watch that fails leaves its folder to a poll, or
// the whole root when the system is out of watches (poll-fallback.ts).
import fs from 'node:fs';
import path from 'node:path';
import { displayName, fsPath } from '../open-file.js';
import { entrySkip, probe, readFolder, skipDirName, walker } from '../walk.js';
import { dirMtime, isUnder } from './fs-helpers.js';
import type { Watch } from './state.js';

/** fs.watch errors that mean "out of watches/descriptors": no folder can be watched any more. */
const EXHAUSTED = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);

const errCode = (e: unknown): string | undefined =>
  e && typeof e === 'object' && 'code' in e ? String((e as NodeJS.ErrnoException).code) : undefined;

const errText = (e: unknown): string => {
  const code = errCode(e);
  const msg = e instanceof Error ? e.message : String(e);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
};

export class WatchFolders {
  constructor(private readonly w: Watch) {}

  addWatcher(dir: string): void {
    const w = this.w;
    if (w.closed || w.mode !== 'watch' || w.watchers.has(dir)) return;
    let fw: fs.FSWatcher;
    try {
      // names as bytes: a name that is not valid UTF-8 is reached by its real bytes
      fw = fs.watch(fsPath(dir), { persistent: true, encoding: 'buffer' }, (_event, filename) => this.onRaw(dir, filename));
    } catch (e) {
      const code = errCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return; // vanished meanwhile; the parent's event covers it
      // Out of inotify watches or descriptors: nothing more can be watched.
      if (code && EXHAUSTED.has(code)) w.poll.fallbackToPolling(`fs.watch(${dir}) failed: ${errText(e)}`);
      // This folder alone cannot be watched (permissions, path length, a file
      // system without inotify): poll it, keep watching the rest.
      else w.poll.setUnwatched(dir, errText(e));
      return;
    }
    if (w.unwatched.has(dir)) w.poll.setUnwatched(dir, undefined);
    this.keepWatcher(dir, fw);
  }

  /** `fw` watches `dir` from now on: its errors handled, kept in `watchers`. */
  keepWatcher(dir: string, fw: fs.FSWatcher): void {
    const w = this.w;
    fw.on('error', (e: unknown) => {
      try {
        if (w.closed) return;
        if (w.watchers.get(dir) === fw) w.watchers.delete(dir);
        try {
          fw.close();
        } catch {
          /* ignore */
        }
        // A folder removed under its watcher is not a reason to stop watching
        // the rest (some platforms report it as an error).
        if (probe(dir)?.kind !== 'dir') {
          w.batches.dirtyDirs.add(dir);
          w.batches.schedule();
          return;
        }
        const code = errCode(e);
        if (code && EXHAUSTED.has(code)) w.poll.fallbackToPolling(`fs.watch error on ${dir}: ${errText(e)}`);
        else w.poll.setUnwatched(dir, errText(e));
      } catch {
        /* never throw out of a callback */
      }
    });
    w.watchers.set(dir, fw);
  }

  /** Closes every watch (polling from now on, or closed). */
  closeAll(): void {
    for (const fw of this.w.watchers.values()) {
      try {
        fw.close();
      } catch {
        /* ignore */
      }
    }
    this.w.watchers.clear();
  }

  onRaw(dir: string, filename: Buffer | string | null): void {
    const w = this.w;
    try {
      if (w.closed || w.mode !== 'watch') return;
      if (filename === null || filename === undefined || filename === '') {
        // no name (overflow on some platforms): look at the whole folder
        w.batches.dirtyDirs.add(dir);
        w.batches.schedule();
        return;
      }
      const p = typeof filename === 'string' ? path.join(dir, filename) : displayName(dir, filename, path.sep);
      const name = path.basename(p);
      const e = probe(p);
      if (e?.kind === 'dir') {
        if (!skipDirName(name) && !w.watchers.has(p) && !w.unwatched.has(p)) this.addTree(p);
        if (w.safeFileName(p)) w.skip(entrySkip(p)!);
      } else if (e?.kind === 'file') {
        if (w.safeFileName(p)) w.batches.observe(p, e.st);
      } else {
        if (e === null) w.opts.onGone?.(p);
        else if (w.safeFileName(p)) {
          const s = entrySkip(p);
          if (s) w.skip(s);
        }
        // gone (or not a file any more)
        if (w.watchers.has(p) || w.cold.has(p) || [...w.watchers.keys(), ...w.cold].some((d) => isUnder(d, p))) this.removeTree(p);
        if (w.known.has(p) || w.batches.pending.has(p)) w.batches.observe(p, null);
        // the event may also be about the watched folder itself disappearing
        if (probe(dir)?.kind !== 'dir') w.batches.dirtyDirs.add(dir);
      }
      w.batches.schedule();
    } catch {
      /* never throw out of a callback */
    }
  }

  /**
   * Watch `dir` and everything below it (watch mode), then mark every file in
   * it (with `onlyNew`, only the files not known yet: the caller compares the
   * known ones itself).
   */
  treeWalker(dir: string, onlyNew = false): () => boolean {
    const w = this.w;
    return walker(
      dir,
      w.safeFileName,
      (f, symlink) => {
        if (!onlyNew || !w.known.has(f)) w.batches.observe(f, undefined);
        if (symlink) w.links.add(f);
      },
      (d) => {
        if (w.mode === 'watch') {
          const m = dirMtime(d); // before the listing: a change after it shows next time
          if (m !== null) w.dirStamp.set(d, m);
          if (!w.cold.has(d)) this.addWatcher(d);
        }
      },
      w.skip,
    );
  }

  addTree(dir: string): void {
    const next = this.treeWalker(dir);
    while (next()) {
      /* one folder per call */
    }
  }

  /** `dir` is gone: drop its watchers and mark every known file below it. */
  removeTree(dir: string): void {
    const w = this.w;
    for (const d of [...w.unwatched.keys()]) if (isUnder(d, dir)) w.poll.setUnwatched(d, undefined);
    for (const d of [...w.dirStamp.keys()]) if (isUnder(d, dir)) w.dirStamp.delete(d);
    for (const d of [...w.cold]) if (isUnder(d, dir)) w.cold.delete(d);
    for (const [d, fw] of w.watchers) {
      if (isUnder(d, dir)) {
        w.watchers.delete(d);
        try {
          fw.close();
        } catch {
          /* already closed */
        }
      }
    }
    for (const f of w.known.keys()) if (isUnder(f, dir)) w.batches.observe(f, undefined);
    for (const f of w.batches.pending.keys()) if (isUnder(f, dir)) w.batches.observe(f, undefined);
  }

  /** Lists one folder again (its mtime changed): new files, new sub-folders, vanished entries. */
  relist(dir: string, m: number): void {
    const w = this.w;
    w.dirStamp.set(dir, m);
    const { files, dirs } = readFolder(dir, w.safeFileName, w.skip);
    const seen = new Set<string>();
    for (const f of files) {
      seen.add(f.path);
      w.batches.observe(f.path, undefined);
      if (f.symlink) w.links.add(f.path);
    }
    for (const sub of dirs) if (!w.watchers.has(sub) && !w.unwatched.has(sub) && !w.cold.has(sub)) this.addTree(sub);
    for (const f of w.known.keys()) if (!seen.has(f) && path.dirname(f) === dir) w.batches.observe(f, undefined);
    for (const d of [...w.watchers.keys(), ...w.unwatched.keys(), ...w.cold]) if (d !== dir && path.dirname(d) === dir && dirMtime(d) === null) this.removeTree(d);
  }
}
