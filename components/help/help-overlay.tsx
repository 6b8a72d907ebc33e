// `?`: the key table of the surface it was opened on, generated from the same
// table the app dispatches with, plus the text keys and the legend. Long lines
// wrap (nothing is cut); ↑/↓ scroll.
import { Box, Text } from 'ink';
import React from 'react';
import { HELP_KEY_WIDTH, helpPageSize, helpRows } from '../../src/view/help/help.js';
import type { AppState } from '../../src/view/app/state.js';
import type { SurfaceId } from '../../src/view/app/surface.js';
import { APP } from '../../src/view/app/surfaces.js';
import { fit, truncate } from '../../src/view/text/sanitize.js';
import { useTone } from '../app/theme.js';

export function HelpOverlay(props: { of: SurfaceId; state: AppState; width: number; height: number; scroll: number }): React.JSX.Element {
  const tone = useTone();
  const lines = helpRows(props.of, props.state, APP, props.width);
  const page = helpPageSize(props.height);
  const top = Math.max(0, Math.min(props.scroll, lines.length - page));
  const shown = lines.slice(top, top + page);
  const inner = Math.max(10, props.width - 4);
  const more = lines.length > page ? ` (${top + 1}-${top + shown.length} of ${lines.length}, ↑↓ scroll)` : '';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone('blue')} width={props.width} height={props.height} paddingX={1}>
      <Text bold wrap="truncate-end">
        {truncate(`Keys — ${props.of}${more} · Esc or ? closes`, inner)}
      </Text>
      {shown.map((l, i) =>
        l.heading ? (
          <Text key={i} bold wrap="truncate-end">
            {truncate(l.text, inner)}
          </Text>
        ) : (
          <Text key={i} wrap="truncate-end">
            <Text color={tone('cyan')}>{fit(l.keys, HELP_KEY_WIDTH)}</Text>
            {truncate(l.text, inner - HELP_KEY_WIDTH)}
          </Text>
        ),
      )}
    </Box>
  );
}
