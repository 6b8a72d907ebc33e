// Loads a root directory (all three layouts) into a SessionStore. One bad
// file never fails the load: it becomes diagnostics and the rest loads.
import fs from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../session/diagnostics.js';
import { SessionStore } from '../session/store.js';
import { DiskPersistence } from './disk-persistence.js';
import { readLog, sessionFromRead, type FileStat } from './session-file.js';
import { listSessionFiles } from './walk.js';

export interface FileEntry extends FileStat {
  /** bytes after the last complete line */
  pending: number;
  /** diagnostics of a file that is not a session (refused) */
  refused?: Diagnostic[];
}

export interface RootIndex {
  root: string;
  store: SessionStore;
  files: Map<string, FileEntry>;
  /** background work, for a status line: the initial scan, then live following */
  scan?: { done: number; total?: number; finished: boolean };
  live?: { mode: 'watch' | 'poll'; message?: string };
}

export { listSessionFiles };

export function newRootIndex(root: string): RootIndex {
  const abs = path.resolve(root);
  return { root: abs, store: new SessionStore(new DiskPersistence(abs)), files: new Map() };
}

/** Reads one file into the index (new or re-read). Throws on I/O errors; see indexFileSafe. */
export function indexFile(index: RootIndex, file: string): void {
  const read = readLog(file, false);
  const { session, diagnostics } = sessionFromRead(file, read);
  index.files.set(file, { ...read.stat, pending: read.pending, refused: session ? undefined : diagnostics });
  if (session) index.store.add(session);
}

/** indexFile, with an unreadable file (permissions, vanished) recorded as a READ_FAILED diagnostic. */
export function indexFileSafe(index: RootIndex, file: string): void {
  try {
    indexFile(index, file);
  } catch (e) {
    index.files.set(file, { size: 0, ino: 0, mtimeMs: 0, pending: 0, refused: [{ file, severity: 'error', code: 'READ_FAILED', message: String((e as Error).message ?? e) }] });
  }
}

/** How many diagnostics there are (cheap: no sorting). */
export function diagnosticCount(index: RootIndex): number {
  let n = 0;
  for (const f of index.files.values()) n += f.refused?.length ?? 0;
  for (const s of index.store.list()) n += s.diagnostics.length;
  return n;
}

/** All diagnostics: refused files and every session's own. */
export function allDiagnostics(index: RootIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of index.files.values()) if (f.refused) out.push(...f.refused);
  for (const s of index.store.list()) out.push(...s.diagnostics);
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)));
}

export function loadRootSync(root: string): RootIndex {
  const index = newRootIndex(root);
  if (!fs.statSync(index.root).isDirectory()) throw new Error(`${root} is not a directory`);
  for (const f of listSessionFiles(index.root)) indexFileSafe(index, f);
  return index;
}
