// Sessions: every session as one row (badge, id, title, cwd, turns, events,
// age), sorted and filtered by the pure model in src/view/sessions/session-list.ts.
// Presentational: the app state owns selection, window, order and filter.
import { Box, Text } from 'ink';
import React from 'react';
import { ItemRows, sessionsCountText, type SessionRow } from '../../src/view/sessions/session-list.js';
import { type SortOrder } from '../../src/session/list-item.js';
import { caretParts, type TextField } from '../../src/view/text/text-field.js';
import { displayWidth, fit, fitTail, padEnd, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import { visibleWindow, type RowSeq } from '../../src/view/app/window.js';
import { useTone } from '../app/theme.js';
import type { DetailLine } from '../../src/view/sessions/session-detail.js';
import { DETAIL_ROWS } from '../../src/view/sessions/sessions-layout.js';

export interface SessionsViewProps {
  rows: RowSeq<SessionRow>;
  total: number;
  /** the list shows only the current project's sessions (p widens it) */
  scoped?: boolean;
  /** index of the selection in rows (-1: none) */
  selected: number;
  /** first visible row (kept in the app state) */
  top: number;
  order: SortOrder;
  filter: TextField;
  editing: boolean;
  /** the key of the session marked for compare (m) */
  mark?: string;
  /** which projects are listed, when the root has a project scope */
  scope?: string;
  /** the filter's query is still searching events: more rows may join */
  searching?: boolean;
  width: number;
  height: number;
  /** the root is still being scanned: an empty list is not the final word */
  scanning?: boolean;
  /** the filter's query error (queryErrorLine), shown in place of the column headings */
  queryError?: string;
  /** rows for the list (sessions-layout.ts); default: the height less the summary and the header */
  list?: number;
  /** the detail pane's lines, when it is shown (session-detail.ts) */
  detail?: readonly DetailLine[];
}

interface Columns {
  badge: number;
  id: number;
  title: number;
  cwd: number;
  turns: number;
  events: number;
  tokens: number;
  age: number;
}

/** The STATE column's narrowest and widest: `boundary ⚠2` always fits; past the widest a badge is cut. */
const BADGE_MIN = 11;
const BADGE_MAX = 14;

/**
 * The STATE column's width: its widest badge among all the rows (not only the
 * ones on screen, so it holds still while scrolling), so `⊘ open 23h ⚠2` or a
 * deleted row's `file deleted` is not cut.
 */
export function badgeColumnWidth(rows: RowSeq<Pick<SessionRow, 'badge'>>): number {
  // per rows array (the world's rows are memoised: a key press reuses them), each distinct badge measured once:
  // this runs on every frame, and a root holds tens of thousands of rows but a handful of badge texts
  const hit = badgeWidths.get(rows);
  if (hit !== undefined) return hit;
  let widest = BADGE_MIN;
  if (rows instanceof ItemRows) widest = rows.widestBadge(BADGE_MIN, BADGE_MAX);
  else {
    const seen = new Set<string>();
    for (const { badge } of rows.slice()) {
      if (seen.has(badge)) continue;
      seen.add(badge);
      widest = Math.max(widest, displayWidth(badge));
    }
  }
  const width = Math.min(BADGE_MAX, widest);
  badgeWidths.set(rows, width);
  return width;
}
const badgeWidths = new WeakMap<RowSeq<Pick<SessionRow, 'badge'>>, number>();

/** Column widths for a terminal width and a STATE column width; the title takes what is left. */
export function sessionColumns(width: number, badge = BADGE_MIN): Columns {
  const turns = 3;
  const events = 4;
  const age = 4;
  const tokens = width >= 90 ? 5 : 0; // tokens only where there is room
  const id = Math.max(12, Math.min(40, Math.floor(width * 0.24)));
  const cwd = Math.max(8, Math.min(32, Math.floor(width * 0.16)));
  const fixed = 2 + badge + id + cwd + turns + events + tokens + age + 7 + (tokens ? 1 : 0); // marker + gaps
  return { badge, id, title: Math.max(4, width - fixed), cwd, turns, events, tokens, age };
}

/** Keep the end of a path: `…/payments-api`. */
function fitStart(s: string, width: number): string {
  if (displayWidth(s) <= width) return padEnd(s, width);
  const chars = [...s];
  let out = '';
  while (chars.length && displayWidth('…' + chars[chars.length - 1] + out) <= width) out = chars.pop()! + out;
  return padEnd('…' + out, width);
}

const right = (s: string, w: number): string => fit(s, w).trimEnd().padStart(w);

function Row(props: { row: SessionRow; selected: boolean; marked: boolean; cols: Columns }): React.JSX.Element {
  const { row, cols } = props;
  const tone = useTone();
  const id = (props.marked ? '⚑ ' : '') + row.guide + (row.mark ? row.mark + ' ' : '') + row.id;
  return (
    <Text inverse={props.selected} wrap="truncate-end">
      {props.selected ? '▶ ' : '  '}
      <Text color={tone(row.tone)}>{fit(row.badge, cols.badge)}</Text> <Text bold={props.selected}>{fit(id, cols.id)}</Text>{' '}
      {fit(row.title, cols.title)} <Text dimColor={!props.selected}>{fitStart(row.cwd, cols.cwd)}</Text> {right(row.turns, cols.turns)}{' '}
      {right(row.events, cols.events)} {cols.tokens ? right(row.tokens, cols.tokens) + ' ' : ''}{right(row.age, cols.age)}
    </Text>
  );
}

/** The filter prompt with a visible caret while editing. */
function FilterText(props: { field: TextField; editing: boolean; width: number }): React.JSX.Element | null {
  const tone = useTone();
  const text = sanitizeInline(props.field.text);
  if (!props.editing) return text ? <Text color={tone('yellow')}>{truncate(` · filter "${text}" (Esc clears)`, props.width)}</Text> : null;
  const { before, at, after } = caretParts(props.field);
  // keep the caret in view: cut the start of a long filter
  const room = Math.max(4, props.width - 4);
  const b = fitTail(sanitizeInline(before), room - 1);
  return (
    <Text color={tone('yellow')}>
      {' · /'}
      {b}
      <Text inverse>{sanitizeInline(at)}</Text>
      {truncate(sanitizeInline(after), Math.max(0, room - displayWidth(b) - 1))}
    </Text>
  );
}

/** Why the list is empty: a filter, the scan, the project scope (which hides sessions the root holds), or no sessions at all. */
function emptyText(props: SessionsViewProps): string {
  const scoped = props.scoped && props.total > 0 ? ' in this project (p shows every project)' : '';
  if (props.filter.text) return `  no session matches "${truncate(sanitizeInline(props.filter.text), 40)}"${scoped}`;
  if (props.scanning) return '  scanning…';
  if (scoped) return `  none of the ${props.total} session${props.total === 1 ? '' : 's'} is in this project: p shows every project`;
  return '  no sessions in this directory';
}

/** The detail pane, at the bottom of the view: a rule, then its lines (the chart in bars, never colour alone). */
function DetailPane(props: { lines: readonly DetailLine[]; width: number }): React.JSX.Element {
  const tone = useTone();
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate">{truncate('── detail (d) ' + '─'.repeat(props.width), props.width)}</Text>
      {props.lines.slice(0, DETAIL_ROWS - 1).map((l, i) => (
        <Text key={i} wrap="truncate" color={tone(l.tone)} dimColor={l.dim}>
          {truncate(` ${l.text}`, props.width)}
        </Text>
      ))}
    </Box>
  );
}

export function SessionsView(props: SessionsViewProps): React.JSX.Element {
  const tone = useTone();
  const badge = React.useMemo(() => badgeColumnWidth(props.rows), [props.rows]); // every row's badge is measured: once per list
  const cols = sessionColumns(props.width, badge);
  const listHeight = props.list ?? Math.max(1, props.height - 2);
  const win = visibleWindow(props.rows, Math.max(0, props.selected), listHeight, props.top);
  const head =
    `  ${fit('STATE', cols.badge)} ${fit('ID', cols.id)} ${fit('TITLE', cols.title)} ${fit('CWD', cols.cwd)} ` +
    `${right('T', cols.turns)} ${right('EV', cols.events)} ${cols.tokens ? right('TOK', cols.tokens) + ' ' : ''}${right('AGE', cols.age)}`;
  return (
    <Box flexDirection="column" height={props.height} width={props.width} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold>{sessionsCountText(props.rows, props.total, props.filter.text !== '')}</Text>
        <Text dimColor>{` · order: ${props.order} (s)`}</Text>
        <FilterText field={props.filter} editing={props.editing} width={Math.max(1, props.width - 40)} />
        {props.searching ? <Text color={tone('yellow')}>{' · searching events…'}</Text> : null}
        {props.scope ? <Text dimColor>{truncate(` · ${props.scope}`, Math.max(1, props.width - 40))}</Text> : null}
      </Text>
      {props.queryError ? (
        <Text color={tone('red')} wrap="truncate-end">
          {truncate(`  ${sanitizeInline(props.queryError)}`, props.width)}
        </Text>
      ) : (
        <Text dimColor wrap="truncate-end">
          {truncate(head, props.width)}
        </Text>
      )}
      <Box flexDirection="column" height={listHeight} overflow="hidden">
        {win.rows.length === 0 ? (
          <Text dimColor>{emptyText(props)}</Text>
        ) : (
          win.rows.map((row, i) => <Row key={row.key} row={row} selected={win.top + i === props.selected} marked={row.key === props.mark} cols={cols} />)
        )}
      </Box>
      {props.detail ? <DetailPane lines={props.detail} width={props.width} /> : null}
    </Box>
  );
}
