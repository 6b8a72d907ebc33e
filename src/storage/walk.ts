// Walking a session root: which files are session files, without following
// symlinked folders (no loops, nothing outside the root).
import fs from 'node:fs';
import path from 'node:path';
import { isSessionFileName } from './layout.js';

export interface FileState {
  size: number;
  ino: number;
  mtimeMs: number;
}

export const defaultIsSessionFile = (p: string): boolean => isSessionFileName(path.basename(p));

/** Directory names never descended into. */
// Encoded ids may start with '.' ('..~002Fx'), so only VCS and package folders are skipped.
export const skipDirName = (name: string): boolean => name === '.git' || name === 'node_modules';

export type Entry = { kind: 'dir' } | { kind: 'file'; st: FileState } | { kind: 'other' } | null;

/**
 * What is at `p`, without following a symlinked directory. A symlink to a file
 * counts as that file (its stat); a symlink to a directory, a dangling link or a
 * socket is 'other'; null when nothing is there.
 */
export function probe(p: string): Entry {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st) return null;
  if (st.isDirectory()) return { kind: 'dir' };
  if (st.isSymbolicLink()) {
    try {
      const t = fs.statSync(p, { throwIfNoEntry: false });
      if (t && t.isFile()) return { kind: 'file', st: { size: t.size, ino: t.ino, mtimeMs: t.mtimeMs } };
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
 * accepted file. Unreadable folders are skipped.
 */
export function walk(dir: string, accept: (p: string) => boolean, onFile: (p: string, symlink: boolean) => void, onDir?: (d: string) => void): void {
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    onDir?.(d);
    const { files, dirs } = readFolder(d, accept);
    for (const f of files) onFile(f.path, f.symlink);
    stack.push(...dirs);
  }
}

/** One folder: its accepted files and the sub-folders to visit (none when unreadable). */
function readFolder(dir: string, accept: (p: string) => boolean): { files: Array<{ path: string; symlink: boolean }>; dirs: string[] } {
  const files: Array<{ path: string; symlink: boolean }> = [];
  const dirs: string[] = [];
  let ents: fs.Dirent[];
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return { files, dirs };
  }
  for (const ent of ents) {
    const p = path.join(dir, ent.name);
    const kind = entryKind(ent, p);
    if (kind === 'dir') {
      if (!skipDirName(ent.name)) dirs.push(p);
    } else if (kind === 'file' && accept(p)) files.push({ path: p, symlink: ent.isSymbolicLink() });
  }
  return { files, dirs };
}

/** A dirent's kind, asking the file system only when the dirent does not say (DT_UNKNOWN). */
function entryKind(ent: fs.Dirent, p: string): 'dir' | 'file' | 'other' {
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
export function listSessionFiles(root: string): string[] {
  const out: string[] = [];
  walk(
    path.resolve(root),
    defaultIsSessionFile,
    // only a symlink needs a stat (to a regular file?); the dirent already says the rest
    (p, symlink) => {
      if (!symlink || probe(p)?.kind === 'file') out.push(p);
    },
  );
  return out.sort();
}

/**
 * The same files as listSessionFiles, yielded folder by folder as the walk
 * goes, so a scan can start on the first folder before the tree is listed.
 */
export function* iterateSessionFiles(root: string): Generator<string> {
  const dirs = [path.resolve(root)];
  while (dirs.length) {
    const dir = dirs.pop()!;
    const { files, dirs: sub } = readFolder(dir, defaultIsSessionFile);
    // a symlink counts only when it points to a regular file
    yield* files.filter((f) => !f.symlink || probe(f.path)?.kind === 'file').map((f) => f.path).sort();
    dirs.push(...sub.sort().reverse());
  }
}
