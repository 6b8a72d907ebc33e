import { statSync } from 'node:fs';

/** `p` is a folder here (a cwd a command can run in); false for a file, a missing path, a NUL. */
export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
