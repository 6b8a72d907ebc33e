// Problems: every diagnostic and audit finding (src/session/problems.ts), one
// line each — severity, code, file:line (relative to the root), seq, message —
// worst first, windowed. Presentational: the app owns selection and top, and
// Enter (jump to the session and seq) is the app's.
import { Box, Text } from 'ink';
import React from 'react';
import type { ProblemRow } from '../../src/session/problems.js';
import { padEnd, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import { visibleWindow } from '../../src/view/app/window.js';
import { useTone } from '../app/theme.js';

export interface ProblemsViewProps {
  rows: readonly ProblemRow[];
  /** index of the selection in rows (-1: none) */
  selected: number;
  /** first visible row (kept in the app state) */
  top: number;
  /** the root folder: file paths are shown relative to it */
  root?: string;
  width: number;
  height: number;
}

const CODE_WIDTH = 22;

/** The cells of one problem line, sanitised and fitted to `width` (less 2 for the selection marker). */
export function problemCells(p: ProblemRow, width: number, root?: string): { severity: string; code: string; where: string; message: string } {
  const file = p.file === undefined ? '' : root && p.file.startsWith(root + '/') ? p.file.slice(root.length + 1) : p.file;
  const whereRaw = `${file}${p.line !== undefined ? `:${p.line}` : ''}${p.seq !== undefined ? ` #${p.seq}` : ''}` || (p.sessionId ?? '');
  const severity = p.severity === 'error' ? 'E' : 'W';
  const code = padEnd(truncate(sanitizeInline(p.code), CODE_WIDTH), CODE_WIDTH);
  const room = Math.max(8, width - 2 - 2 - CODE_WIDTH - 1);
  const whereWidth = Math.max(8, Math.min(48, Math.floor(room * 0.5))); // a column: messages line up
  const where = padEnd(truncate(sanitizeInline(whereRaw), whereWidth), whereWidth);
  const message = truncate(sanitizeInline(p.message), Math.max(1, room - whereWidth - 2));
  return { severity, code, where, message };
}

export function ProblemsView(props: ProblemsViewProps): React.JSX.Element {
  const tone = useTone();
  const listHeight = Math.max(1, props.height - 1);
  const win = props.selected < 0 ? { rows: props.rows.slice(props.top, props.top + listHeight), top: props.top } : visibleWindow(props.rows, props.selected, listHeight, props.top);
  const errors = props.rows.filter((r) => r.severity === 'error').length;
  const counts = `${props.rows.length} problem${props.rows.length === 1 ? '' : 's'} · ${errors} error${errors === 1 ? '' : 's'}`;
  // nothing highlighted: Problems was entered on a session without problems, and the keys act on no other session until j/k choose one
  const summary =
    props.rows.length === 0 ? 'no problems: every file read cleanly and the audit found nothing' : props.selected < 0 ? `${counts} · none for the selected session: j/k choose one` : `${counts} · Enter opens the session at that event`;
  return (
    <Box flexDirection="column" height={props.height} width={props.width} overflow="hidden">
      <Text dimColor wrap="truncate-end">
        {truncate(summary, props.width)}
      </Text>
      {win.rows.map((p, i) => {
        const c = problemCells(p, props.width, props.root);
        const selected = win.top + i === props.selected;
        return (
          <Text key={win.top + i} inverse={selected} wrap="truncate-end">
            {selected ? '▶ ' : '  '}
            <Text color={tone(p.severity === 'error' ? 'red' : 'yellow')} bold>
              {c.severity}
            </Text>{' '}
            <Text color={tone(p.severity === 'error' ? 'red' : 'yellow')}>{c.code}</Text> <Text color={tone('cyan')}>{c.where}</Text>
            {'  '}
            {c.message}
          </Text>
        );
      })}
    </Box>
  );
}
