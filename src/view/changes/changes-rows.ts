// The rows of the Changes surface, from a session's changes
// (src/session/changes.ts): its own files first with their +n −m, the
// inherited ones set apart, then the commands it ran and the paths of
// unknown effect. Pure; the one owner of what each row says and opens.
import { commandEnd, editHeading, type Changes, type CommandRun, type FileChanges, type UnknownEffect } from '../../session/changes.js';

export type ChangesRow =
  | { kind: 'heading'; text: string }
  | { kind: 'file'; file: FileChanges; inherited: boolean }
  | { kind: 'command'; run: CommandRun }
  | { kind: 'unknown'; effect: UnknownEffect }
  | { kind: 'empty'; text: string };

export interface ChangesList {
  /** the session's id, for the title and the reader's */
  id: string;
  /** what the list covers: the session, or one of its turns */
  scope: string;
  rows: ChangesRow[];
  /** own files, and their totals */
  files: number;
  added: number;
  removed: number;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The list of `c`: own files, inherited files, commands, unknown effects, each under its heading. */
export function changesList(id: string, scope: string, c: Changes): ChangesList {
  const own = c.files.filter((f) => f.edits.some((e) => !e.inherited));
  const inherited = c.files.filter((f) => f.edits.every((e) => e.inherited));
  const rows: ChangesRow[] = [];
  const added = own.reduce((n, f) => n + f.added, 0);
  const removed = own.reduce((n, f) => n + f.removed, 0);
  rows.push({ kind: 'heading', text: `files written or edited · ${plural(own.length, 'file')}  +${added} −${removed}` });
  if (own.length === 0) rows.push({ kind: 'empty', text: 'no file written or edited here' });
  for (const file of own) rows.push({ kind: 'file', file, inherited: false });
  if (inherited.length > 0) {
    rows.push({ kind: 'heading', text: `inherited: edited before this branch's own events · ${plural(inherited.length, 'file')}` });
    for (const file of inherited) rows.push({ kind: 'file', file, inherited: true });
  }
  const commands = c.commands.filter((x) => !x.inherited);
  if (commands.length > 0) {
    rows.push({ kind: 'heading', text: `commands · ${commands.length} (what they changed is not in the log)` });
    for (const run of commands) rows.push({ kind: 'command', run });
  }
  const unknown = c.unknown.filter((x) => !x.inherited);
  if (unknown.length > 0) {
    rows.push({ kind: 'heading', text: `unknown effect · ${unknown.length}` });
    for (const effect of unknown) rows.push({ kind: 'unknown', effect });
  }
  return { id, scope, rows, files: own.length, added, removed };
}

/** What a row says (unsanitised: the view sanitises it), and its counts to colour. */
export function changesRowText(row: ChangesRow): { mark: string; text: string; added?: number; removed?: number; note?: string } {
  switch (row.kind) {
    case 'heading':
    case 'empty':
      return { mark: '', text: row.text };
    case 'file': {
      const f = row.file;
      const mine = f.edits.filter((e) => e.inherited === row.inherited);
      const failed = mine.filter((e) => e.failed).length;
      const note = `${plural(mine.length, 'edit')}${failed ? `, ${failed} failed` : ''}`;
      return row.inherited ? { mark: ' ', text: f.path, note } : { mark: f.created ? 'A' : 'M', text: f.path, added: f.added, removed: f.removed, note };
    }
    case 'command':
      return { mark: '$', text: row.run.command.replace(/\s+/g, ' '), note: `turn ${row.run.turn} ${commandEnd(row.run)}` };
    case 'unknown':
      return { mark: '?', text: row.effect.path, note: `${row.effect.tool}, turn ${row.effect.turn}: unknown effect` };
  }
}

/** The first row Enter can open (a file, else anything but a heading). */
export function firstOpenable(rows: readonly ChangesRow[]): number {
  const i = rows.findIndex((r) => r.kind === 'file');
  return i >= 0 ? i : Math.max(0, rows.findIndex((r) => r.kind !== 'heading'));
}

/** A file's edits as one text for the reader: each edit's heading, then its diff. */
export function fileDiffText(row: Extract<ChangesRow, { kind: 'file' }>): string {
  return row.file.edits
    .filter((e) => e.inherited === row.inherited)
    .map((e) => `${editHeading(row.file.path, e)}\n${e.diff}`)
    .join('\n');
}
