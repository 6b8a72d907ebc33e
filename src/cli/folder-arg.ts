// What is wrong with a folder the user named (a positional or --dir): it does
// not exist, or it is a file (a session log given where its folder belongs).
import fs from 'node:fs';
import path from 'node:path';

export type FolderState = 'folder' | 'missing' | 'file';

export function folderState(p: string): FolderState {
  try {
    return fs.statSync(p).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing'; // a dangling link or an unreadable parent reads as missing too
  }
}

/** The words for a folder that cannot be opened; `given` as typed, for the message. */
export function folderProblem(given: string, state: Exclude<FolderState, 'folder'>, label = 'folder'): string {
  const q = JSON.stringify(given);
  if (state === 'missing') return `${label} ${q} does not exist`;
  return `${q} is a file, not a folder: give the folder that holds it (${JSON.stringify(path.dirname(given))})`;
}

/**
 * Whether a positional that is no command was meant as a path: it names
 * something, has a separator, starts like a path, or ends like a session log.
 * Otherwise it is read as a mistyped command (`lsit`).
 */
export function looksLikePath(word: string, state: FolderState): boolean {
  return state !== 'missing' || /[/\\]/.test(word) || /^[.~]/.test(word) || /\.jsonl(\.zstd)?$/i.test(word);
}
