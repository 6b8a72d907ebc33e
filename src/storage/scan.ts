// Incremental index: list the files at once, then read them in small
// time-boxed batches, yielding between batches so a UI can paint and take
// keys while a big root is still being scanned.
import { indexFileSafe, listSessionFiles, newRootIndex, type RootIndex } from './load-root.js';

export interface ScanProgress {
  done: number;
  total: number;
  finished: boolean;
}

export interface ScanOptions {
  /** time budget of one batch before yielding, ms */
  budgetMs?: number;
  onProgress?(p: ScanProgress): void;
  signal?: AbortSignal;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Scans `files` (default: every session file under the root) into the index. */
export async function scanRoot(index: RootIndex, opts: ScanOptions = {}, files = listSessionFiles(index.root)): Promise<ScanProgress> {
  const budget = opts.budgetMs ?? 12;
  const progress: ScanProgress = { done: 0, total: files.length, finished: false };
  let i = 0;
  while (i < files.length) {
    if (opts.signal?.aborted) break;
    const until = performance.now() + budget;
    do {
      indexFileSafe(index, files[i++]);
    } while (i < files.length && performance.now() < until);
    progress.done = i;
    index.store.emit();
    opts.onProgress?.({ ...progress });
    if (i < files.length) await yieldToLoop();
  }
  progress.finished = true;
  opts.onProgress?.({ ...progress });
  return progress;
}

/** A new index for `root`, filled in the background; returns at once. */
export function startScan(root: string, opts: ScanOptions = {}): { index: RootIndex; done: Promise<ScanProgress> } {
  const index = newRootIndex(root);
  return { index, done: scanRoot(index, opts) };
}
