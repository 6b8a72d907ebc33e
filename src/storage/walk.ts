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
export function walk(dir: string, accept: (p: string) => boolean, onFile: (p: string) => void, onDir?: (d: string) => void): void {
  onDir?.(dir);
  let ents: fs.Dirent[];
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const ent of ents) {
    const p = path.join(dir, ent.name);
    let isDir = ent.isDirectory();
    let isFile = ent.isFile() || ent.isSymbolicLink();
    if (!isDir && !isFile && !ent.isFIFO() && !ent.isSocket() && !ent.isBlockDevice() && !ent.isCharacterDevice()) {
      // DT_UNKNOWN (some file systems): ask
      const e = probe(p);
      isDir = e?.kind === 'dir';
      isFile = e?.kind === 'file';
    }
    if (isDir) {
      if (!skipDirName(ent.name)) walk(p, accept, onFile, onDir);
    } else if (isFile && accept(p)) {
      onFile(p);
    }
  }
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
    (p) => {
      if (probe(p)?.kind === 'file') out.push(p);
    },
  );
  return out.sort();
}

