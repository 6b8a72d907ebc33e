// What a session did to the code, derived from its log: each file it wrote
// or edited with its edits in order as unified diffs, the shell commands it
// ran with their exits, and the paths other tools named with an effect the
// log cannot tell (call-effect.ts says what one call did). Pure: no I/O; a
// fold over the events, so a log of any size is read once in batches.
//
// A file's text is known from the moment a call wrote it whole (write,
// create); from there each edit is replayed on it, so its diff carries line
// numbers. Where the log also holds what was applied (meta.diffs), the
// replay must give those very hunks, or the text is forgotten and the
// applied hunks are shown as they are, without line numbers: what was
// applied wins. A shell command may change any file, so it forgets every
// known text.
import { structuredPatch } from 'diff';
import { callEffect, editCounts, effectCounts, hunkLines, MAX_EDIT, splitLines, type CallEffect, type CallOutcome, type Hunk } from './call-effect.js';
import { canonicalJson } from './audit.js';
import type { SessionEvent } from './events.js';
import { textOf } from './json-safe.js';
import { callIdOf, toolResultText } from './replay.js';
import type { Session } from './session.js';

export interface FileEdit {
  /** seq of the call (a run_code dispatch: of its dispatch event) */
  seq: number;
  turn: number;
  tool: string;
  callId: string;
  /** the edit as a unified diff: with line numbers where the file's text is known, `@@ -?` where not */
  diff: string;
  added: number;
  removed: number;
  /** this call made the file */
  created: boolean;
  /** the call failed (or never answered): shown, not counted */
  failed: boolean;
  pending: boolean;
  /** before the branch's own events: a fork's seed, or the prefix shared with the other side */
  inherited: boolean;
  /** meta.diffs (what was applied) or the call's arguments */
  basis: 'applied' | 'arguments';
}

export interface FileChanges {
  path: string;
  /** the branch's own edits made the file */
  created: boolean;
  /** lines added and removed by its own edits that did not fail */
  added: number;
  removed: number;
  edits: FileEdit[];
  /** the file's text after its last edit, when the log holds it whole */
  text?: string;
}

export interface CommandRun {
  seq: number;
  turn: number;
  tool: string;
  command: string;
  exitCode?: number;
  /** how it ended without an exit code: killed, timed out, moved to the background */
  end?: string;
  failed: boolean;
  pending: boolean;
  inherited: boolean;
}

export interface UnknownEffect {
  seq: number;
  turn: number;
  tool: string;
  path: string;
  inherited: boolean;
}

export interface Changes {
  files: FileChanges[];
  commands: CommandRun[];
  unknown: UnknownEffect[];
}

interface PendingCall {
  seq: number;
  turn: number;
  name: string;
  args: unknown;
  callId: string;
}

/** A file's totals over its edits: only its own that did not fail count (the one owner of a file's +n −m). */
export function fileTotals(edits: readonly FileEdit[]): { created: boolean; added: number; removed: number } {
  let created = false;
  let added = 0;
  let removed = 0;
  for (const x of edits) {
    if (x.inherited || x.failed || x.pending) continue;
    created ||= x.created;
    added += x.added;
    removed += x.removed;
  }
  return { created, added, removed };
}

/** The line that heads an edit's diff: where it is in the log, and whether it failed. */
export function editHeading(path: string, e: FileEdit): string {
  return `# ${path}: seq ${e.seq}, turn ${e.turn}, ${e.tool}${e.failed ? ' (failed)' : e.pending ? ' (no result)' : ''}${e.inherited ? ' (inherited)' : ''}`;
}

/** The changes made by the events with seq in [from, to] (a turn's): each file's edits there, its totals over them. */
export function changesWithin(c: Changes, from: number, to: number): Changes {
  const within = (x: { seq: number }) => x.seq >= from && x.seq <= to;
  const files: FileChanges[] = [];
  for (const f of c.files) {
    const edits = f.edits.filter(within);
    if (edits.length > 0) files.push({ path: f.path, ...fileTotals(edits), edits });
  }
  return { files, commands: c.commands.filter(within), unknown: c.unknown.filter(within) };
}

/** `c` with every edit, command and path before seq `before` inherited (a comparison's shared prefix), the totals again. */
export function inheritedBefore(c: Changes, before: number): Changes {
  const mark = <T extends { seq: number; inherited: boolean }>(x: T): T => (x.seq < before && !x.inherited ? { ...x, inherited: true } : x);
  const files = c.files.map((f) => {
    const edits = f.edits.map(mark);
    return { ...f, edits, ...fileTotals(edits) };
  });
  return { files, commands: c.commands.map(mark), unknown: c.unknown.map(mark) };
}

/** The most characters of diff text one fold keeps (about 32 MB): past it an edit keeps its counts only. */
export const DIFFS_KEPT = 16 * 2 ** 20;

/** The longest text the fold keeps as a file's known text (a larger one is forgotten: its later edits show the log's hunks). */
const KNOWN_MAX = 1 << 20;

/**
 * Folds a log's events into its Changes. `inheritedBefore`: events with a
 * smaller seq are inherited (a fork's cut, or the prefix shared with the
 * other side of a comparison).
 */
export class ChangesFold {
  private readonly files = new Map<string, FileChanges>();
  private readonly commands: CommandRun[] = [];
  private readonly unknown: UnknownEffect[] = [];
  private readonly open = new Map<string, PendingCall>();
  private readonly known = new Map<string, string>();
  private turn = 0;
  /** characters of diff text kept so far (bounded: DIFFS_KEPT) */
  private kept = 0;

  /** `diffsKept`: the most characters of diffs kept (DIFFS_KEPT) */
  constructor(private readonly opts: { cwd?: string; inheritedBefore?: number; diffsKept?: number } = {}) {}

  add(e: SessionEvent): void {
    const d = e.data;
    switch (e.type) {
      case 'turn/start':
        // calls of an earlier turn never answered stay open: the harness settles a call in its turn
        this.flushOpen();
        if (typeof d?.turn === 'number') this.turn = d.turn;
        return;
      case 'tool/call': {
        const callId = callIdOf(e);
        const call = { seq: e.seq, turn: typeof d?.turn === 'number' ? d.turn : this.turn, name: textOf(d?.name ?? '?'), args: d?.arguments, callId };
        if (this.open.has(callId)) this.settle(this.open.get(callId)!, undefined);
        this.open.set(callId, call);
        return;
      }
      case 'tool/result': {
        const callId = callIdOf(e);
        const call = this.open.get(callId);
        if (!call) return;
        this.open.delete(callId);
        const r = toolResultText(e);
        this.settle(call, { isError: r.isError, text: r.text, meta: d?.meta });
        return;
      }
      case 'tool/ptc-dispatch': {
        // a call run_code made: its arguments an object, its result on the same event
        if (typeof d !== 'object' || d === null) return;
        const call = { seq: e.seq, turn: this.turn, name: textOf(d.name ?? '?'), args: d.arguments, callId: textOf(d.subCallId ?? '') };
        const text = Array.isArray(d.content) ? d.content.map((b: { text?: unknown }) => (typeof b?.text === 'string' ? b.text : '')).join('') : '';
        this.settle(call, { isError: d.isError === true, text, meta: d.meta });
        return;
      }
    }
  }

  /** The changes so far (calls still open are listed as pending). */
  result(): Changes {
    this.flushOpen();
    // by path, as git lists a change's files
    const files = [...this.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const f of files) {
      Object.assign(f, fileTotals(f.edits));
      const text = this.known.get(f.path);
      if (text !== undefined) f.text = text;
    }
    return { files, commands: this.commands, unknown: this.unknown };
  }

  private flushOpen(): void {
    for (const call of this.open.values()) this.settle(call, undefined);
    this.open.clear();
  }

  private settle(call: PendingCall, outcome: CallOutcome | undefined): void {
    const inherited = this.opts.inheritedBefore !== undefined && call.seq < this.opts.inheritedBefore;
    const fx = callEffect(call.name, call.args, outcome, this.opts.cwd);
    if (fx.kind === 'command') {
      // the log cannot see inside a command: every text it knew may have changed
      this.known.clear();
      this.commands.push({ seq: call.seq, turn: call.turn, tool: call.name, command: fx.command, ...(fx.exitCode !== undefined ? { exitCode: fx.exitCode } : {}), ...(fx.end ? { end: fx.end } : {}), failed: fx.failed, pending: fx.pending, inherited });
      return;
    }
    if (fx.kind === 'unknown') {
      this.known.delete(fx.path);
      this.unknown.push({ seq: call.seq, turn: call.turn, tool: call.name, path: fx.path, inherited });
      return;
    }
    if (fx.kind !== 'edit') return;
    const c = editCounts(fx);
    let diff = this.diffOf(fx);
    // past the bound, an edit keeps its counts and says its diff was not kept (a 10 GB log's diffs are not held)
    const bound = this.opts.diffsKept ?? DIFFS_KEPT;
    if (this.kept + diff.length > bound) diff = `--- a/${fx.path}\n+++ b/${fx.path}  (diff not kept: one read keeps at most ${bound} characters of diffs)\n`;
    this.kept += diff.length;
    const edit: FileEdit = {
      seq: call.seq,
      turn: call.turn,
      tool: call.name,
      callId: call.callId,
      diff,
      added: c.added,
      removed: c.removed,
      created: fx.created,
      failed: fx.failed,
      pending: fx.pending,
      inherited,
      basis: fx.basis,
    };
    let f = this.files.get(fx.path);
    if (!f) this.files.set(fx.path, (f = { path: fx.path, created: false, added: 0, removed: 0, edits: [] }));
    f.edits.push(edit);
  }

  private remember(path: string, text: string): void {
    if (text.length <= KNOWN_MAX) this.known.set(path, text);
    else this.known.delete(path);
  }

  /** The edit's unified diff, replaying it on the file's known text where it agrees with what was applied. */
  private diffOf(fx: Extract<CallEffect, { kind: 'edit' }>): string {
    if (fx.failed) return hunksDiff(fx.path, fx.hunks, 'failed: not applied');
    if (fx.pending) {
      this.known.delete(fx.path);
      return hunksDiff(fx.path, fx.hunks, 'no result: not known to be applied');
    }
    const before = this.known.get(fx.path) ?? (fx.created ? '' : undefined);
    const after = replayed(before, fx);
    if (before !== undefined && after !== undefined) {
      const patch = structuredPatch(fx.path, fx.path, before, after, '', '', { context: 3, maxEditLength: MAX_EDIT });
      if (patch && (fx.basis !== 'applied' || sameHunks(patchHunks(patch), fx.hunks)) && (fx.basis === 'applied' || countsAgree(patch, fx.hunks))) {
        this.remember(fx.path, after);
        return patchText(fx.path, patch, before === '' && fx.created);
      }
    }
    // the replay disagrees with what was applied, or nothing to replay on: the hunks as the log has them
    if (after !== undefined && fx.content !== undefined) this.remember(fx.path, after);
    else this.known.delete(fx.path);
    return hunksDiff(fx.path, fx.hunks, fx.basis === 'arguments' && fx.content !== undefined ? 'the whole text written' : undefined);
  }
}

/** The file's text after the edit, when it can be told: a whole text written, or an edit replayed on a known one. */
function replayed(before: string | undefined, fx: Extract<CallEffect, { kind: 'edit' }>): string | undefined {
  if (fx.content !== undefined) return fx.content;
  if (before === undefined) return undefined;
  if (fx.replace) {
    const { old, new: nu, all } = fx.replace;
    if (old.length === 0) return undefined;
    const at = before.indexOf(old);
    if (at === -1) return undefined;
    if (all) return before.split(old).join(nu);
    // the harness refuses an old string that is not unique; so does the replay
    if (before.indexOf(old, at + old.length) !== -1) return undefined;
    return before.slice(0, at) + nu + before.slice(at + old.length);
  }
  if (fx.insert) {
    const lines = before.split('\n');
    if (fx.insert.line > lines.length) return undefined;
    const text = fx.insert.text.endsWith('\n') ? fx.insert.text.slice(0, -1) : fx.insert.text;
    lines.splice(fx.insert.line, 0, text);
    return lines.join('\n');
  }
  return undefined;
}

type Patch = NonNullable<ReturnType<typeof structuredPatch>>;

/** A patch's hunks as the harness records them (diff.ts computeHunkDiffs: context on both sides, no newline markers). */
function patchHunks(p: Patch): Hunk[] {
  return p.hunks.map((h) => {
    const o: string[] = [];
    const n: string[] = [];
    for (const line of h.lines) {
      if (line.startsWith('\\')) continue;
      const t = line.slice(1);
      if (line[0] === '-') o.push(t);
      else if (line[0] === '+') n.push(t);
      else {
        o.push(t);
        n.push(t);
      }
    }
    return { oldText: o.length > 0 ? o.join('\n') : null, newText: n.join('\n') };
  });
}

/** Two hunk lists say the same, line for line (trailing newlines aside: a hunk's text has none). */
function sameHunks(a: readonly Hunk[], b: readonly Hunk[]): boolean {
  const norm = (t: string | null) => (t === null ? null : t.replace(/\n$/, ''));
  return a.length === b.length && a.every((h, i) => norm(h.oldText) === norm(b[i].oldText) && norm(h.newText) === norm(b[i].newText));
}

/**
 * The replay's counts are the arguments' (editCounts owns an edit's counts,
 * and the Turns row has no replay): a replace_all that hit several places, or
 * a whole text written over a known one, shows the hunks the arguments give.
 */
function countsAgree(p: Patch, hunks: readonly Hunk[]): boolean {
  const c = effectCounts(patchHunks(p));
  const d = effectCounts(hunks);
  return c.added === d.added && c.removed === d.removed;
}

function patchText(path: string, p: Patch, created: boolean): string {
  const out = [`--- ${created ? '/dev/null' : `a/${path}`}`, `+++ b/${path}`];
  for (const h of p.hunks) {
    out.push(`@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart}${h.oldLines === 1 ? '' : `,${h.oldLines}`} +${h.newLines === 0 ? h.newStart - 1 : h.newStart}${h.newLines === 1 ? '' : `,${h.newLines}`} @@`);
    for (const line of h.lines) out.push(line);
  }
  return out.join('\n') + '\n';
}

/** Hunks without a place in the file: each as `@@ -?,n +?,m @@` and its lines, context kept. */
export function hunksDiff(path: string, hunks: readonly Hunk[], note?: string): string {
  const out = [`--- a/${path}`, `+++ b/${path}${note ? `  (${note})` : ''}`];
  for (const h of hunks) {
    const o = h.oldText === null ? [] : splitLines(h.oldText);
    const n = splitLines(h.newText);
    out.push(`@@ -?,${o.length} +?,${n.length} @@`, ...hunkLines(h));
  }
  return out.join('\n') + '\n';
}

/**
 * The changes of `s` in steps (the browser's slices, for a large log): it
 * yields the events read so far wherever the read pauses (`pause()` says
 * when), and returns the changes; return() closes the log.
 */
export function* changesSteps(s: Session, inheritedBefore: number | undefined, pause: () => boolean): Generator<number, Changes> {
  const fold = new ChangesFold({ cwd: cwdOf(s), inheritedBefore });
  let read = 0;
  const it = s.pausedBatches(Infinity, pause);
  try {
    for (let r = it.next(); !r.done; r = it.next()) {
      if (r.value === undefined) {
        yield read;
        continue;
      }
      for (const e of r.value) fold.add(e);
      read += r.value.length;
    }
  } finally {
    it.return?.(undefined);
  }
  return fold.result();
}

const cwdOf = (s: Session): string | undefined => (typeof s.header.cwd === 'string' ? s.header.cwd : undefined);

/** The changes of a log read in batches (Session.eventBatches). */
export function changesOf(batches: Iterable<readonly SessionEvent[]>, opts: { cwd?: string; inheritedBefore?: number; diffsKept?: number } = {}): Changes {
  const fold = new ChangesFold(opts);
  for (const batch of batches) for (const e of batch) fold.add(e);
  return fold.result();
}

/** Where a session's own events start: --since OTHER's shared prefix, else a fork's cut. */
export function ownFrom(s: Session, since: Session | undefined): number | undefined {
  if (since) return since === s ? undefined : sharedPrefix(s, since);
  return s.kind === 'fork' ? s.seedLength : undefined;
}

/** How many leading events the two logs share, read in batches side by side. */
function sharedPrefix(a: Session, b: Session): number {
  // the logs are compared a batch at a time: neither is held whole
  const ia = flat(a.eventBatches());
  const ib = flat(b.eventBatches());
  let n = 0;
  try {
    for (;;) {
      const x = ia.next();
      const y = ib.next();
      if (x.done || y.done || canonicalJson(x.value) !== canonicalJson(y.value)) return n;
      n++;
    }
  } finally {
    ia.return?.(undefined);
    ib.return?.(undefined);
  }
}

function* flat(batches: Iterable<readonly SessionEvent[]>): Generator<SessionEvent> {
  for (const b of batches) yield* b;
}

/** The changes of `s`, its own set apart from what it inherited (ownFrom). */
export function sessionChanges(s: Session, since?: Session): Changes {
  return changesOf(s.eventBatches(), { cwd: cwdOf(s), inheritedBefore: ownFrom(s, since) });
}

/** The JSON of `changes --json` (and each side's `changes` in `diff --json`): the file's kept text left out. */
export function changesJson(c: Changes) {
  return {
    files: c.files.map(({ text: _text, ...f }) => f),
    commands: c.commands,
    unknown: c.unknown,
  };
}

/** How a command ended, in words: `(exit 1)`, `(killed by SIGTERM)`, `(failed)`, `(no result)`. */
export function commandEnd(x: { exitCode?: number; end?: string; failed: boolean; pending: boolean }): string {
  if (x.pending) return '(no result)';
  if (x.failed) return '(failed to run)';
  if (x.exitCode !== undefined) return `(exit ${x.exitCode})`;
  return `(${x.end ?? 'ended'})`;
}

