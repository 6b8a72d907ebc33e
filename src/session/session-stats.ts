// Where a session's time and tokens went, for `stats`: its turns, model, tool
// and gap time, its slowest tools, its tokens and its failed calls. Pure: a
// fold over the events read once in batches, so a log of any size is never
// held. The times are the timeline's (timeline.ts owns them): each turn is
// folded into its timeline, its totals and tool spans added here, and the
// timeline dropped.
//
// A fork child's figures are also split into what its seed inherited and
// what it did itself: an event before the seed's end is inherited (a turn or
// a call by the event it began at), as the usage model splits tokens.
import type { SessionEvent } from './events.js';
import { toolResultText } from './replay.js';
import type { Session } from './session.js';
import { spanLength, timeTotals, TimelineFold, type TurnTimeline } from './timeline.js';
import { emptyUsage, foldSessionUsage, spentTokens, withSplit, type SessionUsage, type TokenUsage } from './usage.js';
import { ownFrom } from './changes.js';

/** Time summed over the turns, in ms (timeTotals' figures). */
export interface TimeStats {
  wall: number;
  model: number;
  tool: number;
  gaps: number;
  /** every call's own time, summed (past `tool` where calls ran in parallel) */
  toolCalls: number;
}

export interface ToolStats {
  name: string;
  calls: number;
  /** calls whose result is an error */
  failed: number;
  /** the calls' times, summed (ms) */
  ms: number;
  /** the longest call (ms) and its tool/call's seq */
  longest: number;
  longestSeq: number;
  /** in a total: the session of the longest call */
  session?: string;
  file?: string;
  /** the calls of the names past TOOL_NAMES_KEPT, together */
  other?: true;
}

export interface TokenStats {
  input: number;
  output: number;
  cacheRead: number;
  /** in + out: the app's tokens (spentTokens) */
  spent: number;
  /** assistant messages with a usage record */
  messages: number;
}

/** A session's figures, or its seed's or its own part of them. */
export interface StatsPart {
  turns: number;
  time: TimeStats;
  /** tool/call events */
  calls: number;
  /** tool/result events whose error flag is set */
  failed: number;
  tokens: TokenStats;
  /** by longest call, longest first */
  tools: ToolStats[];
}

export interface SessionStats extends StatsPart {
  /** a fork child's: events before its seed's end, and its own after */
  inherited?: StatsPart;
  own?: StatsPart;
  /** spans the timeline counted but did not keep (a turn of more than SPANS_KEPT): their time is not in these figures */
  notTimed?: number;
  /** turns where the log's time goes back (timeline.ts: a span that would end before it starts has no length) */
  clockBack?: number;
}

/** Different tool names kept apart: a log naming more (a hostile one) has the rest counted together. */
export const TOOL_NAMES_KEPT = 1000;
/** A tool name longer than this is cut (its key and its text). */
const NAME_MAX = 200;
const OTHER = '(other tools)';

const emptyTime = (): TimeStats => ({ wall: 0, model: 0, tool: 0, gaps: 0, toolCalls: 0 });

/** A part being folded: its tools by name. */
class PartFold {
  turns = 0;
  calls = 0;
  failed = 0;
  readonly time = emptyTime();
  private readonly tools = new Map<string, ToolStats>();
  /** the names past TOOL_NAMES_KEPT */
  private other?: ToolStats;

  addTime(t: TimeStats): void {
    this.time.wall += t.wall;
    this.time.model += t.model;
    this.time.tool += t.tool;
    this.time.gaps += t.gaps;
    this.time.toolCalls += t.toolCalls;
  }

  /** `x`'s calls under its name: one call, or another part's tool (in a total, `where` it was). */
  addTool(x: ToolStats, where?: { session: string; file?: string }): void {
    const name = x.name.length > NAME_MAX ? x.name.slice(0, NAME_MAX) : x.name;
    let t = x.other ? this.other : this.tools.get(name);
    if (!t) {
      t = { name, calls: 0, failed: 0, ms: 0, longest: -1, longestSeq: 0 };
      if (x.other || this.tools.size >= TOOL_NAMES_KEPT) t = this.other ??= { ...t, name: OTHER, other: true };
      else this.tools.set(name, t);
    }
    t.calls += x.calls;
    t.failed += x.failed;
    t.ms += x.ms;
    if (x.longest > t.longest) {
      t.longest = x.longest;
      t.longestSeq = x.longestSeq;
      if (where) {
        t.session = where.session;
        if (where.file !== undefined) t.file = where.file;
        else delete t.file;
      }
    }
  }

  add(p: StatsPart, where: { session: string; file?: string }): void {
    this.turns += p.turns;
    this.calls += p.calls;
    this.failed += p.failed;
    this.addTime(p.time);
    for (const t of p.tools) this.addTool(t, where);
  }

  result(tokens: TokenStats): StatsPart {
    const tools = [...this.tools.values(), ...(this.other ? [this.other] : [])].sort((a, b) => b.longest - a.longest || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { turns: this.turns, time: { ...this.time }, calls: this.calls, failed: this.failed, tokens, tools };
  }
}

function tokenStats(u: TokenUsage | undefined): TokenStats {
  const x = u ?? emptyUsage();
  return { input: x.input, output: x.output, cacheRead: x.cacheRead ?? 0, spent: spentTokens(x), messages: x.messages };
}

/** Folds one session's events, in log order, into its stats. `seedFrom`: a fork child's seed length (ownFrom). */
export class SessionStatsFold {
  private readonly whole = new PartFold();
  private readonly inherited?: PartFold;
  private readonly own?: PartFold;
  private readonly usage: SessionUsage = emptyUsage();
  /** the turn being read (none between a turn/end and the next turn/start) */
  private turn?: TimelineFold;
  private notTimed = 0;
  private clockBack = 0;

  constructor(private readonly seedFrom?: number) {
    if (seedFrom !== undefined) {
      this.inherited = new PartFold();
      this.own = new PartFold();
    }
  }

  add(e: SessionEvent): void {
    foldSessionUsage(this.usage, e, this.seedFrom);
    switch (e.type) {
      case 'turn/start':
        // a turn with no turn/end ends where the next one starts
        this.endTurn();
        this.turn = new TimelineFold(typeof e.data?.turn === 'number' ? e.data.turn : 0, e.seq);
        for (const p of this.parts(e.seq)) p.turns++;
        break;
      case 'tool/call':
        for (const p of this.parts(e.seq)) p.calls++;
        break;
      case 'tool/result':
        if (toolResultText(e).isError) for (const p of this.parts(e.seq)) p.failed++;
        break;
    }
    if (!this.turn) return;
    this.turn.add(e);
    // what follows a turn/end before the next turn/start is in no turn (as in the turn tree)
    if (e.type === 'turn/end') this.endTurn();
  }

  /** The stats so far (a turn still open is counted as it stands). */
  result(): SessionStats {
    this.endTurn();
    const u = withSplit(this.usage, this.seedFrom);
    const out: SessionStats = this.whole.result(tokenStats(u));
    if (this.inherited && this.own) {
      out.inherited = this.inherited.result(tokenStats(u.inherited));
      out.own = this.own.result(tokenStats(u.own));
    }
    if (this.notTimed > 0) out.notTimed = this.notTimed;
    if (this.clockBack > 0) out.clockBack = this.clockBack;
    return out;
  }

  /** The parts an event at `seq` counts in: the whole, and for a fork child its seed or its own. */
  private parts(seq: number): PartFold[] {
    if (this.seedFrom === undefined) return [this.whole];
    return [this.whole, seq < this.seedFrom ? this.inherited! : this.own!];
  }

  /** Adds the turn's totals and tool calls, and lets its timeline go. */
  private endTurn(): void {
    if (!this.turn) return;
    const t: TurnTimeline = this.turn.result();
    this.notTimed += this.turn.dropped;
    if (t.skewCount > 0) this.clockBack++;
    this.turn = undefined;
    const totals = timeTotals(t);
    for (const p of this.parts(t.seq)) p.addTime(totals);
    for (const s of t.spans) {
      if (s.kind !== 'tool') continue;
      const ms = spanLength(s, t.end);
      const call: ToolStats = { name: s.label, calls: 1, failed: s.failed ? 1 : 0, ms, longest: ms, longestSeq: s.seq };
      for (const p of this.parts(s.seq)) p.addTool(call);
    }
  }
}

/** The stats of a log read in batches (Session.eventBatches). */
export function statsOf(batches: Iterable<readonly SessionEvent[]>, seedFrom?: number): SessionStats {
  const fold = new SessionStatsFold(seedFrom);
  for (const batch of batches) for (const e of batch) fold.add(e);
  return fold.result();
}

/** A session's stats: its log read once, a fork child's seed set apart. */
export function sessionStats(s: Session): SessionStats {
  return statsOf(s.eventBatches(), ownFrom(s, undefined));
}

/** The sessions' stats summed, each event once: a fork child adds its own part only (its seed is its parent's). */
export class StatsTotal {
  sessions = 0;
  private readonly part = new PartFold();
  private readonly tokens = tokenStats(undefined);

  add(s: SessionStats, where: { session: string; file?: string }): void {
    const p = s.own ?? s;
    this.sessions++;
    this.part.add(p, where);
    this.tokens.input += p.tokens.input;
    this.tokens.output += p.tokens.output;
    this.tokens.cacheRead += p.tokens.cacheRead;
    this.tokens.spent += p.tokens.spent;
    this.tokens.messages += p.tokens.messages;
  }

  result(): StatsPart & { sessions: number } {
    return { sessions: this.sessions, ...this.part.result({ ...this.tokens }) };
  }
}

/** One session's entry in `stats --json` (keys in this order; seedLength only for a fork child). */
export function statsJson(s: { id: string; file?: string; kind: string; seedLength?: number }, st: SessionStats) {
  return { id: s.id, file: s.file ?? null, kind: s.kind, ...(s.seedLength !== undefined ? { seedLength: s.seedLength } : {}), ...st };
}
