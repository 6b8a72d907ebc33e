// The Problems view's commands: the selection follows the highlighted problem
// (app/reducer.ts normalize), Enter opens its event. Pure steps of the reducer.
import { openTarget } from '../app/commands.js';
import { problemsListHeight } from '../app/layout.js';
import { type Command } from '../app/keymap.js';
import { isMove, moveCursor } from '../app/list-cursor.js';
import type { World } from '../app/world.js';
import { type AppState, type Step, layoutOf, step } from '../app/state.js';

export function problemsCommand(s: AppState, cmd: Command, world: World): Step {
  const rows = world.problems();
  if (isMove(cmd)) {
    // the selection follows the highlighted problem (normalize): target() reads the row
    const from = s.problems.hint < 0 && (cmd === 'down' || cmd === 'up') ? (cmd === 'down' ? -1 : 1) : s.problems.hint;
    const hint = moveCursor(from, cmd, rows.length, problemsListHeight(layoutOf(s).view));
    return step({ ...s, problems: { ...s.problems, hint } });
  }
  switch (cmd) {
    case 'open':
      return openTarget(s, world);
    case 'back':
      return step({ ...s, view: 'sessions' });
    default:
      return step(s);
  }
}
