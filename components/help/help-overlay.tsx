// `?`: the key table for the active view, rendered from BINDINGS (the same
// table the app dispatches with), plus a legend. Windowed: ↑/↓ scroll it.
import { Box, Text } from 'ink';
import React from 'react';
import { helpLines, helpPageSize } from '../../src/view/help/help.js';
import type { ViewName } from '../../src/view/app/keymap.js';
import { fit, truncate } from '../../src/view/text/sanitize.js';
import { useTone } from '../app/theme.js';

export { helpLines, helpPageSize };

export function HelpOverlay(props: { view: ViewName; width: number; height: number; scroll: number }): React.JSX.Element {
  const tone = useTone();
  const lines = helpLines(props.view);
  const page = helpPageSize(props.height);
  const top = Math.max(0, Math.min(props.scroll, lines.length - page));
  const shown = lines.slice(top, top + page);
  const inner = Math.max(10, props.width - 4);
  const keyWidth = 14;
  const more = lines.length > page ? ` (${top + 1}-${top + shown.length} of ${lines.length}, ↑↓ scroll)` : '';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone('blue')} width={props.width} height={props.height} paddingX={1}>
      <Text bold wrap="truncate-end">
        {truncate(`Keys — ${props.view}${more} · Esc or ? closes`, inner)}
      </Text>
      {shown.map((l, i) =>
        l.heading ? (
          <Text key={i} bold wrap="truncate-end">
            {truncate(l.text, inner)}
          </Text>
        ) : (
          <Text key={i} wrap="truncate-end">
            <Text color={tone('cyan')}>{fit(l.keys, keyWidth)}</Text>
            {truncate(l.text, inner - keyWidth)}
          </Text>
        ),
      )}
    </Box>
  );
}
