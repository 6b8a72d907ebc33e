// c on any view: the marked session (left) against the target (right), from
// their common ancestor; a large log's comparison is made in the background
// (Compare answers its workDone).
import { compareSessions, type Comparison } from '../../session/compare.js';
import { startWork } from '../app/commands.js';
import { step, withStatus, type AppAction, type AppState, type Step } from '../app/state.js';
import type { App } from '../app/surface.js';
import type { World } from '../app/world.js';
import { compareDisabled } from '../app/verdicts.js';
import { hasTarget } from '../app/target.js';
import { sanitizeInline } from '../text/sanitize.js';
import { compareRows } from '../comparison/compare-model.js';
import { compareBody } from './compare-size.js';
import { initialCompareState } from './compare-state.js';

/** c: the marked session (left) against the target (right), from their common ancestor (a large log's in the background). */
export function openCompare(s: AppState, world: World, app: App): Step {
  const why = compareDisabled(s, world, app);
  const t = app.target(s, world);
  if (why || !hasTarget(t)) return withStatus(s, `compare: ${why ?? 'no session selected'}`, 'error');
  const left = world.session(s.mark!)!;
  if (world.indexed(left) || world.indexed(t.session)) {
    const work = startWork(s, 'compare', `${sanitizeInline(left.id)} with ${sanitizeInline(t.session.id)}`);
    return step(work.state, [{ type: 'compare', left, right: t.session, work: work.id }]);
  }
  let comparison: Comparison;
  try {
    comparison = compareSessions(left, t.session, world.sessions());
  } catch (e) {
    return withStatus(s, `compare failed: ${sanitizeInline(e instanceof Error ? e.message : String(e))}`, 'error');
  }
  return showComparison(s, comparison);
}

/** The Compare surface over the current view, on a comparison made (now, or by the background). */
function showComparison(s: AppState, comparison: Comparison): Step {
  const rows = compareRows(comparison);
  return step({ ...s, compare: { comparison, rows, cs: initialCompareState(rows, compareBody(s)), open: true, from: s.view }, help: undefined, menu: undefined });
}


/** The background comparison is made: Compare shows it, if it is still the work under way. */
export function comparisonDone(s: AppState, a: AppAction): Step | undefined {
  if (a.type !== 'workDone' || a.result.kind !== 'compare' || s.work?.id !== a.id) return undefined;
  return showComparison({ ...s, work: undefined }, a.result.comparison);
}
