// Incremental index: walk the root folder by folder and read the files in
// small time-boxed batches, yielding between batches so a UI can paint and
// take keys while a big root is still being scanned. Nothing waits for the
// whole tree to be listed: the first frame costs the same for 10 files or 10,000.
// With a fact cache attached (index.cache), an unchanged file is not read at all,
// and an unchanged folder is not listed again. A log that takes more than one
// batch to read is listed at once from its head and tail (partial-listing.ts)
// and read after every other file, so one huge log never holds the list back.
import type { LoadProgress } from '../session/session.js';
import { indexFileStepped, recordSkip, saveCacheAsync, type IndexStep, type RootIndex } from './load-root.js';
import { iterateSessionFiles, type FolderWatches } from './walk.js';
import { partialSession } from './partial-listing.js';
import type { StatAhead } from './stat-ahead.js';
import { loadZstd, zstdSettled } from './zstd-codecs.js';
import { isCompressedLog } from './zstd-log.js';

export interface ScanProgress {
  done: number;
  /** known once the walk has finished (or when a file list was given) */
  total?: number;
  finished: boolean;
  /** a file read over several slices (a large log): which, and how much of it is read */
  reading?: { file: string; progress?: LoadProgress };
}

export interface ScanOptions {
  /** folders to watch as the walk reaches them, before their files are read (the watcher takes them over: early-watches.ts) */
  early?: FolderWatches;
  /** time budget of one batch before yielding, ms */
  budgetMs?: number;
  onProgress?(p: ScanProgress): void;
  signal?: AbortSignal;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Scans `files` (default: every session file under the root, walked lazily) into the index. */
export async function scanRoot(index: RootIndex, opts: ScanOptions = {}, files?: Iterable<string>): Promise<ScanProgress> {
  // the folders walked, each with its mtime before listing: the watcher starts from them instead of walking the tree again
  const folders = files === undefined ? new Map<string, number>() : undefined;
  const progress = await scanFiles(index, opts, files ?? iterateSessionFiles(index.root, (s) => recordSkip(index, s), (d, stamp) => folders!.set(d, stamp), index.cache?.listings, opts.early));
  if (folders && !opts.signal?.aborted) index.folders = folders;
  // the fact cache (when the index has one): rewritten once, after the first scan (a
  // scan cut short keeps the entries of the files it did not reach); in slices, keys first
  await saveCacheAsync(index, files === undefined && !opts.signal?.aborted);
  return progress;
}

/** Logs read after the others at most this many at once (each holds a file open); past it, a large log is read where it comes. */
const MAX_DEFERRED = 64;

async function scanFiles(index: RootIndex, opts: ScanOptions, files: Iterable<string>): Promise<ScanProgress> {
  const progress: ScanProgress = { done: 0, total: Array.isArray(files) ? files.length : undefined, finished: false };
  // a warm scan's time is mostly the stat that vouches for each cached log: taken on the other core
  const ahead = index.cache?.statAhead(files);
  try {
    return await scanWith(index, opts, ahead?.files() ?? files, progress, ahead);
  } finally {
    ahead?.close();
  }
}

async function scanWith(index: RootIndex, opts: ScanOptions, files: Iterable<string>, progress: ScanProgress, ahead: StatAhead | undefined): Promise<ScanProgress> {
  const budget = opts.budgetMs ?? 12;
  const it = files[Symbol.iterator]();
  let next = it.next();
  // large logs listed from their head and tail, read after every other file
  const deferred: Array<{ file: string; more: IndexStep }> = [];
  let until = 0;
  const pause = () => performance.now() > until;
  /** Reads on in a log until done (true) or aborted (false), the loop free for keys between slices. */
  const readOn = async (file: string, more: IndexStep): Promise<boolean> => {
    while (!more()) {
      if (opts.signal?.aborted) {
        more.cancel?.(); // closes the file
        return false;
      }
      index.store.release();
      opts.onProgress?.({ ...progress, reading: { file, progress: more.progress?.() } });
      await yieldToLoop();
      index.store.hold();
      until = performance.now() + budget;
    }
    return true;
  };
  while (!next.done) {
    if (opts.signal?.aborted) break;
    until = performance.now() + budget;
    // the batch's sessions reach the store's listeners at once, at its end (and before each wait for the loop)
    index.store.hold();
    try {
      do {
        // the first compressed log waits for the WebAssembly zstd (zstd-codecs.ts), the loop free meanwhile
        if (!zstdSettled() && isCompressedLog(next.value)) {
          index.store.release();
          await loadZstd();
          index.store.hold();
          until = performance.now() + budget;
        }
        // A multi-GB file with no newline is skipped through in steps, with
        // the loop free for keys in between (never a long block on the key path).
        const more = indexFileStepped(index, next.value, pause, ahead);
        if (more) {
          const partial = deferred.length < MAX_DEFERRED ? partialSession(next.value) : undefined;
          if (partial) {
            index.store.add(partial);
            deferred.push({ file: next.value, more });
          } else if (!(await readOn(next.value, more))) break;
        }
        progress.done++;
        next = it.next();
      } while (!next.done && performance.now() < until);
    } finally {
      index.store.release(true); // once a batch, even when no session came
    }
    if (next.done) progress.total = progress.done;
    opts.onProgress?.({ ...progress });
    if (!next.done) await yieldToLoop();
  }
  // the large logs, whole: each replaces its partial session in the store when read
  for (const [i, d] of deferred.entries()) {
    if (opts.signal?.aborted) {
      for (const rest of deferred.slice(i)) rest.more.cancel?.();
      break;
    }
    until = performance.now() + budget;
    index.store.hold();
    try {
      const done = await readOn(d.file, d.more);
      // a log that turned out to be no session (or could not be read) leaves no partial row behind
      const left = index.store.byFile(d.file);
      if (done && left?.partial) index.store.remove(left);
      if (!done) {
        for (const rest of deferred.slice(i + 1)) rest.more.cancel?.();
        break;
      }
    } finally {
      index.store.release(true);
    }
  }
  progress.total ??= progress.done;
  progress.finished = true;
  opts.onProgress?.({ ...progress });
  return progress;
}
