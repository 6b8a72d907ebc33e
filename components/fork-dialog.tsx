// The fork dialog: a typed refusal (code + the store's message, with `b` to
// jump to the nearest boundary), or the confirmation with an editable child id.
import { Box, Text } from 'ink';
import React from 'react';
import { fit, sanitizeInline, truncate } from '../src/view/sanitize.js';
import { wrapText } from '../src/view/text-wrap.js';
import { useTone } from './theme.js';
import type { ForkFlowState, ForkProblem } from './use-fork-flow.js';

export interface ForkDialogProps {
  state: Exclude<ForkFlowState, { kind: 'closed' }>;
  width: number;
  height: number;
}

/** `SessionForkError OPEN_TURN: cannot fork …` — exactly the store's code and message. */
export function problemText(p: ForkProblem): string {
  const name = p.code === 'ERROR' ? 'Error' : `SessionForkError ${p.code}`;
  return `${name}: ${sanitizeInline(p.message)}`;
}

const refusedLines = (state: Extract<ForkFlowState, { kind: 'refused' }>, inner: number, height: number): string[] =>
  wrapText(problemText(state.error), inner, Math.max(1, height - 4));

/** Rows the dialog takes (borders included) at this width, within `maxHeight`. */
export function forkDialogHeight(state: Exclude<ForkFlowState, { kind: 'closed' }>, width: number, maxHeight: number): number {
  const inner = Math.max(10, width - 4);
  if (state.kind === 'refused') return 4 + refusedLines(state, inner, maxHeight).length;
  return 8 + (state.error ? wrapText(problemText(state.error), inner, 3).length : 0);
}

function Field(props: { label: string; value: string; width: number; cursor?: boolean }): React.JSX.Element {
  const labelWidth = 12;
  const room = Math.max(1, props.width - labelWidth - (props.cursor ? 1 : 0));
  // an editable value keeps its end (where the cursor is) in view
  const v = props.cursor && props.value.length > room ? '…' + props.value.slice(-(room - 1)) : truncate(props.value, room);
  return (
    <Text wrap="truncate-end">
      <Text dimColor>{fit(props.label, labelWidth)}</Text>
      <Text bold>{v}</Text>
      {props.cursor ? <Text inverse> </Text> : null}
    </Text>
  );
}

export function ForkDialog({ state, width, height }: ForkDialogProps): React.JSX.Element {
  const tone = useTone();
  const inner = Math.max(10, width - 4);
  if (state.kind === 'refused') {
    const lines = refusedLines(state, inner, height);
    const jump = state.jumpSeq !== undefined ? `b nearest boundary (seq ${state.jumpSeq}) in Turns · ` : '';
    return (
      <Box flexDirection="column" borderStyle="round" borderColor={tone('red')} width={width} paddingX={1}>
        <Text bold color={tone('red')} wrap="truncate-end">
          {truncate(`Fork refused: ${sanitizeInline(state.source.id)}`, inner)}
        </Text>
        {lines.map((l, i) => (
          <Text key={i} color={tone('red')} wrap="truncate-end">
            {l}
          </Text>
        ))}
        <Text dimColor wrap="truncate-end">
          {truncate(`${jump}Esc close · nothing written`, inner)}
        </Text>
      </Box>
    );
  }
  const boundary = state.cutSeq === undefined ? 'none (empty log)' : `seq ${state.cutSeq}${state.boundary === undefined ? ' (whole log)' : ''}`;
  const err = state.error ? wrapText(problemText(state.error), inner, 3) : [];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone('cyan')} width={width} paddingX={1}>
      <Text bold wrap="truncate-end">
        Fork session
      </Text>
      <Field label="source" value={sanitizeInline(state.source.id)} width={inner} />
      <Field label="boundary" value={boundary} width={inner} />
      <Field label="seedLength" value={String(state.seedLength)} width={inner} />
      <Field label="child id" value={sanitizeInline(state.childId)} width={inner} cursor />
      {err.map((l, i) => (
        <Text key={i} color={tone('red')} wrap="truncate-end">
          {l}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {truncate(`Enter fork · Esc cancel · type to edit the id · Backspace deletes`, inner)}
      </Text>
    </Box>
  );
}
