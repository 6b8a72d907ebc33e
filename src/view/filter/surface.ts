// The Sessions filter prompt (`/` in Sessions): these keys while it is typed,
// anything else edits the query (text-field.ts); the list moves under it.
import { bindingFor, flag, textKey, type Binding, type Handler } from '../app/binding.js';
import { step } from '../app/state.js';
import type { SurfaceModule } from '../app/surface.js';
import { editField, textField } from '../text/text-field.js';

/** ↑ ↓ PgUp PgDn move the list under the prompt: they run the view's own keys. */
const move: Handler = (s, world, app, p) => {
  const b = bindingFor(app.surface(s.view).keys(s), p);
  return b?.run ? b.run(s, world, app, p) : step(s);
};

const KEYS: readonly Binding[] = [
  { keys: 'Enter', help: 'keep the filter and leave the prompt', hint: 'keep filter', match: flag('return'), run: (s) => step({ ...s, filterEditing: false }) },
  { keys: 'Esc', help: 'clear the filter and leave the prompt', hint: 'clear', match: flag('escape'), run: (s) => step({ ...s, filter: textField(''), filterEditing: false }) },
  { keys: '↑', help: 'move up in the list while typing', hint: 'move', hintKeys: '↑↓', match: flag('upArrow'), run: move },
  { keys: '↓', help: 'move down in the list while typing', match: flag('downArrow'), run: move },
  { keys: 'PgUp', help: 'page up', match: flag('pageUp'), run: move },
  { keys: 'PgDn', help: 'page down', match: flag('pageDown'), run: move },
  { keys: '← / →', help: 'move the caret (text keys: see below)', hint: 'caret', hintKeys: '←→', match: textKey },
];

export const FILTER: SurfaceModule<'filter'> = {
  id: 'filter',
  title: 'Filter prompt',
  hasText: true,
  prompt: true,
  active: (s) => s.filterEditing,
  keys: () => KEYS,
  other: (s, _world, _app, p) => {
    const field = editField(s.filter, p);
    return step(field && field !== s.filter ? { ...s, filter: field } : s);
  },
};
