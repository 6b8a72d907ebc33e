// Walking a session root: which files are session files, without following
// symlinked folders (no loops, nothing outside the root).
import fs from 'node:fs';
import path from 'node:path';
import { sortInFolder } from './generations.js';
import { isSessionFileName } from './layout.js';
import { displayName, errorText, fsPath, kindOf } from './open-file.js';

/** Why an entry that looks like a session file (or a folder) was not read. */
export interface Skip {
  file: string;
  code: 'NOT_A_FILE' | 'SYMLINK_LOOP' | 'PATH_TOO_LONG' | 'UNREADABLE_DIR';
  severity: 'error' | 'warning';
  message: string;
}
export type OnSkip = (s: Skip) => void;

export interface FileState {
  size: number;
  ino: number;
  mtimeMs: number;
}

export const defaultIsSessionFile = (p: string): boolean => isSessionFileName(path.basename(p));

/** Directory names never descended into. */
// Encoded ids may start with '.' ('..~002Fx'), so only VCS and package folders are skipped.
export const skipDirName = (name: string): boolean => name === '.git' || name === 'node_modules';

export type Entry = { kind: 'dir' } | { kind: 'file'; st: FileState; link?: true } | { kind: 'other' } | null;

/**
 * What is at `p`, without following a symlinked directory. A symlink to a file
 * counts as that file (its stat); a symlink to a directory, a dangling link or a
 * socket is 'other'; null when nothing is there.
 */
export function probe(p: string): Entry {
  let st: fs.Stats | undefined;
  const real = fsPath(p);
  try {
    st = fs.lstatSync(real, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st) return null;
  if (st.isDirectory()) return { kind: 'dir' };
  if (st.isSymbolicLink()) {
    try {
      const t = fs.statSync(real, { throwIfNoEntry: false });
      if (t && t.isFile()) return { kind: 'file', st: { size: t.size, ino: t.ino, mtimeMs: t.mtimeMs }, link: true };
    } catch {
      /* loop or permission: not followed */
    }
    return { kind: 'other' };
  }
  if (st.isFile()) return { kind: 'file', st: { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs } };
  return { kind: 'other' };
}

/**
 * Walks `dir` (no symlinked directories, no .git or node_modules),
 * calling onDir for every directory before listing it and onFile for every
 * accepted file. Unreadable folders are skipped (reported through onSkip).
 */
export function walk(dir: string, accept: (p: string) => boolean, onFile: (p: string, symlink: boolean) => void, onDir?: (d: string) => void, onSkip?: OnSkip): void {
  const next = walker(dir, accept, onFile, onDir, onSkip);
  while (next()) {
    /* one folder per call */
  }
}

/** `walk`, one folder per call of the returned function (false once every folder is done): for walks in slices. */
export function walker(dir: string, accept: (p: string) => boolean, onFile: (p: string, symlink: boolean) => void, onDir?: (d: string) => void, onSkip?: OnSkip): () => boolean {
  const stack = [dir];
  return () => {
    const d = stack.pop();
    if (d === undefined) return false;
    onDir?.(d);
    const { files, dirs } = readFolder(d, accept, onSkip);
    for (const f of files) onFile(f.path, f.symlink);
    for (const sub of dirs) stack.push(sub);
    return stack.length > 0;
  };
}

/** The skip for a folder that cannot be listed (undefined when it just vanished). */
export function folderSkip(dir: string, e: unknown): Skip | undefined {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
  if (code === 'ENAMETOOLONG') return { file: dir, code: 'PATH_TOO_LONG', severity: 'error', message: 'folder path is over the system length limit: its files are not read' };
  if (code === 'ELOOP') return { file: dir, code: 'SYMLINK_LOOP', severity: 'error', message: 'symbolic link loop: folder not read' };
  return { file: dir, code: 'UNREADABLE_DIR', severity: 'error', message: `folder cannot be listed (${errorText(e)}): its files are not read` };
}

/** Why the session-named entry at `p` (not a regular file, or a link to none) is skipped. */
export function entrySkip(p: string): Skip | undefined {
  const real = fsPath(p);
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(real, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENAMETOOLONG') return { file: p, code: 'PATH_TOO_LONG', severity: 'error', message: 'path is over the system length limit: not read' };
    return { file: p, code: 'NOT_A_FILE', severity: 'error', message: `cannot be examined (${errorText(e)}): not read` };
  }
  if (!st || st.isFile()) return undefined;
  if (st.isDirectory()) return { file: p, code: 'NOT_A_FILE', severity: 'warning', message: 'a folder named like a session file: not read as a session (the files inside it are)' };
  if (!st.isSymbolicLink()) return { file: p, code: 'NOT_A_FILE', severity: 'error', message: `${kindOf(st)}, not a regular file: not read` };
  try {
    const t = fs.statSync(real);
    if (t.isFile()) return undefined;
    if (t.isDirectory()) return { file: p, code: 'NOT_A_FILE', severity: 'warning', message: 'symbolic link to a folder named like a session file: not followed' };
    return { file: p, code: 'NOT_A_FILE', severity: 'error', message: `symbolic link to ${kindOf(t)}, not a regular file: not read` };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { file: p, code: 'SYMLINK_LOOP', severity: 'error', message: 'symbolic link loop: not read' };
    if (code === 'ENOENT') return { file: p, code: 'NOT_A_FILE', severity: 'error', message: 'dangling symbolic link (its target does not exist): not read' };
    if (code === 'ENAMETOOLONG') return { file: p, code: 'PATH_TOO_LONG', severity: 'error', message: 'symbolic link target path is over the system length limit: not read' };
    return { file: p, code: 'NOT_A_FILE', severity: 'error', message: `symbolic link that cannot be followed (${errorText(e)}): not read` };
  }
}

/** One folder: its accepted files and the sub-folders to visit (none, and `failed`, when it could not be listed). */
export function readFolder(dir: string, accept: (p: string) => boolean, onSkip?: OnSkip): { files: Array<{ path: string; symlink: boolean }>; dirs: string[]; failed?: true } {
  const files: Array<{ path: string; symlink: boolean }> = [];
  const dirs: string[] = [];
  let ents: fs.Dirent<Buffer>[];
  try {
    // names as bytes: a name that is not valid UTF-8 keeps its real bytes (fsPath)
    ents = fs.readdirSync(fsPath(dir), { withFileTypes: true, encoding: 'buffer' });
  } catch (e) {
    const skip = onSkip && folderSkip(dir, e);
    if (skip) onSkip(skip);
    return { files, dirs, failed: true };
  }
  for (const ent of ents) {
    const p = displayName(dir, ent.name, path.sep);
    const kind = entryKind(ent, p);
    if (kind === 'dir') {
      if (!skipDirName(p.slice(p.lastIndexOf(path.sep) + 1))) dirs.push(p);
      if (onSkip && accept(p)) onSkip(entrySkip(p)!);
    } else if (kind === 'file' && accept(p)) files.push({ path: p, symlink: ent.isSymbolicLink() });
    else if (kind === 'other' && onSkip && accept(p)) {
      const skip = entrySkip(p);
      if (skip) onSkip(skip);
    }
  }
  return { files, dirs };
}

/**
 * A folder changed this close to its listing may have changed again within
 * the same timestamp tick (coarse clocks, ~4 ms; other machines' clocks on
 * a network file system): its stamp says "look again" (git's racy rule).
 */
export const RACY_MS = 2000;

/** A dirent's kind, asking the file system only when the dirent does not say (DT_UNKNOWN). */
function entryKind(ent: fs.Dirent<Buffer>, p: string): 'dir' | 'file' | 'other' {
  if (ent.isDirectory()) return 'dir';
  if (ent.isFile() || ent.isSymbolicLink()) return 'file';
  if (ent.isFIFO() || ent.isSocket() || ent.isBlockDevice() || ent.isCharacterDevice()) return 'other';
  const e = probe(p);
  return e?.kind === 'dir' ? 'dir' : e?.kind === 'file' ? 'file' : 'other';
}

/**
 * Session files under `root`, recursively, sorted, as absolute paths
 * (path.resolve(root) joined with the names, the same paths watchRoot reports).
 * Session files: *.jsonl and *.jsonl.zstd; temp files (*.tmp), .git and
 * node_modules are skipped; symlinked directories are not followed (no loops,
 * nothing outside the root). A symlink to a file counts when it points to a
 * regular file.
 */
export function listSessionFiles(root: string, onSkip?: OnSkip): string[] {
  const out: string[] = [];
  walk(
    path.resolve(root),
    defaultIsSessionFile,
    // only a symlink needs a stat (to a regular file?); the dirent already says the rest
    (p, symlink) => {
      if (!symlink || probe(p)?.kind === 'file') out.push(p);
      else if (onSkip) {
        const skip = entrySkip(p);
        if (skip) onSkip(skip);
      }
    },
    undefined,
    onSkip,
  );
  return out.sort();
}

/** What a folder's listing is keyed by: a folder replaced, renamed over or written to has another. */
export interface FolderStat {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** A folder's stat, taken before it is listed (null: not a folder, or gone). */
export function folderStat(dir: string): FolderStat | null {
  try {
    const st = fs.statSync(fsPath(dir));
    return st.isDirectory() ? { dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : null;
  } catch {
    return null;
  }
}

/** One folder as readFolder lists it: the accepted files and the sub-folders to visit. */
export type FolderListing = ReturnType<typeof readFolder>;

/**
 * Folder listings kept between runs (git's untracked cache; the fact cache
 * holds them): a folder whose stat is the one it had when it was listed
 * need not be listed again. An append changes no folder's mtime, so the
 * files are still stat'ed (the fact cache's lookup); only the names are reused.
 */
export interface ListingCache {
  /** the folder's listing when `st` is the stat it was listed with (and that listing was not racy), else undefined */
  recall(dir: string, st: FolderStat): FolderListing | undefined;
  /** a fresh listing, taken after `st`: kept when it is clean (no skipped entry, no name that is not UTF-8) */
  remember(dir: string, st: FolderStat, listing: FolderListing): void;
}

/**
 * The same files as listSessionFiles, yielded folder by folder as the walk
 * goes, so a scan can start on the first folder before the tree is listed.
 * With `listings`, a folder unchanged since a run listed it is not listed again.
 */
export function* iterateSessionFiles(root: string, onSkip?: OnSkip, onFolder?: (dir: string, stamp: number) => void, listings?: ListingCache, early?: FolderWatches): Generator<string> {
  const dirs = [path.resolve(root)];
  const batch: string[] = [];
  while (dirs.length) {
    // Folders are listed LIST_AHEAD at a time before their files are handed out: listing
    // between file reads cost twice as much (100,000 one-session folders: 1.5 s against 0.7 s).
    // Until LIST_AHEAD_FILES files are in hand: 256 folders of 100 files each were one
    // 80-120 ms block of the scan (its 8 ms batches wait on the walk), so keys waited too.
    for (let n = 0; n < LIST_AHEAD && dirs.length && batch.length < LIST_AHEAD_FILES; n++) {
      const dir = dirs.pop()!;
      // watched before its stat and its listing: from here on a change in it is an event (early-watches.ts)
      early?.watch(dir);
      const st = onFolder || listings ? folderStat(dir) : null;
      if (st) early?.identify(dir, st);
      let listing = st && listings?.recall(dir, st);
      if (!listing) {
        let clean = true;
        listing = readFolder(dir, defaultIsSessionFile, (s) => {
          clean = false;
          onSkip?.(s);
        });
        if (st && listings && clean && !listing.failed) listings.remember(dir, st, listing);
      }
      const { files, dirs: sub } = listing;
      if (onFolder && st) onFolder(dir, st.mtimeMs > Date.now() - RACY_MS ? NaN : st.mtimeMs);
      // a symlink counts only when it points to a regular file
      const ok = files.filter((f) => {
        if (!f.symlink) return true;
        if (probe(f.path)?.kind === 'file') {
          early?.link(f.path);
          return true;
        }
        const skip = onSkip && entrySkip(f.path);
        if (skip) onSkip!(skip);
        return false;
      });
      // a folder's generation files highest first: the current one is read, the older only listed
      batch.push(...sortInFolder(ok.map((f) => f.path)));
      dirs.push(...[...sub].sort().reverse());
    }
    yield* batch;
    batch.length = 0;
  }
}

/** Watches a walk takes as it goes (EarlyWatches), and the symlinked files it accepts. */
export interface FolderWatches {
  watch(dir: string): void;
  identify(dir: string, st: FolderStat): void;
  link(file: string): void;
}

/** folders listed in a row by iterateSessionFiles before their files are yielded */
const LIST_AHEAD = 256;
/** ... or fewer, once this many files are listed (a listing costs per entry too) */
const LIST_AHEAD_FILES = 1024;
