// Transcript -> JSON (any nesting depth; HTML- and terminal-safe escapes), a block at a time, then the changes.
import { jsonWithStreamedArray, StreamedJson } from '../cli/json-out.js';
import { safeStringify } from '../session/json-safe.js';
import { jsonSafe } from './escape.js';
import type { TranscriptStream, TurnBlock } from './transcript.js';
import { changesJson } from '../session/changes.js';
import { spanLength, timeTotals } from '../session/timeline.js';
import type { TurnTimes } from './turn-times.js';

/** Where a turn's time went (timeTotals, in ms) and how many spans it has: the numbers its HTML timeline draws. */
function timelineJson({ timeline: t, dropped }: TurnTimes): Record<string, unknown> {
  const x = timeTotals(t);
  let open = 0;
  let failed = 0;
  for (const s of t.spans) {
    if (s.end === undefined && s.start !== undefined) open++;
    if (s.failed) failed++;
  }
  const l = x.longest;
  return {
    wall: x.wall,
    model: x.model,
    tool: x.tool,
    gaps: x.gaps,
    toolCalls: x.toolCalls,
    spans: t.spans.length + dropped,
    openSpans: open,
    failedCalls: failed,
    skews: t.skewCount,
    untimed: t.untimed,
    ...(l ? { longest: { seq: l.seq, tool: l.label, ...(l.detail !== undefined ? { detail: l.detail } : {}), ms: spanLength(l, t.end), ...(l.end === undefined ? { open: true } : {}) } } : {}),
  };
}

/** The transcript as the JSON text of {format, version, ...head, blocks}, a piece a block. */
export function* jsonText(t: TranscriptStream): Generator<string> {
  // a turn's items are written as they come (a huge turn's as its pieces are read), then its timeline: whole once they are read
  const timeline = (b: TurnBlock) => (): Record<string, unknown> => {
    const times = t.turnTimes(b);
    return times ? { timeline: timelineJson(times) } : {};
  };
  const blocks = (function* () {
    for (const b of t.blocks) yield b.kind === 'turn' ? new StreamedJson(b, 'items', b.items, timeline(b)) : b;
  })();
  // the changes follow the blocks: they are whole once the blocks are read (the object's last piece ends it)
  let last: string | undefined;
  for (const piece of jsonWithStreamedArray({ format: 'dsh-transcript', version: 1, ...t.head }, 'blocks', blocks, (v) => safeStringify(v, 2))) {
    if (last !== undefined) yield jsonSafe(last);
    last = piece;
  }
  const changes = safeStringify(changesJson(t.changes()), 2).replace(/\n/g, '\n  ');
  yield jsonSafe(last!.replace(/\n\}$/, `,\n  "changes": ${changes}\n}`));
  yield '\n';
}
