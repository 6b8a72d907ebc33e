// One-line labels for turn-tree rows: coloured segments, every file-derived
// string sanitised and capped. Pure; no Ink.
import { ageText as age } from '../text/age.js';
import { textOf } from '../../session/json-safe.js';
import type { TreeNode } from '../../session/replay.js';
import { childSummary, type SubagentLink } from '../../session/subagents.js';
import { usageText } from '../../session/usage.js';
import { durationText } from '../text/duration.js';
import { displayWidth, ELLIPSIS, sanitizeInline, truncate } from '../text/sanitize.js';

/** Colour hints (Ink colour names). `undefined` = the terminal's default colour. */
export type RowColor = 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'blue' | 'gray' | undefined;

export interface Segment {
  text: string;
  color?: RowColor;
  bold?: boolean;
  dim?: boolean;
}

/** Longest label kept in a row model (the view cuts again to its width). */
export const LABEL_CAP = 240;

/** A file-derived string made safe for one row and cut to `cap` columns. */
export function clip(s: unknown, cap = LABEL_CAP): string {
  let raw = typeof s === 'string' ? s : s === undefined ? '' : textOf(s);
  // Sanitising a 100 KB tool output to show 200 columns is waste: cut first.
  if (raw.length > cap * 2) {
    raw = raw.slice(0, cap * 2);
    const last = raw.charCodeAt(raw.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) raw = raw.slice(0, -1);
  }
  return truncate(sanitizeInline(raw), cap);
}

/** The first non-empty line of a text, made safe. */
export function firstLine(s: string | undefined, cap = LABEL_CAP): string {
  const t = (s ?? '').trim();
  const i = t.indexOf('\n');
  return clip(i < 0 ? t : t.slice(0, i).trimEnd(), cap);
}

const REASON_COLORS: Record<string, RowColor> = {
  completed: 'green',
  aborted: 'yellow',
  interrupted: 'yellow',
  error: 'red',
  rejected: 'red',
  blocked: 'red',
  'max-tokens': 'magenta',
  disposed: 'cyan',
};

/** Colour of a `turn/end` reason; unknown reasons get the neutral (default) colour. */
export function reasonColor(reason: string | undefined): RowColor {
  return reason === undefined ? undefined : REASON_COLORS[reason];
}

/** `12s`, `4m`, `3h`, `2d` since `time`. */
export const ageText = (time: number | undefined, now: number): string => age(time, now, '?');

type Node<K extends TreeNode['kind']> = Extract<TreeNode, { kind: K }>;

/** `usage`: the turn's tokens as short text (`in 1.2k out 345`), '' when the log records none; `subagents`: its tokens with the children's its calls started. */
export function turnSegments(n: Node<'turn'>, lastTime: number | undefined, now: number, usage = '', subagents = ''): Segment[] {
  const badge: Segment = n.open
    ? { text: `open · last event ${ageText(lastTime, now)} ago`, color: 'yellow', bold: true }
    : { text: clip(n.reason ?? '?', 40), color: reasonColor(n.reason), bold: true };
  const prompt = n.prompt === undefined ? { text: '(no prompt)', dim: true } : { text: firstLine(n.prompt) };
  const tokens: Segment[] = usage ? [{ text: `  ${usage}`, color: 'blue', dim: true }] : [];
  if (subagents) tokens.push({ text: `  incl. subagents ${subagents}`, color: 'magenta', dim: true });
  return [{ text: `turn ${n.turn}  `, bold: true }, badge, ...tokens, { text: '  ' }, prompt];
}

/** What a subagent call row says of its child: which, and how it is (state, turns, own tokens, time), or why none is linked. */
export function subagentText(link: SubagentLink | undefined): string {
  if (!link) return '';
  if (link.kind === 'missing') return 'child not found in this root';
  if (link.kind === 'ambiguous') return `child ambiguous: ${link.children.length} sessions could be it (${link.children.map((c) => c.id).join(', ')})`;
  const c = childSummary(link);
  const usage = usageText(c.usage);
  return `child ${link.child.id}: ${c.state}, ${c.turns} turn${c.turns === 1 ? '' : 's'}${usage ? `, ${usage}` : ''}, ${durationText(c.ms)} · Enter steps in`;
}

export function subagentCallSegments(n: Node<'tool'>, link: SubagentLink | undefined): Segment[] {
  const out: Segment[] = [{ text: 'tool ', dim: true }, { text: clip(n.name, 60), bold: true }, { text: ' ' }, resultBadge(n)];
  const text = subagentText(link);
  if (text) out.push({ text: ' → ', dim: true }, { text: clip(text), color: link?.kind === 'linked' ? 'cyan' : 'yellow' });
  else out.push({ text: '  ' }, { text: clip(n.arguments, 50), dim: true });
  return out;
}

export function stepSegments(n: Node<'step'>): Segment[] {
  const out: Segment[] = [{ text: `step ${clip(n.step, 12)}` }];
  if (n.open) out.push({ text: '  open', color: 'yellow' });
  return out;
}

const ROLE_COLORS: Record<string, RowColor> = { user: 'blue', assistant: undefined, context: 'cyan', steering: 'magenta', system: 'gray' };

export function roleColor(role: string): RowColor {
  return ROLE_COLORS[role] ?? 'gray';
}

export function messageSegments(n: Node<'message'>): Segment[] {
  const role: Segment = { text: `${n.role}: `, color: roleColor(n.role), bold: true };
  if (n.text.trim()) return [role, { text: clip(n.text.trim()) }];
  if (n.reasoning) return [role, { text: '(reasoning) ', dim: true }, { text: clip(n.reasoning.trim()), dim: true }];
  return [role, { text: '(no text)', dim: true }];
}

export function resultBadge(n: Node<'tool'>): Segment {
  if (!n.result) return { text: 'running', color: 'yellow', bold: true };
  // written by the harness when it forked or repaired the turn, not by the tool
  if (n.result.harness) return { text: `harness: ${n.result.harness}`, color: 'magenta', bold: true };
  return n.result.isError ? { text: 'error', color: 'red', bold: true } : { text: 'ok', color: 'green', bold: true };
}

export function toolSegments(n: Node<'tool'>): Segment[] {
  // the outcome first: a long argument string must not push it off the row
  const out: Segment[] = [{ text: 'tool ', dim: true }, { text: clip(n.name, 60), bold: true }, { text: ' ' }, resultBadge(n)];
  if (n.change) out.push({ text: ' ' }, { text: `+${n.change.added}`, color: 'green' }, { text: ' ' }, { text: `−${n.change.removed}`, color: 'red' });
  out.push({ text: '  ' }, { text: clip(n.arguments, 50), dim: true });
  if (n.result) out.push({ text: ' → ', dim: true }, { text: clip(n.result.text.trim()), dim: true });
  return out;
}

export function toolArgsSegments(n: Node<'tool'>): Segment[] {
  return [{ text: 'arguments ', dim: true }, { text: clip(n.arguments) }];
}

export function toolResultSegments(n: Node<'tool'>): Segment[] {
  return [{ text: 'result ', dim: true }, resultBadge(n), { text: ' ' }, { text: clip(n.result?.text.trim() ?? '') }];
}

export function chunksSegments(n: Node<'chunks'>): Segment[] {
  return [{ text: `${n.count} chunk${n.count === 1 ? '' : 's'}`, dim: true }];
}

export function eventSegments(n: Node<'event'>): Segment[] {
  return [{ text: clip(n.type, 60), color: 'gray' }, { text: ' ' }, { text: clip(n.summary), dim: true }];
}

export const segmentsText = (segs: readonly Segment[]): string => segs.map((s) => s.text).join('');

/**
 * Cut a line of segments to `width` columns (an ellipsis marks the cut).
 * Drops empty segments; never returns wider text than `width`.
 */
export function fitSegments(segs: readonly Segment[], width: number): Segment[] {
  const out: Segment[] = [];
  let left = width;
  for (let i = 0; i < segs.length && left > 0; i++) {
    const s = segs[i];
    if (!s.text) continue;
    const w = displayWidth(s.text);
    // the last column must hold an ellipsis when anything non-empty follows
    const more = w === left && segs.slice(i + 1).some((x) => x.text.length > 0);
    if (w < left || (w === left && !more)) {
      out.push(s);
      left -= w;
      continue;
    }
    out.push({ ...s, text: truncate(more ? s.text + ELLIPSIS : s.text, left) });
    left = 0;
  }
  return out;
}
