#!/usr/bin/env node
// dsh-browse: the Ink browser (no command) and the headless commands.
//
// The #! line takes no node flags: `env -S` (needed to pass them) is missing
// from busybox's env, so such a bin would not start in an Alpine image. A
// flag that would help (--no-memory-reducer, see docs/performance.md,
// "Scale: 100,000 sessions") is therefore not set.
import fs from 'node:fs';
import path from 'node:path';
import { isSessionForkError } from './session/errors.js';
import { byRecency, cmdAudit, cmdFork, cmdLineage, cmdList, cmdTree, ReadFailure, resolveSession, UsageError, type Out } from './cli/commands.js';
import { cmdDiff, cmdExport, DIFF_HELP, EXPORT_HELP } from './cli/branch-commands.js';
import { CHANGES_HELP, cmdChanges } from './cli/changes-command.js';
import { cmdStats, STATS_HELP } from './cli/stats-command.js';
import { defaultRoot, tuiStartOptions, type DefaultRoot } from './cli/default-root.js';
import { folderProblem, folderState, looksLikePath } from './cli/folder-arg.js';
import { useColor } from './cli/format.js';
import { parseCommandLine } from './cli/options.js';
import { cacheDir, cacheUsage, clearCache } from './storage/fact-cache.js';
import { loadRoot } from './storage/load-root.js';
import { sanitizeInline } from './view/text/sanitize.js';

export const USAGE = `dsh-browse — browse and fork dsh session logs

usage:
  dsh-browse [DIR] [--all]                           open the browser on DIR (default: the harness root
                                                     \${DSH_HOME:-~/.dsh}/sessions when it exists, else .);
                                                     starts scoped to the current project; --all: every project
  dsh-browse --version                               print the version
  dsh-browse help [COMMAND]                          this text, or COMMAND's (the same as --help)
  dsh-browse list     [--dir DIR] [--json]           every session and every diagnostic
  dsh-browse tree     [--dir DIR] --session ID [--json]   a session's turn tree and fork boundaries
  dsh-browse fork     --dir DIR --session ID [--at SEQ] [--id CHILD] [--json]
                                                     fork at a boundary (default: the session's head)
  dsh-browse lineage  [--dir DIR] [--json]           the parent/child forest
  dsh-browse audit    [--dir DIR] [--json]           invariant findings (exit 1 on any error)
  dsh-browse diff     [--dir DIR] A B [--json]       compare two sessions from their common ancestor
  dsh-browse changes  [--dir DIR] SESSION [--since OTHER] [--json]
                                                     the files a session wrote or edited, as diffs
  dsh-browse stats    [--dir DIR] [SESSION] [--json] where each session's time and tokens went
  dsh-browse export   [--dir DIR] --session ID [--at SEQ] [--format md|html|json]
                                                     a readable transcript on stdout
  dsh-browse find     [--dir DIR] QUERY [--json]     events matching QUERY (exit 1 when none, like grep)
  dsh-browse simulate --dir DIR [--id ID] [--turns N] [--speed X] [--no-torn]
                                                     play a demo agent into a new session file
  dsh-browse cache [--clear]                         where the fact cache is and its size; --clear empties it

--no-cache (the browser and every command): neither read nor write the fact cache
(\${XDG_CACHE_HOME:-~/.cache}/dsh-browse: each log's facts and the browser's audit
findings, kept between runs and re-read whenever a file's device, inode, size, mtime or ctime differ)
nor the content index find keeps there (find then searches every log).

Without --dir, the commands that only read use the browser's default root (above);
fork and simulate write, so they need --dir.
--session takes an id or a file path (use the path when several sessions share an id).
exit codes: 0 ok, 1 refused fork / audit errors, 2 usage error, 3 unexpected failure`;

const COMMAND_HELP: Record<string, string> = {
  list: `dsh-browse list [--dir DIR] [--json]
  Every session under DIR (default: the browser's root, see dsh-browse --help;
  all layouts, recursively) with its state (empty,
  at-boundary, open-turn), turns, events and title, then every diagnostic
  (file:line: CODE: message). --json: {sessions: [...], diagnostics: [...]}.`,
  tree: `dsh-browse tree [--dir DIR] --session ID [--json]
  The turn tree of one session (turns, steps, messages, tool calls with their
  results) with a "fork here" line after every boundary. --session takes an id
  or a file path. --json: {id, file, seedLength?, state, turns, boundaries}.`,
  fork: `dsh-browse fork --dir DIR --session ID [--at SEQ] [--id CHILD] [--json]
  Forks the session at the inclusive seq SEQ (default: its whole log) into a new
  file next to it; only at a turn boundary. Refusals print the typed
  SessionForkError (code and message) and exit 1; nothing is written.
  The child is written as the parent's harness era would (rc.8: delegationDepth,
  session/end-seed, its own folder; compressed in a compressed root).
  --json: {child: {id, file, parentSession, seedLength, cwd?, era}, resume: "dsh --resume=<id>"}
  or {error: {name, code, message}}.`,
  lineage: `dsh-browse lineage [--dir DIR] [--json]
  The parent/child forest: fork edges with the turn and seedLength, spawn edges,
  orphans under "missing parent", cycles. --json: {nodes, edges, orphans, cycles}.`,
  audit: `dsh-browse audit [--dir DIR] [--json]
  Checks the invariants (seeds, lineage, ids, seqs, tool calls) and lists every
  finding; exits 1 when any is an error. --json: {findings: [...]}.`,
  find: `dsh-browse find [--dir DIR] QUERY [--json]
  Events matching QUERY in every session under DIR. Free words (and "quoted
  phrases") match prompts, assistant text, reasoning, tool names, arguments and
  results; fields: tool:NAME is:error reason:KIND file:GLOB (a path written
  or edited) is:failed-edit is:open is:fork is:spawn is:root is:damaged
  cwd:TEXT id:TEXT after:DATE before:DATE; -term negates; terms combine with
  AND (put -- before a query that starts with -). Words are literal and
  case-insensitive (file: takes a glob); a query holds at most 1000
  characters and 32 terms.
  Exit 0 with matches, 1 without, 2 on a query error (past a limit too).
  --json: {matches: [{id, file, seq, turn, type, snippet}]}.`,
  simulate: `dsh-browse simulate --dir DIR [--id ID] [--turns N] [--speed X] [--no-torn]
  Plays a realistic coding agent into a new session file in DIR at a human pace
  (speed 1; larger is faster), sometimes tearing a line across two appends, so
  the browser can be watched following it live. Ctrl-C ends the turn cleanly.`,
  diff: DIFF_HELP,
  changes: CHANGES_HELP,
  stats: STATS_HELP,
  export: EXPORT_HELP,
  cache: `dsh-browse cache [--clear]
  The fact cache: what each session log's read found (the list's facts and the
  diagnostics), kept between runs in \${XDG_CACHE_HOME:-~/.cache}/dsh-browse
  (one file per root, 0600), so an unchanged log is not read again; beside it,
  the browser's audit findings of each session (audited again when it or one
  of its parents changed). A log is
  re-read whenever its device, inode, size, mtime or ctime differ, or when it
  changed less than 2 s before the run that cached it. And the content index
  find reads: which logs may hold which words, so a search reads only those
  (an appended log has only its new bytes indexed). Prints the folder and
  its size; --clear removes its files. --no-cache on any command (or the
  browser) neither reads nor writes them.`,
};

const COMMANDS = new Set(Object.keys(COMMAND_HELP));

function outFor(stream: NodeJS.WriteStream, json: boolean): Out {
  return {
    json,
    color: !json && useColor(stream),
    write: (s) => stream.write(s),
    drained: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
      }),
  };
}

function parseIntArg(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} expects an integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** The commands that only read: without --dir they read the browser's default root. */
const READS_DEFAULT_ROOT = new Set(['list', 'tree', 'lineage', 'audit', 'find', 'diff', 'changes', 'stats', 'export']);

/** The folder a command or the browser works on: --dir (or the browser's DIR), else the browser's default root. */
function rootFor(cmd: string | undefined, given: string | undefined): { dir: string; chosen?: DefaultRoot } {
  if (given !== undefined) return { dir: requireDir(given) };
  if (cmd !== undefined && !READS_DEFAULT_ROOT.has(cmd)) throw new UsageError(`missing --dir DIR (${cmd} writes into it, so it is never chosen for you)`);
  const chosen = defaultRoot();
  return { dir: requireDir(chosen.dir), chosen };
}

function requireDir(dir: string | undefined): string {
  if (!dir) throw new UsageError('missing --dir DIR');
  const state = folderState(dir);
  if (state !== 'folder') throw new UsageError(folderProblem(dir, state, '--dir'));
  return path.resolve(dir);
}

/** Outside a fork, an unknown session is a usage error (exit 2), with the store's message. */
function usageOnNotFound<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isSessionForkError(e) && e.code === 'SESSION_NOT_FOUND') throw new UsageError(e.message);
    throw e;
  }
}

/** `--at -1`: a negative number is the option's value, not an option (parseArgs would refuse it). */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--at' || a === '--turns' || a === '--speed') && i + 1 < argv.length && /^-\d/.test(argv[i + 1])) {
      out.push(`${a}=${argv[++i]}`);
    } else out.push(a);
  }
  return out;
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

/** A positional that is neither a command nor a folder: a path that cannot be opened, or a mistyped command. */
function notCommandNorFolder(word: string): UsageError {
  const state = folderState(word);
  if (state !== 'folder' && looksLikePath(word, state)) return new UsageError(folderProblem(word, state));
  const near = [...COMMANDS, 'help'].map((c) => ({ c, d: distance(word.toLowerCase(), c) })).sort((x, y) => x.d - y.d)[0];
  const hint = near && near.d <= 2 ? ` — did you mean "${near.c}"?` : '';
  return new UsageError(`unknown command ${JSON.stringify(word)}${hint} (no folder has that name either; see dsh-browse --help)`);
}

/** `dsh-browse help [COMMAND]`: the same text as `--help` (or `COMMAND --help`). */
function helpText(topic: string | undefined): string {
  if (topic === undefined) return USAGE;
  if (COMMANDS.has(topic)) return COMMAND_HELP[topic];
  throw notCommandNorFolder(topic);
}

function version(): string {
  // the bundle inlines package.json's version; unbundled, read it from disk
  if (typeof __VERSION__ === 'string') return __VERSION__;
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const commandOf = (positionals: string[]) => (positionals[0] !== undefined && (COMMANDS.has(positionals[0]) || positionals[0] === 'help') ? positionals[0] : undefined);
  const { values, positionals } = parseCommandLine(joinNegativeValues(argv), commandOf);
  const cmd = commandOf(positionals);
  if (cmd === 'help') {
    if (positionals.length > 2) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[2])} (help takes at most one command)`);
    process.stdout.write(helpText(positionals[1]) + '\n');
    return 0;
  }
  if (values.help) {
    process.stdout.write((cmd ? COMMAND_HELP[cmd] : USAGE) + '\n');
    return 0;
  }
  if (values.version) {
    process.stdout.write(`dsh-browse ${version()}\n`);
    return 0;
  }
  if (!cmd) {
    const first = positionals[0];
    // a word that is no command and no folder is a mistyped command: never open the browser on it
    if (first !== undefined && folderState(first) !== 'folder') throw notCommandNorFolder(first);
    if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])} (see --help)`);
    const { dir, chosen } = rootFor(undefined, values.dir ?? first);
    const start = tuiStartOptions(dir, { label: chosen?.label, all: values.all, defaultRoot: chosen !== undefined });
    // React's development build doubles the cost of every frame. The bundled bin
    // has NODE_ENV compiled in; this covers running dist/src/cli.js directly.
    const env = process.env;
    if (!env.NODE_ENV) env.NODE_ENV = 'production';
    const { runTui } = await import('./tui.js');
    return runTui(dir, { follow: true, ...start, noCache: values['no-cache'] });
  }
  if (cmd === 'find') {
    const { cmdFind } = await import('./cli/find-command.js');
    if (positionals.length !== 2) throw new UsageError('find takes one QUERY (quote it: dsh-browse find "tool:bash is:error")');
    return cmdFind(rootFor(cmd, values.dir).dir, positionals[1], outFor(process.stdout, values.json), { cache: !values['no-cache'] });
  }
  if (values.clear && cmd !== 'cache') throw new UsageError('--clear belongs to the cache command (dsh-browse cache --clear)');
  if (cmd === 'cache') {
    if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
    if (values.clear) {
      const n = clearCache();
      process.stdout.write(`removed ${n} file(s) from ${sanitizeInline(cacheDir())}\n`);
      return 0;
    }
    const u = cacheUsage();
    process.stdout.write(`${sanitizeInline(u.dir)}\n${u.files} file(s), ${u.bytes} bytes\n`);
    return 0;
  }
  const extra = cmd === 'diff' ? 3 : cmd === 'changes' || cmd === 'stats' ? 2 : 1; // diff A B, changes SESSION, stats [SESSION]
  if (positionals.length > extra) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[extra])}`);
  const out = outFor(process.stdout, values.json);
  const err = outFor(process.stderr, false);
  if (cmd === 'simulate') {
    const { simulateArgs } = await import('./cli/simulate-options.js');
    const args = simulateArgs({ id: values.id, turns: values.turns, speed: values.speed, noTorn: values['no-torn'] });
    const { runSimulate } = await import('./cli/simulate-command.js');
    return runSimulate(rootFor(cmd, values.dir).dir, args);
  }
  const { dir } = rootFor(cmd, values.dir);
  const index = await loadRoot(dir, { cache: !values['no-cache'] });
  if (index.cacheNote && process.env.DSH_BROWSE_DEBUG) process.stderr.write(`dsh-browse: ${sanitizeInline(index.cacheNote)}\n`);
  const abs = (p: string) => path.resolve(p);
  switch (cmd) {
    case 'list':
      return cmdList(index, out);
    case 'tree':
      return cmdTree(usageOnNotFound(() => resolveSession(index, values.session, abs)), out, index.store.list());
    case 'fork':
      return cmdFork(index, () => resolveSession(index, values.session, abs), parseIntArg('at', values.at), values.id, out, err);
    case 'lineage':
      return cmdLineage(index, out);
    case 'audit':
      return cmdAudit(index, out);
    case 'diff':
      if (positionals.length < 3) throw new UsageError('diff needs two sessions: dsh-browse diff A B');
      return cmdDiff(index, usageOnNotFound(() => resolveSession(index, positionals[1], abs)), usageOnNotFound(() => resolveSession(index, positionals[2], abs)), out, process.stdout.columns);
    case 'changes': {
      if (positionals.length < 2) throw new UsageError('changes needs a session: dsh-browse changes SESSION [--since OTHER]');
      const since = values.since === undefined ? undefined : usageOnNotFound(() => resolveSession(index, values.since, abs));
      return cmdChanges(usageOnNotFound(() => resolveSession(index, positionals[1], abs)), since, out);
    }
    case 'stats':
      if (positionals.length < 2) return cmdStats(byRecency(index.store.list()), out);
      return cmdStats([usageOnNotFound(() => resolveSession(index, positionals[1], abs))], out, false);
    case 'export':
      return cmdExport(index, usageOnNotFound(() => resolveSession(index, values.session, abs)), parseIntArg('at', values.at), values.format, out);
  }
  return 2;
}

function isUsage(e: unknown): boolean {
  return e instanceof UsageError || (e instanceof Error && 'code' in e && String((e as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS'));
}

declare const __VERSION__: string | undefined;

// `dsh-browse tree … | head -1`: a closed pipe ends the command quietly, as `git log | head` does.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

const isEntry = process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url).pathname);
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      if (isUsage(e)) {
        process.stderr.write(`dsh-browse: ${sanitizeInline((e as Error).message)}\n`); // may name files and ids from disk
        process.exitCode = 2;
      } else if (e instanceof ReadFailure) {
        process.stderr.write(`dsh-browse: ${sanitizeInline(e.message)}\n`);
        process.exitCode = 1;
      } else {
        process.stderr.write(`dsh-browse: unexpected failure: ${sanitizeInline(e instanceof Error ? e.message : String(e))}\n`);
        if (process.env.DSH_BROWSE_DEBUG) process.stderr.write(String((e as Error)?.stack) + '\n');
        process.exitCode = 3;
      }
    },
  );
}
