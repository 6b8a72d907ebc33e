// The current project's sessions, as the harness's /resume scopes its list:
// the sessions kept in the project folder of the working directory (rc.8:
// <root>/--<projectKey(cwd)>--/; RFC era: <root>/cwd-<sha256(cwd)[:12]>/), plus,
// in any layout, the sessions whose header cwd is that directory. Pure.
import path from 'node:path';
import type { Session } from '../session/session.js';
import { cwdFolder, projectKey } from './layout.js';

export interface ProjectScope {
  /** the working directory the scope is for (absolute) */
  cwd: string;
  /** the project folders of that directory under the root (rc.8 and RFC era) */
  folders: string[];
}

export function projectScope(root: string, cwd: string): ProjectScope {
  const abs = path.resolve(cwd);
  return { cwd: abs, folders: [path.join(root, projectKey(abs)), path.join(root, cwdFolder(abs))] };
}

/** Is `s` one of the scope's project sessions? */
export function inProjectScope(s: Pick<Session, 'file' | 'cwd'>, scope: ProjectScope): boolean {
  if (s.cwd !== undefined && s.cwd === scope.cwd) return true;
  if (!s.file) return false;
  return scope.folders.some((f) => s.file!.startsWith(f + path.sep));
}

/** The sessions of `index` that belong to the project of `cwd` (the Sessions view's default scope). */
export function sessionsInScope(index: { root: string; store: { list(): Session[] } }, cwd: string): Session[] {
  const scope = projectScope(index.root, cwd);
  return index.store.list().filter((s) => inProjectScope(s, scope));
}
