// `?`: the key table for the active view, rendered from BINDINGS (the same
// table the app dispatches with), plus a legend. Windowed: ↑/↓ scroll it.
import { Box, Text } from 'ink';
import React from 'react';
import { bindingsFor, type ViewName } from '../src/view/keymap.js';
import { fit, truncate } from '../src/view/sanitize.js';
import { useTone } from './theme.js';

export interface HelpLine {
  keys: string;
  text: string;
  heading?: boolean;
}

export function helpLines(view: ViewName): HelpLine[] {
  const lines: HelpLine[] = bindingsFor(view).map((b) => ({ keys: b.keys, text: b.help }));
  lines.push({ keys: '', text: 'Legend', heading: true });
  lines.push({ keys: 'boundary', text: 'the log ends between turns: forkable' });
  lines.push({ keys: 'open 5m', text: 'inside an open turn; age of its last event (live writer or crash)' });
  lines.push({ keys: 'empty ⚠2', text: 'no events; ⚠ n = diagnostics (damaged lines)' });
  lines.push({ keys: '◆ / ◇', text: 'fork child / spawned subagent' });
  return lines;
}

/** Lines that fit: the box uses two border rows and a title row. */
export const helpPageSize = (height: number): number => Math.max(1, height - 3);

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
