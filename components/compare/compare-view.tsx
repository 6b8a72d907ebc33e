// The Compare view: two branches side by side from their common ancestor.
// A dumb view of src/view/comparison/compare-model.ts: the owner keeps the cursor (row
// index) and the side (left/right) in its state and handles the keys; this
// renders the header, the visible window of rows and a hint line, no taller
// than `height` and no wider than `width`.
import React, { memo, useMemo, useRef } from 'react';
import { Box, Text } from 'ink';
import type { Comparison } from '../../src/session/compare.js';
import { COLUMN_SEPARATOR, compareHeader, compareRows, compareWindow, pairCells, renderCompareRow, type CompareRow, type Side } from '../../src/view/comparison/compare-model.js';
import { fit, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import { useTone } from '../app/theme.js';

export interface CompareViewProps {
  comparison: Comparison;
  /** rows of the comparison (pass them when the owner computed them for its cursor bounds) */
  rows?: CompareRow[];
  width: number;
  height: number;
  /** the selected row index */
  cursor: number;
  /** the side Enter opens */
  side: Side;
  /** first visible row, when the owner keeps the window in its state (compare-state.ts); else the view keeps it */
  from?: number;
}

export const COMPARE_HINT = '↑↓ row  ←→ side  enter open  esc back';

const MARK = 2; // "▶ " before the selected row

type RowProps = { comparison: Comparison; row: CompareRow; width: number; selected: boolean; side: Side };

const Row = memo(function Row({ comparison, row, width, selected, side }: RowProps): React.JSX.Element {
  const tone = useTone();
  const w = Math.max(4, width - MARK);
  const mark = (i: number) => (selected && i === 0 ? '▶ ' : '  ');
  const cells = pairCells(row, w);
  if (cells) {
    return (
      <Box flexDirection="column">
        {cells.left.map((l, i) => (
          <Text key={i} wrap="truncate">
            {mark(i)}
            <Text inverse={selected && side === 'left'}>{l}</Text>
            {COLUMN_SEPARATOR}
            <Text inverse={selected && side === 'right'}>{cells.right[i]}</Text>
          </Text>
        ))}
      </Box>
    );
  }
  const color = row.kind === 'shared' || row.kind === 'equal' ? tone('gray') : undefined;
  return (
    <Box flexDirection="column">
      {renderCompareRow(comparison, row, w).map((l, i) => (
        <Text key={i} wrap="truncate" color={color} bold={row.kind === 'totals' || row.kind === 'files'}>
          {mark(i)}
          <Text inverse={selected}>{l}</Text>
        </Text>
      ))}
    </Box>
  );
});

export function CompareView(props: CompareViewProps): React.JSX.Element {
  const { comparison, width, height, cursor, side } = props;
  const rows = useMemo(() => props.rows ?? compareRows(comparison), [props.rows, comparison]);
  const body = Math.max(1, height - 3); // header 2, hint 1
  const prev = useRef(0);
  const win = compareWindow(rows, cursor, body, props.from ?? prev.current);
  prev.current = win.from;
  const [anc, names] = compareHeader(comparison, Math.max(4, width - MARK));
  const tone = useTone();
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text wrap="truncate" bold>
        {'  '}
        {anc}
      </Text>
      <Text wrap="truncate" color={tone('cyan')}>
        {'  '}
        {names}
      </Text>
      <Box flexDirection="column" height={body} overflow="hidden">
        {rows.slice(win.from, win.to).map((r, i) => (
          <Row key={r.key} comparison={comparison} row={r} width={width} selected={win.from + i === cursor} side={side} />
        ))}
      </Box>
      <Text wrap="truncate" dimColor>
        {fit(`${Math.min(cursor + 1, rows.length)}/${rows.length}  side: ${side} (${truncate(sanitizeInline((side === 'left' ? comparison.left : comparison.right).session.id), 40)})  · ${COMPARE_HINT}`, width)}
      </Text>
    </Box>
  );
}
