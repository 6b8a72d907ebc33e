// The reader: a ReaderState's window, full screen. Presentational: the app owns
// the state (readerReducer) and the keys; this maps readerWindow rows to lines,
// colours diff lines (+ green, - red, @@ cyan, headers bold), and marks search
// matches (inverse; the current one yellow). Last line: position, search
// status, or the search being typed.
import { Box, Text } from 'ink';
import React from 'react';
import { readerWindow, type ReaderLineKind, type ReaderState, type ReaderWindowRow } from '../../src/view/reader/reader-state.js';
import { truncate } from '../../src/view/text/sanitize.js';
import { useTone, type Tone } from '../app/theme.js';

export interface ReaderViewProps {
  state: ReaderState;
  /** the whole surface: title line + state.height rows + status line */
  width: number;
}

const KIND_TONE: Record<ReaderLineKind, Tone | undefined> = { add: 'green', del: 'red', hunk: 'cyan', meta: undefined, context: undefined, text: undefined };

export interface ReaderSegment {
  text: string;
  color?: Tone;
  bold?: boolean;
  inverse?: boolean;
}

/** A row as styled segments: the line's kind colour, matches inverse (the current one yellow and bold). */
export function readerRowSegments(row: ReaderWindowRow): ReaderSegment[] {
  const base: ReaderSegment = { text: '', color: KIND_TONE[row.kind], bold: row.kind === 'meta' || undefined };
  const out: ReaderSegment[] = [];
  let at = 0;
  for (const h of row.highlights) {
    if (h.start > at) out.push({ ...base, text: row.text.slice(at, h.start) });
    out.push({ text: row.text.slice(h.start, h.end), inverse: true, ...(h.current ? { color: 'yellow' as Tone, bold: true } : {}) });
    at = h.end;
  }
  if (at < row.text.length || out.length === 0) out.push({ ...base, text: row.text.slice(at) || ' ' });
  return out;
}

function Row(props: { row: ReaderWindowRow }): React.JSX.Element {
  const tone = useTone();
  return (
    <Text wrap="truncate-end">
      {readerRowSegments(props.row).map((seg, i) => (
        <Text key={i} color={tone(seg.color)} bold={seg.bold} inverse={seg.inverse}>
          {seg.text}
        </Text>
      ))}
    </Text>
  );
}

export function ReaderView(props: ReaderViewProps): React.JSX.Element {
  const { state } = props;
  const win = readerWindow(state);
  const status =
    state.prompt !== null ? `/${state.prompt}` : [win.position, win.searchStatus, state.wrap ? 'wrap' : `nowrap +${state.left}`].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column" width={props.width} height={state.height + 2} overflow="hidden">
      <Text bold wrap="truncate-end">
        {truncate(state.doc.title || `${state.doc.format}`, props.width)}
      </Text>
      {win.rows.map((r, i) => (
        <Row key={win.top + i} row={r} />
      ))}
      {Array.from({ length: Math.max(0, state.height - win.rows.length) }, (_, i) => (
        <Text key={`pad${i}`} dimColor>
          ~
        </Text>
      ))}
      <Text dimColor={state.prompt === null} wrap="truncate-end">
        {truncate(status, props.width)}
      </Text>
    </Box>
  );
}
