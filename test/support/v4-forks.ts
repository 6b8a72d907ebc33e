// v4 logs the harness's own code writes and no public corpus holds, built by
// the rules of its v3-to-v4 README (zsagi1368/deepseek-harness-zDSH @a18d8a99,
// packages/session/session-format-v3-to-v4/README.md, "Fork-generated
// results"): a fork child cut inside a turn, whose own first events close it,
// and a crash-repaired log.
type Row = Record<string, any>;

const rowsOf = (text: string): { header: Row; rows: Row[] } => {
  const lines = text.trimEnd().split('\n');
  return { header: JSON.parse(lines[0]), rows: lines.slice(1).map((l) => JSON.parse(l)) };
};
const textOf = (header: Row, rows: Row[]): string => [header, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n';

/** The open turn and step at the end of `prefix`, its calls started without a result, and those advertised and never started. */
function openState(prefix: Row[]): { turn: number; step: number; started: string[]; advertised: string[] } {
  let turn = 0;
  let step = 0;
  let started: string[] = [];
  let advertised: string[] = [];
  for (const e of prefix) {
    if (e.type === 'turn/start') [turn, started, advertised] = [e.data.turn, [], []];
    if (e.type === 'step/start') [step, advertised] = [e.data.step, []];
    if (e.type === 'assistant/message') for (const b of e.data.message.content ?? []) if (b.type === 'tool-call') advertised.push(b.id);
    if (e.type === 'tool/call') {
      started.push(e.data.callId);
      advertised = advertised.filter((id) => id !== e.data.callId);
    }
    if (e.type === 'tool/result') {
      const id = e.data.message?.source?.callId ?? e.data.callId;
      started = started.filter((x) => x !== id);
      advertised = advertised.filter((x) => x !== id);
    }
  }
  return { turn, step, started, advertised };
}

/** A synthetic v4 error result for `callId` at `seq`. */
function syntheticResult(turn: number, step: number, callId: string, seq: number, time: number, kind: 'not-started' | 'unknown', id: string, text: string): Row {
  const error = kind === 'unknown' ? { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN', message: text } : { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED', message: text };
  return {
    type: 'tool/result',
    seq,
    time,
    data: { turn, step, message: { id, role: 'tool', source: { kind: 'tool', callId }, toolCallId: callId, content: [{ type: 'text', text }], isError: true }, error },
    surfaceOp: 'append',
  };
}

/**
 * The child the harness's own fork writes from `parentText` (a v4 log) cut
 * after its first `n` events, inside a turn: the prefix verbatim, the tagged
 * end-seed, a TOOL_OUTCOME_UNKNOWN result per started call, a
 * `forked-tool-result-<callId>-<seq>` TOOL_NOT_STARTED result per advertised
 * one, step/end, then turn/end "forked" (`reason` overrides it, for a child
 * that does not close the turn that way).
 */
export function harnessForkChild(parentText: string, n: number, id: string, reason = 'forked'): string {
  const { header, rows } = rowsOf(parentText);
  const prefix = rows.slice(0, n);
  const { turn, step, started, advertised } = openState(prefix);
  let time = prefix.at(-1)!.time;
  const own: Row[] = [{ type: 'session/end-seed', seq: n, time, data: { inherited: true } }];
  for (const callId of started) own.push(syntheticResult(turn, step, callId, n + own.length, ++time, 'unknown', `fork-outcome-${callId}`, 'The session was forked while this tool call ran: its outcome is unknown.'));
  for (const callId of advertised) {
    const seq = n + own.length;
    own.push(syntheticResult(turn, step, callId, seq, ++time, 'not-started', `forked-tool-result-${callId}-${seq}`, 'The session was forked before this tool call started.'));
  }
  own.push({ type: 'step/end', seq: n + own.length, time: ++time, data: { turn, step } });
  own.push({ type: 'turn/end', seq: n + own.length, time: ++time, data: { turn, reason: { kind: reason } } });
  const child = { type: 'session', version: 4, id, createdAt: time, cwd: header.cwd, parentSession: header.id, isSeeded: true, delegationDepth: 0 };
  return textOf(child, [...prefix, ...own]);
}

/**
 * `text` (a v4 log) cut after its first `n` events inside a turn and repaired
 * as the harness repairs a crash: an `interrupted-tool-result-<callId>-<seq>`
 * TOOL_NOT_STARTED result with its fixed text per advertised call, step/end,
 * then turn/end "interrupted".
 */
export function crashRepaired(text: string, n: number): string {
  const { header, rows } = rowsOf(text);
  const prefix = rows.slice(0, n);
  const { turn, step, advertised } = openState(prefix);
  let time = prefix.at(-1)!.time;
  const own: Row[] = [];
  for (const callId of advertised) {
    const seq = n + own.length;
    own.push(syntheticResult(turn, step, callId, seq, ++time, 'not-started', `interrupted-tool-result-${callId}-${seq}`, 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.'));
  }
  own.push({ type: 'step/end', seq: n + own.length, time: ++time, data: { turn, step } });
  own.push({ type: 'turn/end', seq: n + own.length, time: ++time, data: { turn, reason: { kind: 'interrupted' } } });
  return textOf(header, [...prefix, ...own]);
}

/** The seq just after the first assistant/message of `text` that advertises a tool call, and just after that call's tool/call. */
export function toolCallCuts(text: string): { advertised: number; started: number } {
  const { rows } = rowsOf(text);
  const a = rows.findIndex((e) => e.type === 'assistant/message' && (e.data.message.content ?? []).some((b: Row) => b.type === 'tool-call'));
  const c = rows.findIndex((e, i) => i > a && e.type === 'tool/call');
  return { advertised: a + 1, started: c + 1 };
}
