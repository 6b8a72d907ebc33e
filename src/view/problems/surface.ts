// The Problems view: every diagnostic of the root, worst first. The
// selection follows the highlighted problem (its session), and every action
// means that problem's session at its event.
import { openTarget } from '../app/commands.js';
import type { Handler } from '../app/binding.js';
import { moveCursor, type Move } from '../app/list-cursor.js';
import { select, step, type AppState } from '../app/state.js';
import type { App, ViewModule } from '../app/surface.js';
import type { TargetOf } from '../app/target.js';
import { needsTarget } from '../app/verdicts.js';
import { viewKeys } from '../app/view-keys.js';
import { visibleWindow } from '../app/window.js';
import type { World } from '../app/world.js';
import { sanitizeInline } from '../text/sanitize.js';
import { highlightedProblem } from './highlighted.js';

/** The Problems list's rows: the view less its summary line. */
const listHeight = (s: AppState, app: App): number => Math.max(1, app.layout(s).view - 1);

const move = (m: Move): Handler => (s, world, app) => {
  const rows = world.problems();
  // nothing highlighted: j / k choose the first / last
  const from = s.problems.hint < 0 && (m === 'down' || m === 'up') ? (m === 'down' ? -1 : 1) : s.problems.hint;
  const hint = moveCursor(from, m, rows.length, listHeight(s, app));
  return step({ ...s, problems: { ...s.problems, hint } });
};

const KEYS = viewKeys({
  move,
  open: { help: "open the problem's session in Turns at that event", menu: 'open at this event', run: openTarget, disabled: needsTarget },
  back: { help: 'back to Sessions', hint: 'back', run: (s, _w, app) => step({ ...s, view: app.home }) },
  own: [],
});

/** The window follows the highlighted problem, and the selection its session (a row of a file that is no session leaves it be: the target says so). */
function followProblem(s0: AppState, world: World, app: App): AppState {
  let s = s0;
  const rows = world.problems();
  const i = highlightedProblem(s, rows);
  const top = i < 0 ? Math.min(s.problems.top, Math.max(0, rows.length - 1)) : visibleWindow(rows, i, listHeight(s, app), s.problems.top).top;
  if (i !== s.problems.hint || top !== s.problems.top) s = { ...s, problems: { hint: i, top } };
  const key = rows[i]?.sessionKey;
  if (key !== undefined && key !== s.selection && world.session(key)) s = select(s, key, world);
  return s;
}

/** The highlighted problem's session, at its event. */
function problemTarget(s: AppState, world: World): TargetOf {
  const rows = world.problems();
  const row = rows[highlightedProblem(s, rows)];
  if (!row) return { none: rows.length ? 'no problem highlighted (j/k choose one)' : 'no problems' };
  const session = row.sessionKey !== undefined ? world.session(row.sessionKey) : undefined;
  if (!session || row.sessionKey === undefined) return { none: `${sanitizeInline(row.file ?? row.code)} is not a loaded session` };
  return { key: row.sessionKey, session, gone: false, seq: row.seq };
}

export const PROBLEMS: ViewModule<'problems'> = {
  id: 'problems',
  title: 'Problems',
  view: true,
  explainsDisabled: true,
  eventRows: true,
  active: (s) => s.view === 'problems',
  keys: () => KEYS,
  normalize: followProblem,
  target: problemTarget,
  // Problems opens at the selected session's worst problem; without one nothing is highlighted (the selection stays)
  enter: (s, world) => ({ ...s, problems: { ...s.problems, hint: world.problems().findIndex((r) => r.sessionKey !== undefined && r.sessionKey === s.selection) } }),
};
