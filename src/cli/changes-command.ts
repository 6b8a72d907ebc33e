// The headless `changes` command: what a session (or a branch since another
// session) did to the code, from its log (src/session/changes.ts).
import { changesJson, commandEnd, editHeading, sessionChanges, type FileChanges } from '../session/changes.js';
import { safeStringify } from '../session/json-safe.js';
import type { Session } from '../session/session.js';
import { jsonSafe } from '../export/escape.js';
import { sanitizeBlock, sanitizeInline } from '../view/text/sanitize.js';
import { writeFromLog, type Out } from './commands.js';
import { cell, painter } from './format.js';
import { batched } from './batched.js';

export const CHANGES_HELP = `dsh-browse changes [--dir DIR] SESSION [--since OTHER] [--json]
  What SESSION (an id or a file) did to the code, from its log: each file it
  wrote or edited (edit, write, str_replace_editor, and calls run_code made),
  with +added −removed lines and its edits in order as unified diffs (what
  the harness recorded as applied where the log has it, else the call's
  arguments; line numbers where the log holds the file's whole text, @@ -?
  where not); the shell commands it ran with their exit codes (the log
  cannot see which files a command touched); and the paths other tools named
  with an effect the log cannot tell ("unknown effect"). A failed call is
  shown and not counted. A fork child's inherited edits are set apart; with
  --since OTHER, every edit in the events SESSION shares with OTHER is.
  --json: {id, file, since, files: [{path, created, added, removed,
           edits: [{seq, turn, tool, diff, failed, inherited, …}]}],
           commands: [{seq, turn, command, exitCode?, …}], unknown: [{seq, turn, tool, path}]}`;

export async function cmdChanges(s: Session, since: Session | undefined, out: Out): Promise<number> {
  await writeFromLog(out, s, batched(changesText(s, since, out)));
  return 0;
}

function* changesText(s: Session, since: Session | undefined, out: Out): Generator<string> {
  const c = sessionChanges(s, since);
  if (out.json) {
    yield jsonSafe(safeStringify({ id: s.id, file: s.file ?? null, since: since ? { id: since.id, file: since.file ?? null } : null, ...changesJson(c) }, 2)) + '\n';
    return;
  }
  const p = painter(out.color);
  const name = (x: Session) => sanitizeInline(x.file ?? x.id);
  yield p('bold', `changes of ${name(s)}${since ? ` since ${name(since)}` : ''}`) + '\n';
  const own = c.files.filter((f) => f.edits.some((e) => !e.inherited));
  const inherited = c.files.filter((f) => f.edits.every((e) => e.inherited));
  const line = (f: FileChanges) => {
    const failed = f.edits.filter((e) => e.failed && !e.inherited).length;
    const n = f.edits.filter((e) => !e.inherited).length;
    return `  ${f.created ? p('green', 'A') : 'M'} ${sanitizeInline(f.path)}  ${p('green', `+${f.added}`)} ${p('red', `−${f.removed}`)}  ${n} edit${n === 1 ? '' : 's'}${failed ? p('red', `, ${failed} failed`) : ''}\n`;
  };
  if (own.length === 0) yield '  no file written or edited\n';
  for (const f of own) yield line(f);
  if (inherited.length > 0) {
    yield p('gray', `inherited (${inherited.length} file${inherited.length === 1 ? '' : 's'}, edited before this branch's own events):`) + '\n';
    for (const f of inherited) yield p('gray', `  ${sanitizeInline(f.path)}  ${f.edits.length} edit${f.edits.length === 1 ? '' : 's'}`) + '\n';
  }
  const cmds = c.commands.filter((x) => !x.inherited);
  if (cmds.length > 0) {
    yield p('bold', 'commands (what they changed is not in the log):') + '\n';
    for (const x of cmds) yield `  turn ${x.turn}  ran ${cell(x.command, 200)} ${commandEnd(x)}\n`;
  }
  const unknown = c.unknown.filter((x) => !x.inherited);
  if (unknown.length > 0) {
    yield p('bold', 'unknown effect:') + '\n';
    for (const x of unknown) yield `  turn ${x.turn}  ${sanitizeInline(x.tool)} named ${sanitizeInline(x.path)}\n`;
  }
  for (const f of own)
    for (const e of f.edits) {
      if (e.inherited) continue;
      yield '\n' + p('bold', sanitizeInline(editHeading(f.path, e))) + '\n';
      for (const l of sanitizeBlock(e.diff.replace(/\n$/, ''))) yield diffColor(p, l) + '\n';
    }
}

function diffColor(p: ReturnType<typeof painter>, l: string): string {
  if (l.startsWith('+++') || l.startsWith('---')) return p('bold', l);
  if (l.startsWith('@@')) return p('cyan', l);
  if (l.startsWith('+')) return p('green', l);
  if (l.startsWith('-')) return p('red', l);
  return l;
}
