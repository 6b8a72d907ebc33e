// Which session a `subagent` or `subagent_fork` call started. Pure but for
// reading a child's first own events through its Session (as compare.ts
// reads logs); never a guess: a call links to a child only when the log
// names it, and says `missing` or `ambiguous` otherwise.
//
// What names a child (docs/formats.md, "Which child a subagent call started"):
//   - the call's result: "started subagent <id>" (a child run in the background);
//   - the parent's subagent/catalog event {childId, label}, label being the
//     call's description (v3 on);
//   - the child's own subagent/descriptor {provider, label}: label is the
//     call's description, provider "spawn" (subagent) or "fork" (subagent_fork);
//   - the child's first own prompt: the call's prompt.
// The candidates are the parent's children (parentSession, resolved as the
// lineage resolves it) of the call's kind: a spawn for `subagent`, a fork
// child for `subagent_fork`.
import { argumentsObject } from './call-effect.js';
import { SUBAGENT_TOOLS, treeSubagents, type SubagentCall } from './subagent-calls.js';
import { indexSessions, parentOf, type SessionIndex } from './compare.js';
import { contentText, isHumanPrompt, messageOf, type SessionEvent } from './events.js';
import { stateOf, type SessionState } from './log-facts.js';
import { callIdOf, toolResultText, type TreeNode } from './replay.js';
import type { Session } from './session.js';
import { addUsage, emptyUsage, withSplit, type TokenUsage } from './usage.js';

export { SUBAGENT_TOOLS, type SubagentCall } from './subagent-calls.js';

/** What a child says of the call that started it (its first own events). */
export interface ChildFacts {
  session: Session;
  /** its own subagent/descriptor */
  label?: string;
  provider?: string;
  /** its first own prompt */
  prompt?: string;
  /** its first own event's time: when it started (its header's createdAt may be a copy's) */
  start?: number;
  /** turns its seed started (a fork child's: its parent's) */
  seedTurns: number;
}

export type SubagentLink =
  | { kind: 'linked'; child: Session; by: string; start?: number; seedTurns: number }
  | { kind: 'missing' }
  | { kind: 'ambiguous'; children: Session[] };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The subagent calls of a turn tree, in order. */
export const subagentCalls = (tree: readonly TreeNode[]): SubagentCall[] => treeSubagents(tree).calls;

/** The subagent calls and the catalog of a log read in batches (the headless commands, which stream the tree). */
export function scanSubagents(batches: Iterable<readonly SessionEvent[]>): { calls: SubagentCall[]; catalog: Array<{ childId: string; label?: string }> } {
  const calls: SubagentCall[] = [];
  const byId = new Map<string, SubagentCall>();
  const catalog: SessionEvent[] = [];
  let turnSeq = -1;
  for (const batch of batches)
    for (const e of batch) {
      if (e.type === 'turn/start') turnSeq = e.seq;
      else if (e.type === 'tool/call' && SUBAGENT_TOOLS.has(e.data?.name)) {
        const a = argumentsObject(e.data.arguments) ?? {};
        const c: SubagentCall = { seq: e.seq, turnSeq, name: e.data.name, description: str(a.description), prompt: str(a.prompt) };
        calls.push(c);
        byId.set(callIdOf(e), c);
      } else if (e.type === 'tool/result') {
        const c = byId.get(callIdOf(e));
        if (c && c.result === undefined) c.result = toolResultText(e).text;
      } else if (e.type === 'subagent/catalog') catalog.push(e);
    }
  return { calls, catalog: catalogEntries(catalog) };
}

/**
 * The calls of `parent` linked to the children they started, among
 * `sessions` (its children there, as the lineage resolves a parent).
 * `facts` reads a child's first own events (the browser keeps them).
 */
export function subagentLinks(
  parent: Session,
  calls: readonly SubagentCall[],
  catalog: ReadonlyArray<{ childId: string; label?: string }>,
  sessions: readonly Session[] | SessionIndex,
  facts: (child: Session) => ChildFacts = childFacts,
): Map<number, SubagentLink> {
  if (calls.length === 0) return new Map();
  const index = Array.isArray(sessions) ? indexSessions(sessions) : (sessions as SessionIndex);
  const children: ChildFacts[] = [];
  for (const c of index.byKey.values()) if (c.parentSession === parent.id && parentOf(c, index) === parent) children.push(facts(c));
  return linkSubagents(calls, children, catalog);
}

/** The JSON of a call's child (tree --json): which session, or why none. */
export function linkJson(link: SubagentLink | undefined): { id: string; file?: string; by: string } | { missing: true } | { ambiguous: Array<{ id: string; file?: string }> } | undefined {
  if (!link) return undefined;
  if (link.kind === 'missing') return { missing: true };
  if (link.kind === 'ambiguous') return { ambiguous: link.children.map((c) => ({ id: c.id, file: c.file })) };
  return { id: link.child.id, file: link.child.file, by: link.by };
}

/** Most of a child's own events read to find its descriptor and first prompt. */
const CHILD_READ_MAX = 5000;

/** A child's descriptor and first own prompt, read from its log (its first own turn: the harness writes the descriptor around the prompt). */
export function childFacts(s: Session): ChildFacts {
  const out: ChildFacts = { session: s, seedTurns: 0 };
  const from = s.kind === 'fork' ? (s.seedLength ?? 0) : 0;
  let read = 0;
  for (const batch of s.eventBatches()) {
    for (const e of batch) {
      if (e.seq < from) {
        if (e.type === 'turn/start') out.seedTurns++;
        continue;
      }
      if (++read > CHILD_READ_MAX) return out;
      if (out.start === undefined && typeof e.time === 'number') out.start = e.time;
      if (e.type === 'subagent/descriptor' && out.label === undefined && typeof e.data === 'object' && e.data !== null) {
        out.label = str(e.data.label);
        out.provider = str(e.data.provider);
      } else if (e.type === 'user/message' && out.prompt === undefined && isHumanPrompt(e)) out.prompt = contentText(messageOf(e).content).trim();
      if ((out.label !== undefined && out.prompt !== undefined) || (e.type === 'turn/end' && out.prompt !== undefined)) return out;
    }
  }
  return out;
}

/** The parent's subagent/catalog entries: which child a label (a call's description) started. */
export function catalogEntries(events: Iterable<SessionEvent>): Array<{ childId: string; label?: string }> {
  const out: Array<{ childId: string; label?: string }> = [];
  for (const e of events) if (e.type === 'subagent/catalog' && typeof e.data?.childId === 'string') out.push({ childId: e.data.childId, label: str(e.data.label) });
  return out;
}

const KIND_OF: Record<string, Session['kind']> = { subagent: 'spawn', subagent_fork: 'fork' };
const PROVIDER_OF: Record<string, string> = { subagent: 'spawn', subagent_fork: 'fork' };

/**
 * Links each call to the child it started: the children each piece of
 * evidence names, kept only where it names exactly one, and a child claimed
 * by two calls is neither's.
 */
export function linkSubagents(calls: readonly SubagentCall[], children: readonly ChildFacts[], catalog: ReadonlyArray<{ childId: string; label?: string }>): Map<number, SubagentLink> {
  const found = new Map<number, { children: Session[]; by: string }>();
  const factsOf = new Map(children.map((f) => [f.session, f]));
  for (const c of calls) {
    const evidence: Array<[string, (f: ChildFacts) => boolean]> = [];
    const named = c.result !== undefined ? /\bstarted subagent (\S+)/.exec(c.result)?.[1] : undefined;
    if (named) evidence.push(['named in its result', (f) => f.session.id === named]);
    const listed = catalog.filter((x) => c.description !== undefined && x.label === c.description).map((x) => x.childId);
    if (listed.length > 0) evidence.push(["named in the parent's catalog", (f) => listed.includes(f.session.id)]);
    const ofKind = (f: ChildFacts) => f.session.kind === KIND_OF[c.name];
    if (c.description !== undefined)
      evidence.push(["its descriptor's label", (f) => ofKind(f) && f.label === c.description && (f.provider === undefined || f.provider === PROVIDER_OF[c.name])]);
    const prompt = c.prompt?.trim();
    if (prompt) evidence.push(['its first prompt', (f) => ofKind(f) && f.prompt === prompt]);
    // a name the log gives is the only evidence: a named child that is gone is missing, never another
    const explicit = named !== undefined || listed.length > 0;
    let got: { children: Session[]; by: string } = { children: [], by: '' };
    for (const [by, holds] of explicit ? evidence.slice(0, 1) : evidence) {
      const hit = children.filter(holds).map((f) => f.session);
      if (hit.length > 0) {
        got = { children: hit, by };
        break;
      }
    }
    found.set(c.seq, got);
  }
  const claims = new Map<Session, number>();
  for (const g of found.values()) if (g.children.length === 1) claims.set(g.children[0], (claims.get(g.children[0]) ?? 0) + 1);
  const out = new Map<number, SubagentLink>();
  for (const [seq, g] of found) {
    if (g.children.length === 0) out.set(seq, { kind: 'missing' });
    else if (g.children.length > 1 || claims.get(g.children[0])! > 1) out.set(seq, { kind: 'ambiguous', children: g.children });
    else {
      const f = factsOf.get(g.children[0]);
      out.set(seq, { kind: 'linked', child: g.children[0], by: g.by, start: f?.start, seedTurns: f?.seedTurns ?? 0 });
    }
  }
  return out;
}

/** What a call row says of its child: its state, own turns, own tokens and how long it ran. */
export interface ChildSummary {
  state: SessionState;
  turns: number;
  usage: TokenUsage;
  ms: number;
}

/** A child's own usage: a fork child's inherited part is its parent's, already counted there. */
export function ownUsage(s: Session): TokenUsage {
  const u = s.facts.usage;
  if (!u) return emptyUsage();
  return s.kind === 'fork' ? (withSplit(u, s.seedLength).own ?? emptyUsage()) : u;
}

/** The child a call started, as its row tells it: its state, own turns, own tokens, and the time from its first own event to its last. */
export function childSummary(link: Extract<SubagentLink, { kind: 'linked' }>): ChildSummary {
  const s = link.child;
  const f = s.facts;
  const start = link.start ?? s.header.createdAt;
  const last = f.lastEventTime ?? start;
  return { state: stateOf(f), turns: Math.max(0, f.turns - link.seedTurns), usage: ownUsage(s), ms: Math.max(0, last - start) };
}

/**
 * The usage of the children a session's calls started, theirs included
 * (depth first; a session met twice counts once): what "incl. subagents" adds.
 */
export function subagentUsage(children: readonly Session[], linksOf: (s: Session) => readonly Session[], seen = new Set<Session>()): TokenUsage {
  let total = emptyUsage();
  for (const c of children) {
    if (seen.has(c)) continue;
    seen.add(c);
    total = addUsage(total, addUsage(ownUsage(c), subagentUsage(linksOf(c), linksOf, seen)));
  }
  return total;
}
