// The Sessions view's commands (move, filter, sort, scope). Pure steps of the
// reducer in app/reducer.ts.
import { openTarget } from '../app/commands.js';
import { sessionsListHeight } from '../app/layout.js';
import { type Command } from '../app/keymap.js';
import { isMove, moveCursor } from '../app/list-cursor.js';
import { sanitizeInline } from '../text/sanitize.js';
import { nextOrder } from './session-list.js';
import { textField } from '../text/text-field.js';
import type { World } from '../app/world.js';
import { type AppState, type Step, indexOfKey, layoutOf, select, sessionsRows, step, withStatus } from '../app/state.js';

export function moveSessions(s: AppState, cmd: Command, world: World): Step {
  const rows = sessionsRows(s, world);
  if (!rows.length) return step(s);
  const from = Math.max(0, indexOfKey(rows, s.selection, s.sessions.hint));
  const i = moveCursor(from, cmd, rows.length, sessionsListHeight(layoutOf(s).view));
  return step({ ...select(s, rows.at(i)!.key, world), sessions: { ...s.sessions, hint: i } });
}

export function sessionsCommand(s: AppState, cmd: Command, world: World): Step {
  if (isMove(cmd)) return moveSessions(s, cmd, world);
  switch (cmd) {
    case 'open':
      return openTarget(s, world);
    case 'filter':
      return step({ ...s, filterEditing: true, filter: { ...s.filter, caret: [...new Intl.Segmenter().segment(s.filter.text)].length } });
    case 'cycleSort':
      return step({ ...s, order: nextOrder(s.order) });
    case 'toggleScope':
      if (!world.scope) return withStatus(s, 'no project scope here: every session of this folder is shown');
      return withStatus({ ...s, allProjects: !s.allProjects }, s.allProjects ? `this project only: ${sanitizeInline(world.scope.cwd)}` : 'all projects');
    case 'back':
      if (s.filter.text) return step({ ...s, filter: textField('') });
      return step({ ...s, status: undefined });
    default:
      return step(s);
  }
}
