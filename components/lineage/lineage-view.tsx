// Lineage: the forest from layoutLineage (box-drawing lanes, fork edges
// labelled with turn and seedLength, spawn edges drawn differently, orphans
// under "missing parent", cycles reported), windowed, with the selected
// session's ancestry highlighted. Presentational: the app owns the selection.
import { Box, Text } from 'ink';
import React from 'react';
import { LINEAGE_LEGEND, lineageMarker, lineageSessionCounts, type LineageLayout, type LineageRow } from '../../src/view/lineage-graph/lineage-layout.js';
import { lineageListHeight } from '../../src/view/lineage/lineage-height.js';
import { displayWidth, truncate } from '../../src/view/text/sanitize.js';
import { visibleWindow } from '../../src/view/app/window.js';
import { useTone, type Tone } from '../app/theme.js';

export interface LineageViewProps {
  layout: LineageLayout;
  /** index of the selection in layout.rows (-1: none) */
  selected: number;
  /** first visible row (kept in the app state) */
  top: number;
  /** keys of the selected session and its ancestors */
  ancestry: ReadonlySet<string>;
  /** the key of the session marked for compare (m) */
  mark?: string;
  width: number;
  height: number;
}

const KIND_TONE: Record<LineageRow['kind'], Tone> = { root: 'green', fork: 'cyan', spawn: 'magenta', 'fork-point': 'cyan', 'missing-parent': 'yellow', cycle: 'red' };

/**
 * `text` cut so that prefix, marker, text and label fit in `width` (the title
 * uses all the room there is); the label survives when it can. A collapsed
 * node shows `⊞ +N` after its text.
 */
export function lineageCells(row: LineageRow, width: number): { prefix: string; marker: string; text: string; label: string } {
  const marker = lineageMarker(row.kind);
  let prefix = row.prefix;
  if (displayWidth(prefix) > width / 2) prefix = '⋯ ' + [...prefix].slice(-Math.floor(width / 2) + 2).join('');
  const more = row.collapsed ? `  ⊞ +${row.hidden ?? 0}` : '';
  const label = (row.edgeLabel ? (row.kind === 'spawn' ? `  ⇢ ${row.edgeLabel}` : `  ⑂ ${row.edgeLabel}`) : '') + more;
  const room = width - displayWidth(prefix) - displayWidth(marker) - 1 - 2; // selection marker
  if (room - displayWidth(label) >= 12) return { prefix, marker, text: truncate(row.text, room - displayWidth(label)), label };
  return { prefix, marker, text: truncate(row.text + label, Math.max(1, room)), label: '' };
}

function Line(props: { row: LineageRow; selected: boolean; onPath: boolean; marked: boolean; width: number }): React.JSX.Element {
  const tone = useTone();
  const row = props.marked ? { ...props.row, text: `⚑ ${props.row.text}` } : props.row;
  const c = lineageCells(row, props.width);
  const emphasis = props.onPath && !props.selected;
  return (
    <Text inverse={props.selected} wrap="truncate-end">
      {props.selected ? '▶ ' : props.onPath ? '┃ ' : '  '}
      <Text color={emphasis ? tone('yellow') : undefined} dimColor={!props.onPath && !props.selected}>
        {c.prefix}
      </Text>
      <Text color={tone(KIND_TONE[row.kind])} bold={props.onPath}>
        {c.marker}
      </Text>{' '}
      <Text bold={props.onPath} color={row.key === null ? tone(KIND_TONE[row.kind]) : undefined}>
        {c.text}
      </Text>
      <Text dimColor={!props.selected} color={row.kind === 'spawn' ? tone('magenta') : tone('cyan')}>
        {c.label}
      </Text>
    </Text>
  );
}

export function LineageView(props: LineageViewProps): React.JSX.Element {
  const { layout } = props;
  const listHeight = lineageListHeight(props.height); // summary line above, legend below
  const win = visibleWindow(layout.rows, Math.max(0, props.selected), listHeight, props.top);
  const { sessions, hidden } = lineageSessionCounts(layout);
  const summary =
    `${sessions} session${sessions === 1 ? '' : 's'}${hidden ? ` · ${hidden} hidden` : ''} · ${layout.edges.length} edge${layout.edges.length === 1 ? '' : 's'}` +
    (layout.orphans.length ? ` · ${layout.orphans.length} orphan${layout.orphans.length === 1 ? '' : 's'}` : '') +
    (layout.ambiguous.length ? ` · ${layout.ambiguous.length} ambiguous parent${layout.ambiguous.length === 1 ? '' : 's'}` : '') +
    (layout.cycles.length ? ` · ${layout.cycles.length} cycle${layout.cycles.length === 1 ? '' : 's'}!` : '') +
    ' · ┃ ancestry';
  return (
    <Box flexDirection="column" height={props.height} width={props.width} overflow="hidden">
      <Text dimColor wrap="truncate-end">
        {truncate(summary, props.width)}
      </Text>
      {win.rows.length === 0 ? <Text dimColor>  no sessions</Text> : null}
      {win.rows.map((row, i) => (
        <Line
          key={row.key ?? `synthetic:${win.top + i}:${row.text}`}
          row={row}
          selected={win.top + i === props.selected}
          onPath={row.key !== null && props.ancestry.has(row.key)}
          marked={row.key !== null && row.key === props.mark}
          width={props.width}
        />
      ))}
      {props.height >= 3 ? (
        <Text dimColor wrap="truncate-end">
          {truncate(LINEAGE_LEGEND, props.width)}
        </Text>
      ) : null}
    </Box>
  );
}
