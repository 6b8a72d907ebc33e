// The fork dialog: a typed refusal (code + the store's message, with `b` to
// jump to the nearest boundary), or the confirmation of the pinned cut with an
// editable child id (a caret, readline keys).
import { Box, Text } from 'ink';
import React from 'react';
import { boundaryLabel, confirmNotes, refusedLines, type Dialog } from '../../src/view/dialog/fork-dialog-state.js';
import { displayWidth, fit, pathTail, sanitizeInline, truncate } from '../../src/view/text/sanitize.js';
import { caretParts, type TextField } from '../../src/view/text/text-field.js';
import { wrapText } from '../../src/view/text/text-wrap.js';
import { useTone } from '../app/theme.js';

export interface ForkDialogProps {
  dialog: Dialog;
  /** the root folder: the source file is shown relative to it */
  root?: string;
  /** the live session's length now (the pinned source may be an older instance of its file) */
  liveLength?: number;
  width: number;
  height: number;
}

const LABEL = 12;

function Field(props: { label: string; value: string; width: number }): React.JSX.Element {
  return (
    <Text wrap="truncate-end">
      <Text dimColor>{fit(props.label, LABEL)}</Text>
      <Text bold>{truncate(props.value, Math.max(1, props.width - LABEL))}</Text>
    </Text>
  );
}

/** The child id with its caret; a long id keeps the caret in view. */
function IdField(props: { field: TextField; width: number }): React.JSX.Element {
  const { before, at, after } = caretParts(props.field);
  const room = Math.max(2, props.width - LABEL - 1);
  let b = sanitizeInline(before);
  while (b.length > 0 && displayWidth(b) > room - 1) b = b.slice(1);
  return (
    <Text wrap="truncate-end">
      <Text dimColor>{fit('child id', LABEL)}</Text>
      <Text bold>{b}</Text>
      <Text inverse>{sanitizeInline(at)}</Text>
      <Text bold>{truncate(sanitizeInline(after), Math.max(0, room - displayWidth(b) - 1))}</Text>
    </Text>
  );
}

export function ForkDialog({ dialog: d, root, liveLength, width, height }: ForkDialogProps): React.JSX.Element {
  const tone = useTone();
  const inner = Math.max(10, width - 4);
  if (d.kind === 'refused') {
    const lines = refusedLines(d, inner, height);
    const jump = d.jumpSeq !== undefined ? `b nearest boundary (seq ${d.jumpSeq}) in Turns · ` : '';
    return (
      <Box flexDirection="column" borderStyle="round" borderColor={tone('red')} width={width} paddingX={1}>
        <Text bold color={tone('red')} wrap="truncate-end">
          {truncate(`Fork refused: ${sanitizeInline(d.sourceId)}`, inner)}
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
  const boundary = boundaryLabel(d, liveLength);
  // the file pins the instance: two sessions with one id are told apart by it (its end kept when cut)
  const file = d.source.file === undefined ? 'in memory' : root && d.source.file.startsWith(root + '/') ? d.source.file.slice(root.length + 1) : d.source.file;
  const notes = confirmNotes(d).flatMap((t, i) => wrapText(t, inner, 3).map((l) => ({ l, error: i === 0 && d.error !== undefined })));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone('cyan')} width={width} paddingX={1}>
      <Text bold wrap="truncate-end">
        Fork session
      </Text>
      <Field label="source" value={sanitizeInline(d.source.id)} width={inner} />
      <Field label="file" value={pathTail(sanitizeInline(file), inner - LABEL)} width={inner} />
      <Field label="boundary" value={boundary} width={inner} />
      <Field label="seedLength" value={String(d.seedLength)} width={inner} />
      <IdField field={d.childId} width={inner} />
      {notes.map((n, i) => (
        <Text key={i} color={n.error ? tone('red') : tone('yellow')} wrap="truncate-end">
          {n.l}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {truncate(`Enter fork · Esc cancel · type to edit the id (←→ Home End, Ctrl-U clears)`, inner)}
      </Text>
    </Box>
  );
}
