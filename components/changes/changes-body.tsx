// Changes in the body: what a session or a turn did to the code, over the
// whole content area. A dumb view of src/view/changes/changes-rows.ts: the
// title, the visible rows (a file's +n −m coloured), and a hint line.
import React, { memo } from 'react';
import { Box, Text } from 'ink';
import { changesRowText, type ChangesRow } from '../../src/view/changes/changes-rows.js';
import { visibleWindow } from '../../src/view/app/window.js';
import { displayWidth, fit, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import type { BodyProps } from '../app/body.js';
import { useTone } from '../app/theme.js';


const Row = memo(function Row({ row, width, selected }: { row: ChangesRow; width: number; selected: boolean }): React.JSX.Element {
  const tone = useTone();
  const r = changesRowText(row);
  if (row.kind === 'heading') return <Text bold wrap="truncate">{fit(` ${sanitizeInline(r.text)}`, width)}</Text>;
  const counts = r.added !== undefined ? `+${r.added} −${r.removed}` : '';
  const note = r.note ? sanitizeInline(r.note) : '';
  // the path (or command) takes what the counts and the note leave
  const room = Math.max(8, width - 4 - displayWidth(counts) - displayWidth(note) - 4);
  const text = truncate(sanitizeInline(r.text), room);
  const pad = ' '.repeat(Math.max(1, room - displayWidth(text) + 1));
  const dim = row.kind === 'empty' || (row.kind === 'file' && row.inherited);
  return (
    <Text wrap="truncate" inverse={selected} dimColor={dim}>
      {selected ? '▶ ' : '  '}
      <Text color={r.mark === 'A' ? tone('green') : r.mark === '$' ? tone('cyan') : r.mark === '?' ? tone('yellow') : undefined}>{r.mark || ' '}</Text> {text}
      {pad}
      {counts ? (
        <>
          <Text color={tone('green')}>+{r.added}</Text> <Text color={tone('red')}>−{r.removed}</Text>
        </>
      ) : null}
      {note ? `  ${note}` : ''}
    </Text>
  );
});

export function ChangesBody({ state, lay }: BodyProps): React.JSX.Element {
  const c = state.changes!;
  const body = Math.max(1, lay.content - 2);
  const win = visibleWindow(c.list.rows, c.cursor, body, c.top);
  return (
    <Box flexDirection="column" width={lay.width} height={lay.content} overflow="hidden">
      <Text wrap="truncate" bold>
        {fit(` Changes · ${sanitizeInline(c.list.id)} · ${c.list.scope}`, lay.width)}
      </Text>
      <Box flexDirection="column" height={body} overflow="hidden">
        {win.rows.map((r, i) => (
          <Row key={win.top + i} row={r} width={lay.width} selected={win.top + i === c.cursor} />
        ))}
      </Box>
      <Text wrap="truncate" dimColor>
        {fit(`${Math.min(c.cursor + 1, c.list.rows.length)}/${c.list.rows.length}`, lay.width)}
      </Text>
    </Box>
  );
}
