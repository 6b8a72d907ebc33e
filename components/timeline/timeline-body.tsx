// Timeline in the body: a turn's bars over the whole content area. A dumb
// view of src/view/timeline/: the title, where the time went, the legend,
// the visible rows (label, bar, duration) and the position line. Colour
// follows the glyphs and never replaces them.
import React, { memo } from 'react';
import { Box, Text } from 'ink';
import { GLYPH, timelineLegend, timelineSummary, type TimelineRow } from '../../src/view/timeline/timeline-layout.js';
import { timelineLayout, timelineOf } from '../../src/view/timeline/timeline-of.js';
import { timelineBody } from '../../src/view/timeline/timeline-size.js';
import { visibleWindow } from '../../src/view/app/window.js';
import { fit, sanitizeInline } from '../../src/view/text/sanitize.js';
import type { BodyProps } from '../app/body.js';
import { useTone, type Tone } from '../app/theme.js';

const GLYPH_TONE: Record<string, Tone | undefined> = { [GLYPH.model]: 'cyan', [GLYPH.tool]: 'yellow', [GLYPH.open]: 'magenta', [GLYPH.openEnd]: 'magenta', [GLYPH.tick]: 'yellow' };

/** A bar in runs of one glyph, each in its glyph's colour (a failed call's in red). */
function Bar({ bar, failed }: { bar: string; failed?: boolean }): React.JSX.Element {
  const tone = useTone();
  const runs: string[] = bar.match(/(.)\1*/gu) ?? [];
  return (
    <>
      {runs.map((r, i) => (
        <Text key={i} color={tone(failed && r[0] === GLYPH.tool ? 'red' : GLYPH_TONE[r[0]])} dimColor={r[0] === GLYPH.step || r[0] === GLYPH.gap}>
          {r}
        </Text>
      ))}
    </>
  );
}

const Row = memo(function Row({ row, selected, label, width }: { row: TimelineRow; selected: boolean; label: number; width: number }): React.JSX.Element {
  const tone = useTone();
  if (row.kind === 'note') return <Text wrap="truncate" inverse={selected} color={row.text.startsWith('⚠') ? tone('yellow') : undefined}>{fit(`${selected ? '▶ ' : '  '}${row.text}`, width)}</Text>;
  const failed = row.kind === 'span' && row.span.failed;
  return (
    <Text wrap="truncate" inverse={selected} bold={row.kind === 'axis' || (row.kind === 'span' && row.span.kind === 'step')}>
      {selected ? '▶ ' : '  '}
      {fit(sanitizeInline(row.label), label)} <Bar bar={row.bar} failed={failed} /> <Text color={failed ? tone('red') : undefined}>{row.dur}</Text>
    </Text>
  );
});

export function TimelineBody({ state, world, lay }: BodyProps): React.JSX.Element {
  const t = state.timeline!;
  const session = world.session(t.key);
  const read = session ? timelineOf(world, session, t.turnSeq) : { ok: false as const, error: 'the session is no longer in the store' };
  const body = timelineBody(state);
  if (!read.ok)
    return (
      <Box flexDirection="column" width={lay.width} height={lay.content} overflow="hidden">
        <Text bold wrap="truncate">{fit(` Timeline · ${sanitizeInline(t.key)}`, lay.width)}</Text>
        <Text wrap="truncate">{fit(`  cannot draw this turn: ${sanitizeInline(read.error)}`, lay.width)}</Text>
      </Box>
    );
  const layout = timelineLayout(read, lay.width);
  const win = visibleWindow(layout.rows, t.cursor, body, t.top);
  const tl = read.timeline;
  const summary = timelineSummary(layout.totals, tl);
  return (
    <Box flexDirection="column" width={lay.width} height={lay.content} overflow="hidden">
      <Text wrap="truncate" bold>
        {fit(` Timeline · ${sanitizeInline(session!.id)} · turn ${tl.turn} · seq ${tl.seq}–${tl.lastSeq}${tl.open ? ' · live: grows as the log does' : ''}`, lay.width)}
      </Text>
      <Text wrap="truncate">{fit(`  ${summary.times}`, lay.width)}</Text>
      <Text wrap="truncate">{fit(`  ${summary.longest ? sanitizeInline(summary.longest) : 'no tool call'}`, lay.width)}</Text>
      <Text wrap="truncate" dimColor>
        {fit(`  ${timelineLegend}`, lay.width)}
      </Text>
      <Box flexDirection="column" height={body} overflow="hidden">
        {win.rows.map((r, i) => (
          <Row key={win.top + i} row={r} selected={win.top + i === t.cursor} label={layout.labelWidth} width={lay.width} />
        ))}
      </Box>
      <Text wrap="truncate" dimColor>
        {fit(`${Math.min(t.cursor + 1, layout.rows.length)}/${layout.rows.length} · Enter reads the event · Esc back`, lay.width)}
      </Text>
    </Box>
  );
}
