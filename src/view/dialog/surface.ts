// The fork dialog: confirming a fork (the child id is a text field), or the
// store's typed refusal with b to the nearest boundary.
import { ch, flag, textKey, type Binding } from '../app/binding.js';
import { step, withStatus, type AppState } from '../app/state.js';
import type { SurfaceModule } from '../app/surface.js';
import { editField } from '../text/text-field.js';
import { afterForkFailure, dialogHeight } from './fork-dialog-state.js';
import { openFork } from './open-fork.js';

const quit = { keys: 'q', help: 'quit', hint: 'quit', match: ch('q'), run: (s) => step(s, [{ type: 'exit' }]) } satisfies Binding;

export const CONFIRM_KEYS: readonly Binding[] = [
  {
    keys: 'Enter', help: 'write the child (atomically; the parent is never touched)', hint: 'fork', match: flag('return'),
    run: (s) => {
      const d = s.dialog;
      if (d?.kind !== 'confirm') return step(s);
      if (d.childId.text === '') return step({ ...s, dialog: { ...d, error: { code: 'INVALID_SESSION_ID', message: 'the child id is empty: type one' }, note: undefined } });
      // a pinned empty cut on a log that grew since: the store refuses (INVALID_BOUNDARY), nothing is written
      const boundary = d.cut ?? (d.source.length > 0 ? -1 : undefined);
      return step(s, [{ type: 'fork', source: d.source, boundary, childId: d.childId.text }]);
    },
  },
  { keys: 'Esc', help: 'cancel: nothing is written', hint: 'cancel', match: flag('escape'), run: (s) => withStatus({ ...s, dialog: undefined }, 'fork cancelled: nothing was written') },
  { keys: '← / →', help: 'move the caret in the child id', hint: 'caret', hintKeys: '←→', match: textKey },
  { keys: 'Ctrl-U', help: 'delete to the start of the child id', hint: 'clear', match: textKey },
];

/** Where b goes from a refusal: the nearest boundary (none: b is off). */
const jumpSeq = (s: AppState): number | undefined => (s.dialog?.kind === 'refused' ? s.dialog.jumpSeq : undefined);

export const REFUSED_KEYS: readonly Binding[] = [
  {
    keys: 'b', help: 'go to the nearest boundary, where a fork is allowed', match: ch('b'),
    hint: (s) => (jumpSeq(s) !== undefined ? `boundary (seq ${jumpSeq(s)})` : 'boundary'),
    disabled: (s) => (jumpSeq(s) !== undefined ? undefined : 'no boundary to go to'),
    run: (s, world, app) => {
      const seq = jumpSeq(s);
      return s.dialog?.kind === 'refused' && seq !== undefined ? step(app.openSession({ ...s, dialog: undefined }, world, s.dialog.sourceKey, seq)) : step(s);
    },
  },
  { keys: 'Esc / Enter', help: 'close', hint: 'close', hintKeys: 'Esc', match: (_i, k) => Boolean(k.escape || k.return), run: (s) => step({ ...s, dialog: undefined }) },
  quit,
];

export const DIALOG: SurfaceModule<'dialog'> = {
  id: 'dialog',
  title: 'Fork dialog',
  overlay: true,
  hasText: true,
  active: (s) => Boolean(s.dialog),
  keys: (s) => (s.dialog?.kind === 'refused' ? REFUSED_KEYS : CONFIRM_KEYS),
  // the store refused the fork while the dialog is open: it says why there (the id field kept)
  answer: (s, a, world) => (a.type === 'forkFailed' && s.dialog?.kind === 'confirm' ? step({ ...s, dialog: afterForkFailure(world, s.dialog, a.error) }) : undefined),
  docs: [{ when: 'at a boundary', keys: CONFIRM_KEYS }, { when: 'refused', keys: REFUSED_KEYS }],
  open: openFork,
  // under the view, which keeps the rest of the screen
  rowsUnder: (s, width, content) => (s.dialog ? dialogHeight(s.dialog, width, content) : undefined),
  // the child id's text (the refusal has no field)
  other: (s, _world, _app, p) => {
    const d = s.dialog;
    if (d?.kind !== 'confirm') return step(s);
    const field = editField(d.childId, p);
    if (!field || field === d.childId) return step(s);
    return step({ ...s, dialog: { ...d, childId: field, error: undefined } });
  },
};
