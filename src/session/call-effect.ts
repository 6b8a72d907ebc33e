// What one tool call did, as far as its log says: the files it wrote or
// edited (the hunks it applied), the shell command it ran and how it exited,
// or a path it named with an effect the log cannot tell. Pure: no I/O.
//
// Facts from the harness's own tools (zsagi1368/deepseek-harness-zDSH
// @1dd6c6a3, packages/fs/tool-fs/src/{edit,write,diff}.ts and
// packages/shell/tool-bash/src/render.ts; docs/formats.md, "What a branch
// changed"):
//   - edit {file_path, old_string, new_string, replace_all?} and write
//     {file_path, content} put the applied hunks in the result's
//     data.meta.diffs [{path, oldText, newText}]: three lines of context,
//     oldText null for a pure insertion; write adds meta.operation
//     "create" | "update". What was applied wins over the arguments.
//   - rc.8's str_replace_editor {command, path, old_str, new_str, file_text,
//     insert_line} answers with text only.
//   - bash and pwsh report a non-zero exit as a trailing `[exit code: N]`
//     marker (isError stays false); a kill, a timeout or a move to the
//     background has its own marker; no marker is a zero exit.
//   - the error flag sits in the result block up to v3, on the message in v4.
import { diffArrays } from 'diff';
import { textOf } from './json-safe.js';

/** One applied hunk: the old lines (null: a pure insertion) and the new, with their context. */
export interface Hunk {
  oldText: string | null;
  newText: string;
}

/** What a call's result says, as the effect needs it. */
export interface CallOutcome {
  isError: boolean;
  text: string;
  meta?: unknown;
}

export type CallEffect =
  | {
      kind: 'edit';
      path: string;
      /** what was applied (meta.diffs) or, without it, what the arguments asked */
      hunks: Hunk[];
      basis: 'applied' | 'arguments';
      /** the call made the file (write's operation, str_replace_editor's create) */
      created: boolean;
      /** the call's whole new text of the file (write, create), when the arguments carry it */
      content?: string;
      /** edit's literal replacement, for a reader that knows the file's text */
      replace?: { old: string; new: string; all: boolean };
      /** str_replace_editor's insert: the text goes after this line (0: at the top) */
      insert?: { line: number; text: string };
      failed: boolean;
      /** the call has no result in the log: whether it ran is not known */
      pending: boolean;
    }
  | { kind: 'command'; command: string; exitCode?: number; end?: string; failed: boolean; pending: boolean }
  | { kind: 'unknown'; path: string }
  | { kind: 'none' };

/** Tools that write or edit a file (what callEffect can tell as an edit). */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['edit', 'write', 'str_replace_editor']);

/** Tools that only read: a path they name is not a change. */
const READ_ONLY = new Set(['read', 'read_image', 'glob', 'grep', 'ls', 'list', 'list_dir', 'view', 'web_fetch', 'web_search', 'todo_write', 'todo_read']);
const PATH_KEYS = ['file_path', 'path', 'filePath', 'file', 'filename', 'target'];
const SHELLS = new Set(['bash', 'pwsh', 'shell']);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Whether a call of `name` may write, edit or name a path (a shell's or a reader's never does, as far as the log can tell). */
export const mayTouchPath = (name: string): boolean => !SHELLS.has(name) && !READ_ONLY.has(name);

/** A call's arguments as an object: a JSON string (tool/call), an object (a run_code dispatch), else none. */
export function argumentsObject(args: unknown): Record<string, unknown> | undefined {
  if (isObj(args)) return args;
  if (typeof args !== 'string' || args.length > 64 * 1024 * 1024) return undefined;
  try {
    const v: unknown = JSON.parse(args);
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** meta.diffs when every entry is a hunk (the harness's diffsFromMeta rule), else undefined. */
export function appliedHunks(meta: unknown): Array<Hunk & { path: string }> | undefined {
  if (!isObj(meta) || !Array.isArray(meta.diffs) || meta.diffs.length === 0) return undefined;
  const out: Array<Hunk & { path: string }> = [];
  for (const d of meta.diffs as unknown[]) {
    if (!isObj(d) || typeof d.path !== 'string' || typeof d.newText !== 'string' || !(d.oldText === null || typeof d.oldText === 'string')) return undefined;
    out.push({ path: d.path, oldText: d.oldText, newText: d.newText });
  }
  return out;
}

/** The exit of a shell result: its trailing marker (render.ts keeps the exit marker last), else 0. */
export function shellExit(text: string): { exitCode?: number; end?: string } {
  const tail = text.slice(-400);
  const code = /\[exit code: (-?\d+)\]\s*$/.exec(tail);
  if (code) return { exitCode: Number(code[1]) };
  // a signal's name (SIGTERM, 9): nothing else of the log's text reaches what is shown of the exit
  const signal = /\[killed by signal: ([A-Za-z0-9]{1,16})\]\s*$/.exec(tail);
  if (signal) return { end: `killed by ${signal[1]}` };
  if (/\[stopped: [^\n]*\]\s*$/.test(tail)) return { end: 'stopped' };
  if (/\[timed out after \d+ms\]\s*$/.test(tail)) return { end: 'timed out' };
  if (/\[still running after \d+ms; moved to background job [^\]\n]*\]/.test(tail)) return { end: 'moved to the background' };
  return { exitCode: 0 };
}

/**
 * What the call `name(args)` did, given its result (undefined: none in the
 * log). A file tool's path is the one its arguments name; cwd (the
 * session's) makes an absolute path under it relative, as the harness shows it.
 */
export function callEffect(name: string, args: unknown, result: CallOutcome | undefined, cwd?: string): CallEffect {
  const a = argumentsObject(args) ?? {};
  const failed = result?.isError === true;
  const pending = result === undefined;
  const rel = (p: string) => relativePath(p, cwd);
  if (SHELLS.has(name)) {
    const command = str(a.command) ?? str(a.cmd) ?? (typeof args === 'string' ? args : textOf(args));
    if (!result) return { kind: 'command', command, failed: false, pending: true };
    if (failed) return { kind: 'command', command, failed: true, pending: false };
    return { kind: 'command', command, ...shellExit(result.text), failed: false, pending: false };
  }
  const applied = failed ? undefined : appliedHunks(result?.meta);
  const fromMeta = (path: string) => applied?.filter((h) => relativePath(h.path, cwd) === path).map(({ oldText, newText }) => ({ oldText, newText }));
  const edit = (path: string, argHunks: Hunk[], extra: Partial<Extract<CallEffect, { kind: 'edit' }>>): CallEffect => {
    const got = fromMeta(path);
    // an empty hunk list is an unchanged overwrite (or a create of an empty file): nothing applied
    const useApplied = got !== undefined && applied !== undefined;
    return { kind: 'edit', path, hunks: useApplied ? got : argHunks, basis: useApplied ? 'applied' : 'arguments', created: false, failed, pending, ...extra };
  };
  if (name === 'edit') {
    const path = str(a.file_path) ?? str(a.path);
    const old = str(a.old_string);
    const nu = str(a.new_string);
    if (path === undefined || old === undefined || nu === undefined) return unknownOrNone(name, a, cwd);
    return edit(rel(path), [{ oldText: old || null, newText: nu }], { replace: { old, new: nu, all: a.replace_all === true } });
  }
  if (name === 'write') {
    const path = str(a.file_path) ?? str(a.path);
    const content = str(a.content);
    if (path === undefined || content === undefined) return unknownOrNone(name, a, cwd);
    const op = isObj(result?.meta) ? result.meta.operation : undefined;
    return edit(rel(path), [{ oldText: null, newText: content }], { created: !failed && op === 'create', content });
  }
  if (name === 'str_replace_editor') {
    const path = str(a.path);
    if (path === undefined) return unknownOrNone(name, a, cwd);
    switch (a.command) {
      case 'view':
        return { kind: 'none' };
      case 'create': {
        const text = str(a.file_text) ?? '';
        return edit(rel(path), [{ oldText: null, newText: text }], { created: !failed && !pending, content: text });
      }
      case 'str_replace': {
        const old = str(a.old_str) ?? '';
        const nu = str(a.new_str) ?? '';
        return edit(rel(path), [{ oldText: old || null, newText: nu }], { replace: { old, new: nu, all: false } });
      }
      case 'insert': {
        const text = str(a.new_str) ?? '';
        const line = typeof a.insert_line === 'number' && Number.isInteger(a.insert_line) && a.insert_line >= 0 ? a.insert_line : undefined;
        return edit(rel(path), [{ oldText: null, newText: text }], line === undefined ? {} : { insert: { line, text } });
      }
      default:
        return { kind: 'unknown', path: rel(path) };
    }
  }
  return unknownOrNone(name, a, cwd);
}

function unknownOrNone(name: string, a: Record<string, unknown>, cwd: string | undefined): CallEffect {
  if (READ_ONLY.has(name)) return { kind: 'none' };
  for (const k of PATH_KEYS) if (typeof a[k] === 'string' && a[k]) return { kind: 'unknown', path: relativePath(a[k] as string, cwd) };
  return { kind: 'none' };
}

/** `p` relative to `cwd` when it lies under it (the harness shows paths so), else as written. */
export function relativePath(p: string, cwd: string | undefined): string {
  if (!cwd || !p.startsWith('/')) return p.startsWith('./') ? p.slice(2) : p;
  const base = cwd.endsWith('/') ? cwd : cwd + '/';
  return p.startsWith(base) && p.length > base.length ? p.slice(base.length) : p;
}

/**
 * A hunk's lines as a unified diff's body (' ' context, '-' removed, '+'
 * added): its old and new lines less the context they share at both ends
 * (the harness's hunks carry three lines each side), the middle line-diffed,
 * since context between two changes of one hunk is common to both sides.
 * Bounded: past MAX_EDIT edits the middle counts as replaced whole.
 */
export function hunkLines(h: Hunk): string[] {
  const o = h.oldText === null ? [] : splitLines(h.oldText);
  const n = splitLines(h.newText);
  let head = 0;
  while (head < o.length && head < n.length && o[head] === n[head]) head++;
  let tail = 0;
  while (tail < o.length - head && tail < n.length - head && o[o.length - 1 - tail] === n[n.length - 1 - tail]) tail++;
  const out: string[] = [];
  for (let i = 0; i < head; i++) out.push(' ' + o[i]);
  const oMid = o.slice(head, o.length - tail);
  const nMid = n.slice(head, n.length - tail);
  const parts = oMid.length > 0 && nMid.length > 0 ? diffArrays(oMid, nMid, { maxEditLength: MAX_EDIT }) : undefined;
  if (parts) for (const p of parts) for (const l of p.value) out.push((p.added ? '+' : p.removed ? '-' : ' ') + l);
  else {
    for (const l of oMid) out.push('-' + l);
    for (const l of nMid) out.push('+' + l);
  }
  for (let i = o.length - tail; i < o.length; i++) out.push(' ' + o[i]);
  return out;
}

/** The lines a hunk adds and removes. */
export function hunkCounts(h: Hunk): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of hunkLines(h)) {
    if (l[0] === '+') added++;
    else if (l[0] === '-') removed++;
  }
  return { added, removed };
}

/** The most line edits a diff looks for before it calls the texts replaced whole (a hostile log's huge texts). */
export const MAX_EDIT = 2000;

/** The lines of a text (a final newline ends the last line). */
export function splitLines(t: string): string[] {
  if (t.length === 0) return [];
  const lines = t.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The lines an edit adds and removes: the sum over its hunks. */
export function effectCounts(hunks: readonly Hunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    const c = hunkCounts(h);
    added += c.added;
    removed += c.removed;
  }
  return { added, removed };
}

/** The counts of one edit (one owner: the Turns row, the Changes view and `changes` all ask it). */
export function editCounts(e: CallEffect): { added: number; removed: number } {
  return e.kind === 'edit' ? effectCounts(e.hunks) : { added: 0, removed: 0 };
}
