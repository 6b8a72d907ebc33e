// The headless commands: list, tree, fork, lineage, audit.
import { isMemoryKey } from '../session/session-key.js';
import { batched } from './batched.js';
import { jsonWithStreamedArray, StreamedJson, writeJsonWithArray } from './json-out.js';
import { auditSessions, type Finding } from '../session/audit.js';
import { eraOf } from '../session/era.js';
import { isSessionForkError, SessionForkError } from '../session/errors.js';
import { resumeCommand, type ResumeCommand } from '../session/resume-command.js';
import { resumeVerdict } from '../storage/resume.js';
import { listRefusalsOf, rootRefusals } from '../storage/root-refusals.js';
import { upgradeVerdict, type UpgradeVerdict } from '../session/upgrade.js';
import { safeStringify } from '../session/json-safe.js';
import { resolveParents, type ParentLink } from '../session/lineage.js';
import { isForkable, stateOf } from '../session/log-facts.js';
import type { TreeNode } from '../session/replay.js';
import { topNodes } from '../session/turn-pieces.js';
import { linkJson, scanSubagents, subagentLinks, SUBAGENT_TOOLS, type SubagentLink } from '../session/subagents.js';
import { LogShrankError, type Session } from '../session/session.js';
import { NotAFileError } from '../storage/open-file.js';
import { allDiagnostics, olderGenerations, type RootIndex } from '../storage/load-root.js';
import { layoutLineage, renderLineageText } from '../view/lineage-graph/lineage-layout.js';
import { lineageNodes } from '../view/lineage-graph/lineage-model.js';
import { usageForListing } from './session-usage.js';
import { sanitizeInline } from '../view/text/sanitize.js';
import { age, cell, painter, table, type Color } from './format.js';

export interface Out {
  json: boolean;
  color: boolean;
  /** false: the stream's buffer is full (a pipe read slower than we write); wait for drained() */
  write(s: string): void | boolean;
  drained?(): Promise<void>;
}

/** A session's log could not be read to its end while a command wrote it out: exit 1 with this message (what was written stays written). */
export class ReadFailure extends Error {}

/**
 * writePieces of output made while `s`'s log is read: a log that vanished,
 * became unreadable or shrank since the root was indexed is a ReadFailure
 * naming the file, not an unexpected failure.
 */
export async function writeFromLog(out: Out, s: Session, pieces: Iterable<string>): Promise<void> {
  try {
    await writePieces(out, pieces);
  } catch (e) {
    throw asReadFailure(e, s);
  }
}

/** `e`, thrown while `s`'s log was read: a ReadFailure naming the file when the log could not be read, else itself. */
export function asReadFailure(e: unknown, s: Session): unknown {
  if (e instanceof LogShrankError || e instanceof NotAFileError || typeof (e as NodeJS.ErrnoException).code === 'string')
    return new ReadFailure(`cannot read ${s.file ?? s.id}: ${(e as Error).message}`);
  return e;
}

/**
 * Writes the pieces in order, waiting whenever the stream's buffer is full:
 * a slow reader of a 10 GB export holds the writer back, not its memory
 * (a pipe takes 64 KB; the rest would queue in the process).
 */
export async function writePieces(out: Out, pieces: Iterable<string>): Promise<void> {
  for (const p of pieces) if (out.write(p) === false && out.drained) await out.drained();
}

export class UsageError extends Error {}

/** fork/spawn, and whether the child is a subagent's (rc.8 origin: "subagent") */
export const kindLabel = (s: Session): string => (s.kind === 'root' ? '' : s.header.origin === 'subagent' ? `subagent-${s.kind}` : s.kind);

/** What the harness's verdict needs beyond the session: its id's other sessions, a refusal of its whole root. */
export interface ResumeContext {
  sameId?: readonly Session[];
  rootRefusal?: string;
  /** older generation files beside the session's current one (generations.ts), highest first */
  older?: readonly string[];
}

/** One session as `list --json` writes it (keys in this order; an absent one is left out). */
export interface SessionSummary {
  id: string;
  file?: string;
  parentSession?: string;
  parentFile?: string;
  parentAmbiguous?: true;
  seedLength?: number;
  cwd?: string;
  kind: Session['kind'];
  era: ReturnType<typeof eraOf>;
  format: number;
  generations?: { current?: string; older: string[] };
  origin?: unknown;
  delegationDepth?: unknown;
  agentPreset?: unknown;
  resumable: boolean;
  resumeReason?: string;
  /** would the current release open it after its migrations (upgrade.ts) */
  upgrade: UpgradeVerdict;
  createdAt: number;
  events: number;
  turns: number;
  state: ReturnType<typeof stateOf>;
  forkable: boolean;
  lastEventType?: string;
  lastEventTime?: number;
  title?: string;
  diagnostics: number;
  usage: ReturnType<typeof usageForListing>;
}

/**
 * A session's summary, built key by key in the order above (a spread of a
 * literal per optional key made ~10 objects a session: `list --json` at
 * 100,000 sessions spent ~0.2 s on them).
 */
export function sessionSummary(s: Session, parent?: ParentLink, ctx: ResumeContext = {}): SessionSummary {
  const f = s.facts;
  const h = s.header;
  const verdict = resumeVerdict(s, ctx.sameId ?? [], ctx.rootRefusal);
  const o = { id: s.id, file: s.file } as SessionSummary;
  if (s.parentSession !== undefined) o.parentSession = s.parentSession;
  // ids repeat: the parent's file when it can be told (see src/session/lineage.ts)
  if (parent?.kind === 'resolved' && !isMemoryKey(parent.key)) o.parentFile = parent.key;
  if (parent?.kind === 'ambiguous') o.parentAmbiguous = true;
  if (s.seedLength !== undefined) o.seedLength = s.seedLength;
  if (s.cwd !== undefined) o.cwd = s.cwd;
  o.kind = s.kind;
  o.era = eraOf(s);
  // the harness's log format version (0-4), and the generation files of its folder when there are several
  o.format = h.version;
  if (ctx.older?.length) o.generations = { current: s.file, older: [...ctx.older] };
  if (h.origin !== undefined) o.origin = h.origin;
  if (h.delegationDepth !== undefined) o.delegationDepth = h.delegationDepth;
  if (h.agentPreset !== undefined) o.agentPreset = h.agentPreset;
  o.resumable = verdict.resumable;
  if (verdict.reason !== undefined) o.resumeReason = verdict.reason;
  o.upgrade = upgradeVerdict(s);
  o.createdAt = s.header.createdAt;
  o.events = f.events;
  o.turns = f.turns;
  o.state = stateOf(f);
  o.forkable = isForkable(f); // the TUI's verdict too (its STATE column says `seq gap` where state is at-boundary)
  if (f.lastEventType !== undefined) {
    o.lastEventType = f.lastEventType;
    o.lastEventTime = f.lastEventTime;
  }
  if (f.title !== undefined) o.title = f.title;
  o.diagnostics = s.diagnostics.length;
  o.usage = usageForListing(s);
  return o;
}

const STATE_COLOR: Record<string, Color> = { 'at-boundary': 'green', 'open-turn': 'yellow', empty: 'gray' };

/** The sessions as `list` orders them: the latest written first. */
export function byRecency(sessions: Session[]): Session[] {
  return sessions.sort((a, b) => (b.facts.lastEventTime ?? b.header.createdAt) - (a.facts.lastEventTime ?? a.header.createdAt));
}

export function cmdList(index: RootIndex, out: Out): number {
  const sessions = byRecency(index.store.list());
  const diagnostics = allDiagnostics(index);
  if (out.json) {
    const parents = resolveParents(sessions);
    const refusal = rootRefusals(index.files.keys());
    const summary = (s: Session) => sessionSummary(s, parents.get(s.file ?? ''), { sameId: index.store.getAll(s.id), rootRefusal: refusal(s), older: olderGenerations(index, s.file) });
    // whether rc.8's session list reads the root(s) at all, and if not the first file that stops it
    const [first] = listRefusalsOf(index.files.keys(), (f) => index.store.byFile(f), (id) => index.store.getAll(id));
    const harness = first ? { listable: false, reason: first[1].reason, file: first[1].file, root: first[0] } : { listable: true };
    writeJsonWithArray((t) => out.write(t), 'sessions', (function* () {
      for (const s of sessions) yield summary(s);
    })(), { diagnostics, harness });
    return 0;
  }
  const p = painter(out.color);
  const rows = [['STATE', 'ID', 'KIND', 'TURNS', 'EVENTS', 'AGE', 'TITLE'].map((h) => p('bold', h))];
  for (const s of sessions) {
    const st = s.state;
    const badge = st === 'open-turn' ? `open (${cell(s.facts.lastEventType, 30)})` : st; // the type comes from the file: sanitised
    rows.push([
      p(STATE_COLOR[st], badge + (s.diagnostics.length ? ` !${s.diagnostics.length}` : '')),
      cell(s.id, 40),
      s.kind === 'root' ? '' : `${kindLabel(s)}${s.seedLength !== undefined ? `@${s.seedLength}` : ''}`,
      String(s.facts.turns),
      String(s.facts.events),
      age(s.facts.lastEventTime ?? s.header.createdAt),
      cell(s.facts.title, 50),
    ]);
  }
  out.write(table(rows) + '\n');
  out.write(`${sessions.length} session(s), ${diagnostics.length} diagnostic(s)\n`);
  for (const d of diagnostics) out.write(p(d.severity === 'error' ? 'red' : 'yellow', `${sanitizeInline(d.file)}${d.line ? `:${d.line}` : ''}: ${d.code}: ${sanitizeInline(d.message)}`) + '\n');
  return 0;
}

/** Why `arg` names no session: a file of the root that was refused says so, with its diagnostics. */
function notFoundReason(index: RootIndex, arg: string, abs: (p: string) => string): string {
  const refused = index.files.get(abs(arg))?.refused;
  if (refused?.length) return ` (the file is not a loadable session: ${refused.map((d) => `${d.code}: ${d.message}`).join('; ')})`;
  return ` in ${index.root}`;
}

/**
 * `--session` accepts an id or a file path. Duplicate ids must be addressed by
 * file. An unknown session is the store's SESSION_NOT_FOUND (a fork reports it
 * as a typed refusal; other commands as a usage error).
 */
export function resolveSession(index: RootIndex, arg: string | undefined, abs: (p: string) => string): Session {
  if (!arg) throw new UsageError('missing --session ID (an id or a file path)');
  const byFile = index.store.byFile(abs(arg));
  if (byFile) return byFile;
  const all = index.store.getAll(arg);
  if (all.length === 1) return all[0];
  if (all.length > 1) throw new UsageError(`id ${JSON.stringify(arg)} names ${all.length} sessions; pass a file path instead: ${all.map((s) => s.file).join(', ')}`);
  throw new SessionForkError('SESSION_NOT_FOUND', `session ${JSON.stringify(arg)} not found${notFoundReason(index, arg, abs)}`);
}

/** The text tree's lines of `nodes` (at `depth`: a turn in pieces prints its children a few at a time). */
function treeLines(nodes: readonly TreeNode[], boundaries: ReadonlySet<number>, p: ReturnType<typeof painter>, seedLength?: number, at = 0): string[] {
  const out: string[] = [];
  const stack: Array<{ n: TreeNode; depth: number } | { boundary: number }> = nodes.map((n) => ({ n, depth: at })).reverse();
  while (stack.length) {
    const top = stack.pop()!;
    if ('boundary' in top) {
      out.push(p('green', `       ── fork here (seq ${top.boundary}) ──`));
      continue;
    }
    const { n, depth } = top;
    const pad = '  '.repeat(depth);
    const seq = p('gray', `#${n.seq}`.padStart(6));
    let line = '';
    switch (n.kind) {
      case 'turn':
        line = `${p('bold', `turn ${n.turn}`)} ${n.open ? p('yellow', 'open') : p(n.reason === 'completed' ? 'green' : 'red', cell(n.reason ?? '?', 30))}  ${cell(n.prompt, 60)}`;
        break;
      case 'step':
        line = `step ${n.step}${n.open ? ' (open)' : ''}`;
        break;
      case 'message':
        line = `${p('cyan', n.role)}: ${cell(n.text || (n.reasoning ? `(reasoning) ${n.reasoning}` : ''), 70)}`;
        break;
      case 'tool':
        line = `${p('magenta', 'tool')} ${cell(n.name, 30)} ${cell(n.arguments, 40)} -> ${n.result ? (n.result.isError ? p('red', 'error') : p('green', 'ok')) + ' ' + cell(n.result.text, 30) : p('yellow', 'pending')}`;
        break;
      case 'chunks':
        line = p('gray', `${n.count} chunk(s)`);
        break;
      case 'event':
        line = p('gray', `${cell(n.type, 30)} ${cell(n.summary, 50)}`);
        break;
    }
    if (seedLength !== undefined && n.seq === seedLength && depth === 0) out.push(p('gray', `—— own events (after seedLength ${seedLength}) ——`));
    out.push(`${seq} ${pad}${line}`);
    // the boundary line goes after the whole turn (its children are printed first), as in the TUI
    if (depth === 0 && boundaries.has(n.lastSeq)) stack.push({ boundary: n.lastSeq });
    if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) stack.push({ n: n.children[i], depth: depth + 1 });
  }
  return out;
}

/**
 * A session's tree, written a turn at a time from its log read in batches
 * (topNodes): a 10 GB session's tree is never held, only a piece of its turn being written.
 */
/** `sessions`: every session of the root, where a subagent call's child is looked for. */
export async function cmdTree(s: Session, out: Out, sessions: readonly Session[] = []): Promise<number> {
  await writeFromLog(out, s, batched(treeText(s, out, sessions)));
  return 0;
}

/** Each subagent call node under `n` (and `n`) gets `child`: the session it started, or why none (subagents.ts). */
function withChildren(n: TreeNode, links: () => ReadonlyMap<number, SubagentLink>): TreeNode {
  const stack: TreeNode[] = [n];
  while (stack.length) {
    const x = stack.pop()!;
    if (x.kind === 'tool' && SUBAGENT_TOOLS.has(x.name)) (x as TreeNode & { child?: unknown }).child = linkJson(links().get(x.seq)) ?? { missing: true };
    else if ('children' in x) stack.push(...x.children);
  }
  return n;
}

function* treeText(s: Session, out: Out, sessions: readonly Session[]): Generator<string> {
  const boundaries = s.facts.boundaries;
  // a turn of any size: one in pieces comes as its summary and its children as they are read (turn-pieces.ts)
  const tops = topNodes(() => s.eventBatches());
  if (out.json) {
    // the children subagent calls started: found by one more read of the log, made when the first call is met
    let found: ReadonlyMap<number, SubagentLink> | undefined;
    const links = () => {
      if (!found) {
        const scan = scanSubagents(s.eventBatches());
        found = subagentLinks(s, scan.calls, scan.catalog, sessions);
      }
      return found;
    };
    const mark = function* (nodes: Iterable<TreeNode>) {
      for (const n of nodes) yield withChildren(n, links);
    };
    // safeStringify: a turn's reasonData is raw event data and may be nested
    // deeper than JSON.stringify's recursion allows; same output otherwise.
    const nodes = (function* () {
      for (const top of tops) {
        if (!('turn' in top)) yield withChildren(top.node, links);
        else {
          // the node as replay builds it (its keys in that order), its children streamed in place
          const { turn: n, whole: w } = top;
          const node = { kind: 'turn', seq: n.seq, lastSeq: w.lastSeq, turn: n.turn, open: w.open, children: [], prompt: w.prompt, reason: w.reason, reasonData: w.reasonData };
          yield new StreamedJson(node, 'children', mark(top.children));
        }
      }
    })();
    const head = { id: s.id, file: s.file, ...(s.seedLength !== undefined ? { seedLength: s.seedLength } : {}), state: s.state, turns: [], boundaries };
    yield* jsonWithStreamedArray(head, 'turns', nodes, (v) => safeStringify(v, 2));
    yield '\n';
    return;
  }
  const p = painter(out.color);
  yield `${p('bold', cell(s.id, 80))}  ${cell(s.file, 100)}\n`;
  if (s.seedLength !== undefined) yield p('gray', `inherited from ${cell(s.parentSession)}, seedLength ${s.seedLength}`) + '\n';
  const marks = new Set(boundaries);
  let any = false;
  for (const top of tops) {
    if (!('turn' in top)) {
      const lines = treeLines([top.node], marks, p, s.seedLength);
      if (lines.length > 0) yield lines.join('\n') + '\n';
      any ||= lines.length > 0;
      continue;
    }
    // a turn in pieces: its line (from its summary), its children's, then its boundary
    const { turn: n, whole: w } = top;
    yield treeLines([{ ...n, lastSeq: w.lastSeq, open: w.open, reason: w.reason, prompt: w.prompt, children: [] }], new Set(), p, s.seedLength).join('\n') + '\n';
    any = true;
    for (const c of top.children) yield treeLines([c], marks, p, s.seedLength, 1).join('\n') + '\n';
    if (marks.has(w.lastSeq)) yield p('green', `       ── fork here (seq ${w.lastSeq}) ──`) + '\n';
  }
  if (!any) yield '\n';
  yield `state: ${s.state}; ${boundaries.length} boundar${boundaries.length === 1 ? 'y' : 'ies'}\n`;
}

/** The paste-ready command in full (printable by construction: never cut, a cut command is a wrong one), unless the log's cwd makes it absurdly long. */
function resumeLine(r: ResumeCommand): string {
  if (r.refusal) return `no command: ${r.refusal}`;
  if (r.shell.length <= 8192) return r.shell;
  return `${r.command} (in its cwd, ${r.cwd!.length} characters long: not printed; \`dsh-browse list --json\` has it)`;
}

export function cmdFork(index: RootIndex, source: () => Session, at: number | undefined, id: string | undefined, out: Out, err: Out): number {
  try {
    const src = source();
    const child = index.store.fork({ source: src, boundary: at, sessionId: id });
    const c = { id: child.id, file: child.file, parentSession: child.parentSession!, seedLength: child.seedLength!, ...(child.cwd !== undefined ? { cwd: child.cwd } : {}), era: eraOf(child), format: child.header.version };
    const resume = resumeCommand(child);
    if (out.json) out.write(JSON.stringify({ child: c, resume: resume.command }, null, 2) + '\n');
    else
      out.write(
        `forked ${cell(src.id)} at seedLength ${c.seedLength} -> ${cell(c.id)} (format v${c.format})\n  ${cell(c.file, 200)}\n` +
          `continue it in the harness: ${resumeLine(resume)}\n`,
      );
    return 0;
  } catch (e) {
    if (!isSessionForkError(e)) throw e;
    if (out.json) out.write(JSON.stringify({ error: e.toJSON() }, null, 2) + '\n');
    else err.write(`SessionForkError ${e.code}: ${sanitizeInline(e.message)}\n`);
    return 1;
  }
}

export function cmdLineage(index: RootIndex, out: Out): number {
  const layout = layoutLineage(lineageNodes(index.store.list()));
  if (out.json) {
    const sessions = index.store.list();
    const parents = resolveParents(sessions);
    const refusal = rootRefusals(index.files.keys());
    // written a node at a time (writeJsonWithArray), laid out as one JSON.stringify of the whole
    const nodes = (function* () {
      for (const s of sessions) yield sessionSummary(s, parents.get(s.file ?? ''), { sameId: index.store.getAll(s.id), rootRefusal: refusal(s), older: olderGenerations(index, s.file) });
    })();
    writeJsonWithArray((t) => out.write(t), 'nodes', nodes, { edges: layout.edges, orphans: layout.orphans, ambiguous: layout.ambiguous, cycles: layout.cycles });
    return 0;
  }
  out.write(renderLineageText(layout, { color: out.color, legend: true }) + '\n');
  return 0;
}

export function cmdAudit(index: RootIndex, out: Out): number {
  const fileDiags = [...index.files.values()].flatMap((f) => f.refused ?? []);
  const findings = auditSessions(index.store.list(), fileDiags);
  const errors = findings.filter((f) => f.severity === 'error').length;
  if (out.json) writeJsonWithArray((t) => out.write(t), 'findings', findings);
  else {
    const p = painter(out.color);
    for (const f of findings) out.write(findingLine(f, p) + '\n');
    out.write(`${findings.length} finding(s), ${errors} error(s)\n`);
  }
  return errors > 0 ? 1 : 0;
}

function findingLine(f: Finding, p: ReturnType<typeof painter>): string {
  const where = f.file ? `${sanitizeInline(f.file)}${f.line ? `:${f.line}` : ''}` : sanitizeInline(f.session ?? '');
  return `${p(f.severity === 'error' ? 'red' : 'yellow', f.severity.padEnd(7))} ${f.code.padEnd(22)} ${where}: ${sanitizeInline(f.message)}`;
}
