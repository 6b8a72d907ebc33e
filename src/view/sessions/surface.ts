// The Sessions view: every session as a row (filtered, sorted, in a project
// scope), the selection on one of them. Its keys (/ filter, s sort, p scope)
// around the common ones, the clamp of its window, and its target: the
// selected session as a whole.
import { openTarget } from '../app/commands.js';
import type { Move } from '../app/list-cursor.js';
import { ch, type Handler } from '../app/binding.js';
import { step, withStatus, type AppState } from '../app/state.js';
import type { ViewModule } from '../app/surface.js';
import type { World } from '../app/world.js';
import type { Session } from '../../session/session.js';
import { selectionTarget } from '../app/target.js';
import { needsTarget } from '../app/verdicts.js';
import { viewKeys } from '../app/view-keys.js';
import { sanitizeInline } from '../text/sanitize.js';
import { textField } from '../text/text-field.js';
import { filterSessions, nextOrder } from './session-list.js';
import { listItemOf } from '../../session/list-item.js';
import { moveSessions, pointSessionsRow } from './selection.js';
import { sessionsReads } from './reads.js';

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
      keys: '/', help: 'filter with a query: words, tool:NAME, is:error, reason:KIND, file:GLOB, is:failed-edit, is:open|fork|spawn|damaged, cwd:, id:, after:, before:, -term, "quoted words"', hint: 'filter', match: ch('/'),
      run: (s) => step({ ...s, filterEditing: true, filter: { ...s.filter, caret: [...new Intl.Segmenter().segment(s.filter.text)].length } }),
    },
    { keys: 's', help: 'cycle order: recent, created, id, threaded', hint: (s) => `sort:${s.order}`, match: ch('s'), run: (s) => step({ ...s, order: nextOrder(s.order) }) },
    { keys: 'p', help: "this project only / all projects (in dsh's own root, as its /resume)", match: ch('p'), run: toggleScope },
    { keys: 'd', help: "toggle the detail pane: the selected session's tokens (own and inherited) and its tokens per turn as a bar chart", hint: 'detail', match: ch('d'), run: (s) => step({ ...s, sessionsDetail: !s.sessionsDetail }) },
  ],
});

/** A fork's child the list would hide: the filter is cleared, all projects are shown, and the status says so. */
function reveal(s0: AppState, world: World, session: Session): { state: AppState; note: string } | undefined {
  let s = s0;
  const notes: string[] = [];
  if (s.filter.text && filterSessions([listItemOf(session)], s.filter.text).length === 0) {
    notes.push(`filter "${sanitizeInline(s.filter.text)}" cleared to show it`);
    s = { ...s, filter: textField(''), filterEditing: false };
  }
  if (!s.allProjects && !world.inScope(session)) {
    notes.push('showing all projects: it is outside this one (p)');
    s = { ...s, allProjects: true };
  }
  return notes.length ? { state: s, note: notes.join(' · ') } : undefined;
}

export const SESSIONS: ViewModule<'sessions'> = {
  id: 'sessions',
  title: 'Sessions',
  view: true,
  explainsDisabled: true,
  hasText: true,
  active: (s) => s.view === 'sessions',
  keys: () => KEYS,
  reads: sessionsReads,
  normalize: pointSessionsRow,
  reveal,
  target: selectionTarget,
  // the detail pane reads the selected session's turns: its load goes on while the pane shows it
  readsSelection: (s) => s.sessionsDetail,
};
