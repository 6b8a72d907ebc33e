// The reader: long content (a diff, a tool result, reasoning, JSON) full screen,
// as a pure reducer. Content -> safe lines (JSON pretty-printed, unified diffs
// given line kinds), wrapped or not at a width, scrolled by line/page/top/bottom,
// searched with n/N. The view maps readerWindow(state) and nothing else.
import { firstNotBefore } from '../../session/sorted.js';
import stringWidth from 'string-width';
import { contentText, messageOf, type SessionEvent } from '../../session/events.js';
import { safeStringify, textOf } from '../../session/json-safe.js';
import { foldCase, indexOfFolded } from '../../session/literal.js';
import { sanitizeBlock, sanitizeInline } from '../text/sanitize.js';

export type ReaderLineKind = 'text' | 'add' | 'del' | 'hunk' | 'meta' | 'context';

export interface ReaderLine {
  /** sanitised: no control characters, tabs expanded */
  text: string;
  kind: ReaderLineKind;
}

export interface ReaderDoc {
  title: string;
  format: 'text' | 'json' | 'diff';
  lines: ReaderLine[];
}

/** A visual row: line `line`, code units [start, end) of its text. */
export interface VisualRow {
  line: number;
  start: number;
  end: number;
}

export interface ReaderMatch {
  line: number;
  start: number;
  end: number;
}

export interface ReaderState {
  doc: ReaderDoc;
  width: number;
  height: number;
  wrap: boolean;
  /** first visible visual row */
  top: number;
  /** columns scrolled right (only without wrap) */
  left: number;
  /** derived from doc, width and wrap; kept here so scrolling does not recompute it */
  rows: VisualRow[];
  search: { query: string; matches: ReaderMatch[]; current: number } | null;
  /** the search being typed after `/`, or null */
  prompt: string | null;
}

export type ReaderAction =
  | { type: 'scroll'; by: number }
  | { type: 'page'; by: number }
  | { type: 'top' }
  | { type: 'bottom' }
  | { type: 'left'; by?: number }
  | { type: 'right'; by?: number }
  | { type: 'toggleWrap' }
  | { type: 'resize'; width: number; height: number }
  | { type: 'searchStart' }
  | { type: 'searchInput'; text: string }
  | { type: 'searchCommit' }
  | { type: 'searchCancel' }
  | { type: 'search'; query: string }
  | { type: 'next' }
  | { type: 'prev' };

const MAX_JSON_BYTES = 8 * 1024 * 1024;
// a hunk whose place in the file is not known reads `@@ -?,n +?,m @@` (a branch's changes: src/session/changes.ts)
const HUNK = /^@@ -(\d+|\?)(,\d+)? \+(\d+|\?)(,\d+)? @@/;
const META = /^(diff |index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode|similarity index|rename (from|to) |Binary files )/;

/** Whether the lines look like a unified diff: a hunk header, or a `diff --git` / `---`+`+++` file header. */
export function isUnifiedDiff(lines: readonly string[]): boolean {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (HUNK.test(l) || l.startsWith('diff --git ')) return true;
    if (l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) return true;
  }
  return false;
}

function diffKind(l: string): ReaderLineKind {
  if (HUNK.test(l)) return 'hunk';
  if (META.test(l)) return 'meta';
  if (l.startsWith('+')) return 'add';
  if (l.startsWith('-')) return 'del';
  return 'context';
}

/** Content -> a reader document: JSON pretty-printed, a unified diff with line kinds, else text. */
export function readerDoc(content: string, rawTitle = ''): ReaderDoc {
  const title = sanitizeInline(rawTitle); // it names the session and the event: from the file
  const trimmed = content.trim();
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length <= MAX_JSON_BYTES) {
    try {
      const pretty = safeStringify(JSON.parse(trimmed), 2);
      return { title, format: 'json', lines: sanitizeBlock(pretty).map((text) => ({ text, kind: 'text' })) };
    } catch {
      /* not JSON: fall through */
    }
  }
  const raw = content.split(/\r?\n/);
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
  const safe = sanitizeBlock(raw.join('\n'));
  if (isUnifiedDiff(raw)) return { title, format: 'diff', lines: safe.map((text, i) => ({ text, kind: diffKind(raw[i]) })) };
  return { title, format: 'text', lines: safe.map((text) => ({ text, kind: 'text' })) };
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const ASCII = /^[\x20-\x7e]*$/;

/** Code-unit offsets where `text` breaks into rows of at most `width` columns (a grapheme wider than the width gets a row of its own). */
export function columnBreaks(text: string, width: number): Array<[number, number]> {
  const w = Math.max(1, width);
  if (text.length === 0) return [[0, 0]];
  if (ASCII.test(text)) {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < text.length; i += w) out.push([i, Math.min(text.length, i + w)]);
    return out;
  }
  const out: Array<[number, number]> = [];
  let start = 0;
  let used = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    const sw = stringWidth(segment);
    if (used + sw > w && index > start) {
      out.push([start, index]);
      start = index;
      used = 0;
    }
    used += sw;
  }
  out.push([start, text.length]);
  return out;
}

/** The part of `text` from column `left`, at most `width` columns, or one grapheme wider than that (code-unit offsets). */
export function columnSlice(text: string, left: number, width: number): [number, number] {
  if (ASCII.test(text)) return [Math.min(left, text.length), Math.min(text.length, left + width)];
  let col = 0;
  let start = -1;
  for (const { segment, index } of graphemes.segment(text)) {
    const sw = stringWidth(segment);
    if (start < 0 && col >= left) start = index;
    // at least one grapheme, as columnBreaks does: a wide one in a 1-column window is shown, not lost
    if (start >= 0 && col + sw > left + width && index > start) return [start, index];
    col += sw;
  }
  return start < 0 ? [text.length, text.length] : [start, text.length];
}

function layoutRows(doc: ReaderDoc, width: number, wrap: boolean): VisualRow[] {
  const rows: VisualRow[] = [];
  doc.lines.forEach((l, line) => {
    if (!wrap) rows.push({ line, start: 0, end: l.text.length });
    else for (const [start, end] of columnBreaks(l.text, width)) rows.push({ line, start, end });
  });
  return rows;
}

const clamp = (n: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, n));
const maxTop = (s: ReaderState) => Math.max(0, s.rows.length - s.height);

export function initialReaderState(doc: ReaderDoc, width: number, height: number, wrap = true): ReaderState {
  const w = Math.max(1, Math.floor(width));
  return { doc, width: w, height: Math.max(1, Math.floor(height)), wrap, top: 0, left: 0, rows: layoutRows(doc, w, wrap), search: null, prompt: null };
}

/** Every case-insensitive occurrence of `query` (literal, as the query language compares words) in the lines: linear in the text for any query. */
export function findMatches(doc: ReaderDoc, query: string): ReaderMatch[] {
  if (query === '') return [];
  const needle = foldCase(query);
  const out: ReaderMatch[] = [];
  doc.lines.forEach((l, line) => {
    const text = foldCase(l.text);
    for (let i = indexOfFolded(text, needle); i >= 0; i = indexOfFolded(text, needle, i + needle.length)) out.push({ line, start: i, end: i + needle.length });
  });
  return out;
}

/** The visual row that shows code unit `offset` of line `line`. */
export function rowOf(s: ReaderState, line: number, offset = 0): number {
  // the first row with (line, start) after (line, offset), minus one
  const after = firstNotBefore(s.rows.length, (i) => s.rows[i].line < line || (s.rows[i].line === line && s.rows[i].start <= offset));
  return Math.max(0, after - 1);
}

/** Scrolls so the current match is visible (a third down the page when it must move) and, without wrap, in the columns. */
function reveal(s: ReaderState): ReaderState {
  if (!s.search || s.search.current < 0) return s;
  const m = s.search.matches[s.search.current];
  const row = rowOf(s, m.line, m.start);
  let top = s.top;
  if (row < top || row >= top + s.height) top = clamp(row - Math.floor(s.height / 3), 0, maxTop(s));
  let left = s.left;
  if (!s.wrap) {
    const text = s.doc.lines[m.line].text;
    const startCol = stringWidth(text.slice(0, m.start));
    const endCol = stringWidth(text.slice(0, m.end));
    if (startCol < left || endCol > left + s.width) left = Math.max(0, startCol - Math.floor(s.width / 3));
  }
  return { ...s, top, left };
}

function currentVisible(s: ReaderState): boolean {
  if (!s.search || s.search.current < 0) return false;
  return readerWindow(s).rows.some((r) => r.highlights.some((h) => h.current));
}

/** The first match at or after the top row (so n after scrolling goes on from where the reader is). */
function firstMatchFrom(s: ReaderState, matches: ReaderMatch[]): number {
  if (matches.length === 0) return -1;
  const topRow = s.rows[s.top];
  if (!topRow) return 0;
  const i = matches.findIndex((m) => m.line > topRow.line || (m.line === topRow.line && m.end > topRow.start));
  return i < 0 ? 0 : i;
}

export function readerReducer(s: ReaderState, a: ReaderAction): ReaderState {
  switch (a.type) {
    case 'scroll':
      return { ...s, top: clamp(s.top + a.by, 0, maxTop(s)) };
    case 'page':
      return { ...s, top: clamp(s.top + a.by * Math.max(1, s.height - 1), 0, maxTop(s)) };
    case 'top':
      return { ...s, top: 0, left: 0 };
    case 'bottom':
      return { ...s, top: maxTop(s) };
    case 'left':
      return s.wrap ? s : { ...s, left: Math.max(0, s.left - (a.by ?? Math.max(1, Math.floor(s.width / 2)))) };
    case 'right':
      return s.wrap ? s : { ...s, left: s.left + (a.by ?? Math.max(1, Math.floor(s.width / 2))) };
    case 'toggleWrap':
    case 'resize': {
      const wrap = a.type === 'toggleWrap' ? !s.wrap : s.wrap;
      const width = a.type === 'resize' ? Math.max(1, Math.floor(a.width)) : s.width;
      const height = a.type === 'resize' ? Math.max(1, Math.floor(a.height)) : s.height;
      const anchor = s.rows[s.top];
      const next: ReaderState = { ...s, wrap, width, height, left: wrap ? 0 : s.left, rows: wrap === s.wrap && width === s.width ? s.rows : layoutRows(s.doc, width, wrap) };
      const top = anchor ? rowOf(next, anchor.line, anchor.start) : 0; // keep the same text at the top
      const kept = { ...next, top: clamp(top, 0, maxTop(next)) };
      return currentVisible(s) ? reveal(kept) : kept; // and a current match in view stays in view
    }
    case 'searchStart':
      return { ...s, prompt: '' };
    case 'searchInput':
      return s.prompt === null ? s : { ...s, prompt: a.text };
    case 'searchCancel':
      return { ...s, prompt: null };
    case 'searchCommit':
      if (s.prompt === null) return s;
      return readerReducer({ ...s, prompt: null }, { type: 'search', query: s.prompt });
    case 'search': {
      if (a.query === '') return { ...s, search: null };
      const matches = findMatches(s.doc, a.query);
      return reveal({ ...s, search: { query: a.query, matches, current: firstMatchFrom(s, matches) } });
    }
    case 'next':
    case 'prev': {
      if (!s.search || s.search.matches.length === 0) return s;
      const n = s.search.matches.length;
      const current = (s.search.current + (a.type === 'next' ? 1 : -1) + n) % n;
      return reveal({ ...s, search: { ...s.search, current } });
    }
  }
  return s;
}

export interface ReaderWindowRow {
  line: number;
  kind: ReaderLineKind;
  /** what to print, at most `width` columns */
  text: string;
  /** [start, end) in `text` of search matches, with whether it is the current match */
  highlights: Array<{ start: number; end: number; current: boolean }>;
  /** a wrapped continuation of the line above */
  continuation: boolean;
}

export interface ReaderWindow {
  rows: ReaderWindowRow[];
  top: number;
  total: number;
  /** e.g. `120–160 of 2001 lines · 37%` */
  position: string;
  /** e.g. `match 3/41 "foo"`, `no match for "foo"`, or '' */
  searchStatus: string;
}

/** The visible rows of a reader state, with match highlights. */
export function readerWindow(s: ReaderState): ReaderWindow {
  const rows: ReaderWindowRow[] = [];
  const matches = s.search?.matches ?? [];
  const cur = s.search && s.search.current >= 0 ? matches[s.search.current] : undefined;
  // matches are in (line, start) order: find the first one of the window's first line
  const firstLine = s.rows[s.top]?.line ?? 0;
  let mi = lowerBound(matches, firstLine);
  for (let r = s.top; r < Math.min(s.rows.length, s.top + s.height); r++) {
    const vr = s.rows[r];
    const line = s.doc.lines[vr.line];
    let [start, end] = [vr.start, vr.end];
    if (!s.wrap) [start, end] = columnSlice(line.text, s.left, s.width).map((x) => x) as [number, number];
    while (mi < matches.length && matches[mi].line < vr.line) mi++;
    const highlights: ReaderWindowRow['highlights'] = [];
    for (let k = mi; k < matches.length && matches[k].line === vr.line; k++) {
      const m = matches[k];
      if (m.end <= start || m.start >= end) continue;
      highlights.push({ start: Math.max(m.start, start) - start, end: Math.min(m.end, end) - start, current: m === cur });
    }
    rows.push({ line: vr.line, kind: line.kind, text: line.text.slice(start, end), highlights, continuation: vr.start > 0 });
  }
  const total = s.doc.lines.length;
  const firstShown = rows.length ? rows[0].line + 1 : 0;
  const lastShown = rows.length ? rows[rows.length - 1].line + 1 : 0;
  const pct = s.rows.length <= s.height ? 100 : Math.round((Math.min(s.rows.length, s.top + s.height) / s.rows.length) * 100);
  let searchStatus = '';
  if (s.search) searchStatus = s.search.matches.length === 0 ? `no match for "${s.search.query}"` : `match ${s.search.current + 1}/${s.search.matches.length} "${s.search.query}"`;
  return { rows, top: s.top, total, position: `${firstShown}–${lastShown} of ${total} line${total === 1 ? '' : 's'} · ${pct}%`, searchStatus };
}

const lowerBound = (matches: readonly ReaderMatch[], line: number): number => firstNotBefore(matches.length, (i) => matches[i].line < line);

/** What the reader shows for an event: its long content, with a title. */
export function eventReaderContent(e: SessionEvent): { title: string; content: string } {
  const d = e.data ?? {};
  const title = `${e.type} · seq ${e.seq}`;
  if (e.type === 'tool/call') return { title: `${title} · ${textOf(d.name ?? '?')}`, content: typeof d.arguments === 'string' ? d.arguments : safeStringify(d.arguments ?? null, 2) };
  const msg = messageOf(e);
  if (e.type === 'tool/result') {
    const blocks = Array.isArray(d.content) ? d.content : Array.isArray(msg.content) ? (msg.content as unknown[]) : [];
    const text = (blocks as Array<Record<string, unknown>>).map((b) => (b?.type === 'tool-result' ? contentText(b.content) : b?.type === 'text' ? textOf(b.text) : '')).join('');
    return { title, content: text || (d.error !== undefined ? textOf(d.error) : safeStringify(d, 2)) };
  }
  if (Array.isArray(msg.content) || typeof msg.content === 'string') {
    const reasoning = contentText(msg.content, ['reasoning']);
    const text = contentText(msg.content, ['text']);
    if (reasoning || text) return { title, content: reasoning ? `── reasoning ──\n${reasoning}${text ? `\n── text ──\n${text}` : ''}` : text };
  }
  return { title, content: safeStringify(d, 2) };
}
