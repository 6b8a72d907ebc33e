// Which folder dsh-browse opens without one: the harness's own root,
// ${DSH_HOME:-~/.dsh}/sessions, when it exists; else the current folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectScope, type ProjectScope } from '../storage/project-scope.js';

export interface DefaultRoot {
  dir: string;
  /** for the title bar: says which root this is */
  label: string;
  /** true when it is the harness's own root */
  harnessRoot: boolean;
}

export interface RootEnv {
  DSH_HOME?: string;
  HOME?: string;
}

/** The harness root for an environment: ${DSH_HOME:-$HOME/.dsh}/sessions. */
export function harnessSessionsDir(env: RootEnv = process.env, home = env.HOME || os.homedir()): string {
  const base = env.DSH_HOME && env.DSH_HOME.length > 0 ? env.DSH_HOME : path.join(home, '.dsh');
  return path.resolve(base, 'sessions');
}

const isDir = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export function defaultRoot(env: RootEnv = process.env, cwd = process.cwd()): DefaultRoot {
  const home = env.HOME || os.homedir();
  const harness = harnessSessionsDir(env, home);
  if (isDir(harness)) {
    const short = harness.startsWith(home + path.sep) ? '~' + harness.slice(home.length) : harness;
    return { dir: harness, label: `dsh root ${short}`, harnessRoot: true };
  }
  return { dir: path.resolve(cwd), label: path.resolve(cwd), harnessRoot: false };
}

/** What the CLI hands runTui beyond the folder (the lead wires these into the app). */
export interface TuiStartOptions {
  /** says which root is open (title bar) */
  rootLabel: string;
  /** the current project's scope: the Sessions view starts scoped to it unless `all` */
  scope: ProjectScope;
  /** --all: start with every project */
  all: boolean;
  /** the folder was not given: the default root was chosen */
  defaultRoot: boolean;
}

export function tuiStartOptions(dir: string, opts: { label?: string; all: boolean; defaultRoot: boolean }, cwd = process.cwd()): TuiStartOptions {
  return { rootLabel: opts.label ?? dir, scope: projectScope(dir, cwd), all: opts.all, defaultRoot: opts.defaultRoot };
}
