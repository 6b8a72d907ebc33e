// The Sessions view: every session as a row (filtered, sorted, in a project
// scope), the selection on one of them. Its keys (/ filter, s sort, p scope)
// around the common ones, the clamp of its window, and its target: the
// selected session as a whole.
import { openTarget } from '../app/commands.js';
import type { Move } from '../app/list-cursor.js';
import { ch, type Handler } from '../app/binding.js';
import { step, withStatus } from '../app/state.js';
import type { ViewModule } from '../app/surface.js';
import { selectionTarget } from '../app/target.js';
import { needsTarget } from '../app/verdicts.js';
import { viewKeys } from '../app/view-keys.js';
import { sanitizeInline } from '../text/sanitize.js';
import { textField } from '../text/text-field.js';
import { nextOrder } from './session-list.js';
import { moveSessions, pointSessionsRow } from './selection.js';

const move = (m: Move): Handler => (s, world, app) => moveSessions(s, m, world, app);

const toggleScope: Handler = (s, world) => {
  if (!world.scope) return withStatus(s, 'no project scope here: every session of this folder is shown');
  return withStatus({ ...s, allProjects: !s.allProjects }, s.allProjects ? `this project only: ${sanitizeInline(world.scope.cwd)}` : 'all projects');
};

const KEYS = viewKeys({
  move,
  open: { help: 'open the session in Turns', menu: 'open in Turns', run: openTarget, disabled: needsTarget },
  back: { help: 'clear the filter', run: (s) => step(s.filter.text ? { ...s, filter: textField('') } : { ...s, status: undefined }) },
  own: [
    {
      keys: '/', help: 'filter with a query: words, tool:NAME, is:error, reason:KIND, is:open|fork|spawn|damaged, cwd:, id:, after:, before:, -term, "quoted words"', hint: 'filter', match: ch('/'),
      run: (s) => step({ ...s, filterEditing: true, filter: { ...s.filter, caret: [...new Intl.Segmenter().segment(s.filter.text)].length } }),
    },
    { keys: 's', help: 'cycle order: recent, created, id, threaded', hint: (s) => `sort:${s.order}`, match: ch('s'), run: (s) => step({ ...s, order: nextOrder(s.order) }) },
    { keys: 'p', help: "this project only / all projects (in dsh's own root, as its /resume)", match: ch('p'), run: toggleScope },
  ],
});

export const SESSIONS: ViewModule<'sessions'> = {
  id: 'sessions',
  title: 'Sessions',
  view: true,
  explainsDisabled: true,
  hasText: true,
  active: (s) => s.view === 'sessions',
  keys: () => KEYS,
  normalize: pointSessionsRow,
  // a fork's child outside the project shown: all projects are
  reveal: (s, world, session) => (!s.allProjects && !world.inScope(session) ? { state: { ...s, allProjects: true }, note: 'showing all projects: it is outside this one (p)' } : undefined),
  target: selectionTarget,
};
