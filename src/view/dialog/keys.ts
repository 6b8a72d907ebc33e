// The fork dialog's keys: confirming (the child id is a text field) and the
// refusal (the store's typed error, b to the nearest boundary).
import { ch, flag, type Binding } from '../app/binding.js';

export type ConfirmCommand = 'fork' | 'cancel' | 'caret' | 'clear';

export const CONFIRM_KEYS: readonly Binding<ConfirmCommand>[] = [
  { keys: 'Enter', command: 'fork', help: 'write the child (atomically; the parent is never touched)', hint: 'fork', match: flag('return') },
  { keys: 'Esc', command: 'cancel', help: 'cancel: nothing is written', hint: 'cancel', match: flag('escape') },
  { keys: '← / →', command: 'caret', help: 'move the caret in the child id', hint: 'caret', hintKeys: '←→', match: () => false },
  { keys: 'Ctrl-U', command: 'clear', help: 'delete to the start of the child id', hint: 'clear', match: () => false },
];

export type RefusedCommand = 'jump' | 'close' | 'quit';

export const REFUSED_KEYS: readonly Binding<RefusedCommand>[] = [
  {
    keys: 'b', command: 'jump', help: 'go to the nearest boundary, where a fork is allowed', match: ch('b'),
    hint: (s) => (s.dialog?.kind === 'refused' && s.dialog.jumpSeq !== undefined ? `boundary (seq ${s.dialog.jumpSeq})` : 'boundary'),
    disabled: (s) => (s.dialog?.kind === 'refused' && s.dialog.jumpSeq !== undefined ? undefined : 'no boundary to go to'),
  },
  { keys: 'Esc / Enter', command: 'close', help: 'close', hint: 'close', hintKeys: 'Esc', match: (_i, k) => Boolean(k.escape || k.return) },
  { keys: 'q', command: 'quit', help: 'quit', hint: 'quit', match: ch('q') },
];
