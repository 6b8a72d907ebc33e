// The detail pane of the Turns view: the full text behind the selected row
// (message text and reasoning, tool arguments pretty-printed and the result,
// an event's data), as safe lines cut to the pane. Pure.
import type { SessionEvent } from '../../session/events.js';
import { safeStringify } from '../../session/json-safe.js';
import { historyEntryOf } from '../../session/replay.js';
import type { TurnRow } from './turn-rows.js';
import { clip } from './turn-row-text.js';
import { sanitizeBlock, truncate } from '../text/sanitize.js';

/** Raw text beyond this many characters is not even split into lines. */
const TEXT_CAP = 64 * 1024;

export interface DetailLine {
  text: string;
  /** a heading line (dim, bold) rather than file content */
  heading?: boolean;
  color?: 'green' | 'red' | 'yellow';
}

function block(s: string): DetailLine[] {
  const cut = s.length > TEXT_CAP ? s.slice(0, TEXT_CAP) : s;
  return sanitizeBlock(cut).map((text) => ({ text }));
}

function prettyJson(s: string): string {
  try {
    return safeStringify(JSON.parse(s), 2);
  } catch {
    return s;
  }
}

const json = (v: unknown): string => safeStringify(v, 2);

/** The event with a seq (the session's events in memory, or read through its offset index). */
export type EventAt = (seq: number) => SessionEvent | undefined;

function chunkText(eventAt: EventAt, from: number, to: number): string {
  let out = '';
  for (let seq = from; seq <= to && out.length < TEXT_CAP; seq++) {
    const c = eventAt(seq)?.data?.chunk;
    if (typeof c?.text === 'string') out += c.text;
    else if (typeof c?.argumentsDelta === 'string') out += c.argumentsDelta;
  }
  return out;
}

/** Every line the pane could show for `row` (the caller cuts to its height and width). */
export function detailLines(row: TurnRow | undefined, eventAt: EventAt): DetailLine[] {
  if (!row) return [{ text: 'nothing selected', heading: true }];
  const h = (text: string, color?: DetailLine['color']): DetailLine => ({ text, heading: true, color });
  if (row.entry) {
    const ev = row.entry.clipped ? eventAt(row.entry.seq) : undefined;
    const e = (ev && historyEntryOf(ev)) ?? row.entry;
    const out = [h(`${clip(e.role, 20)} · seq ${e.seq}`), ...block(e.text)];
    for (const c of e.toolCalls ?? []) out.push(h('tool call'), ...block(c));
    return out;
  }
  if (row.kind === 'boundary') return [h(`fork here: a child inherits seqs 0–${row.seq} (seedLength ${row.seq + 1})`, 'green')];
  if (row.kind === 'inherited-divider') {
    const seed = `seqs 0–${row.lastSeq} are the parent's events, copied verbatim (t: the model history at the seed's end)`;
    return row.key === 'd-inherited' ? [h(row.text.replace(/─/g, '').trim()), h(seed)] : [h(`events from seq ${row.seq} on are this session's own`), h(seed)];
  }
  const n = row.node;
  if (!n) return [];
  switch (n.kind) {
    case 'turn': {
      const out = [h(`turn ${n.turn} · ${n.open ? 'open' : clip(n.reason ?? '?', 40)} · seqs ${n.seq}–${n.lastSeq}`)];
      const r = n.reasonData;
      if (r !== null && typeof r === 'object' && Object.keys(r).some((k) => k !== 'kind')) out.push(h('reason'), ...block(json(r)));
      if (n.prompt !== undefined) out.push(h('prompt'), ...block(n.prompt));
      return out;
    }
    case 'step':
      return [h(`turn ${clip(n.turn, 12)} · step ${clip(n.step, 12)}${n.open ? ' · open' : ''} · seqs ${n.seq}–${n.lastSeq}`)];
    case 'message': {
      const out = [h(`${n.role} message (${clip(n.type, 40)}) · seq ${n.seq}`), ...(n.text ? block(n.text) : [h('(no text)')])];
      if (n.reasoning) out.push(h('reasoning'), ...block(n.reasoning));
      return out;
    }
    case 'tool': {
      const out = [h(`tool ${clip(n.name, 60)} · call ${clip(n.callId, 60)} · seq ${n.seq}`), h('arguments'), ...block(prettyJson(n.arguments))];
      if (!n.result) out.push(h('no result yet (running)', 'yellow'));
      else out.push(h(`result · ${n.result.isError ? 'error' : 'ok'} · seq ${n.result.seq}`, n.result.isError ? 'red' : 'green'), ...block(n.result.text));
      return out;
    }
    case 'chunks':
      return [h(`${n.count} streaming chunks · seqs ${n.seq}–${n.lastSeq}`), ...block(chunkText(eventAt, n.seq, n.lastSeq))];
    case 'event':
      return [h(`${clip(n.type, 60)} · seq ${n.seq}`), ...block(json(eventAt(n.seq)?.data))];
  }
}

/** At most `n` code units, never ending in half a surrogate pair (width measuring of a 64 KB line is slow). */
function head(s: string, n: number): string {
  if (s.length <= n) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

/** The pane's lines: at most `height`, each at most `width` columns; a last line says what was cut. */
export function fitDetail(lines: readonly DetailLine[], width: number, height: number): DetailLine[] {
  if (height <= 0) return [];
  const cut = lines.length > height;
  const shown = lines.slice(0, cut ? height - 1 : height).map((l) => ({ ...l, text: truncate(head(l.text, width * 4 + 8), width) }));
  if (cut) shown.push({ text: truncate(`… ${lines.length - shown.length} more lines`, width), heading: true });
  return shown;
}
