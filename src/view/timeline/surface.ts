// Timeline, over the views after T in Turns: the highlighted row's turn as
// bars on one time axis (timeline-layout.ts), drawn from the log each frame
// so a live turn grows. A large turn is folded in the background first (the
// surface answers its workDone). Enter reads the bar's event in the reader;
// Esc closes.
import { ch, either, flag, type Binding, type Handler } from '../app/binding.js';
import { moveCursor, type Move } from '../app/list-cursor.js';
import { frameOf, step, withStatus, type AppAction, type AppState, type Step } from '../app/state.js';
import { startWork } from '../app/commands.js';
import { workBusy } from '../app/verdicts.js';
import type { App, SurfaceModule } from '../app/surface.js';
import { hasTarget, type TargetOf } from '../app/target.js';
import { visibleWindow } from '../app/window.js';
import { moveKeys } from '../app/view-keys.js';
import type { World } from '../app/world.js';
import { sanitizeInline } from '../text/sanitize.js';
import { FOLD_AT_ONCE, rowSeq, timelineLayout, timelineOf, turnAround, turnNode, unfolded } from './timeline-of.js';
import { timelineBody } from './timeline-size.js';

/** The rows on screen now (none: the turn cannot be read). */
function rowsOf(s: AppState, world: World) {
  const t = s.timeline!;
  const session = world.session(t.key);
  if (!session) return [];
  const read = timelineOf(world, session, t.turnSeq);
  return read.ok ? timelineLayout(read, frameOf(s).width).rows : [];
}

const move = (m: Move): Handler => (s, world) => {
  const t = s.timeline!;
  return step({ ...s, timeline: { ...t, cursor: moveCursor(t.cursor, m, rowsOf(s, world).length, timelineBody(s)) } });
};

const close = (s: AppState): AppState => ({ ...s, timeline: undefined, view: s.timeline!.from });

/** Enter: the bar's event in the reader. */
const open: Handler = (s, world, app) => {
  const t = s.timeline!;
  const session = world.session(t.key);
  if (!session) return withStatus(s, 'the session is no longer in the store', 'error');
  const seq = rowSeq(rowsOf(s, world)[t.cursor], t.turnSeq);
  const found = turnNode(world, session, t.turnSeq);
  const e = seq === undefined || 'error' in found ? undefined : found.data.event(seq);
  if (!e) return withStatus(s, 'nothing to read on this row', 'error');
  return app.read(s, world, { in: session.id, event: e });
};

const KEYS: readonly Binding[] = [
  ...moveKeys(move),
  { keys: 'Enter', help: "read the bar's event full screen (a call's tool/call, a request's assistant message, a step's step/start)", hint: 'read', match: flag('return'), run: open },
  { keys: 'Esc / q', help: 'close the timeline, back to Turns', hint: 'back', match: either(flag('escape'), ch('q')), run: (s) => step(close(s)) },
  { keys: '?', help: 'these keys', hint: 'help', match: ch('?'), run: (s, w, app) => app.help(s, w) },
];

/** T in Turns: the timeline of the highlighted row's turn. */
export function openTimeline(s: AppState, world: World, app: App): Step {
  const t = app.target(s, world);
  if (!hasTarget(t)) return withStatus(s, `timeline: ${t.none}`, 'error');
  if (t.seq === undefined) return withStatus(s, 'timeline: no event on this row', 'error');
  const node = turnAround(world, t.session, t.seq);
  if (!node) return withStatus(s, 'timeline: this row is not inside a turn', 'error');
  // a large turn is folded in the background first (its progress on the title bar, Esc cancels)
  if (unfolded(t.session, node) > FOLD_AT_ONCE) {
    const busy = workBusy(s);
    if (busy) return withStatus(s, `timeline: ${busy}`, 'error');
    const work = startWork({ ...s, timelineFor: { key: t.key, turnSeq: node.seq } }, 'timeline', `${sanitizeInline(t.session.id)} turn ${node.turn}`);
    return step(work.state, [{ type: 'timeline', session: t.session, turnSeq: node.seq, work: work.id }]);
  }
  return showTimeline(s, world, t.key, node.seq);
}

function showTimeline(s: AppState, world: World, key: string, turnSeq: number): Step {
  const session = world.session(key);
  const read = session ? timelineOf(world, session, turnSeq) : { ok: false as const, error: 'the session is no longer in the store' };
  if (!read.ok) return withStatus({ ...s, timelineFor: undefined }, `timeline: ${sanitizeInline(read.error)}`, 'error');
  return step({ ...s, timeline: { key, turnSeq, cursor: 0, top: 0, from: s.view }, timelineFor: undefined, help: undefined, menu: undefined });
}

/** The background fold is done: the surface shows it, if it is still the work under way. */
function timelineDone(s: AppState, a: AppAction, world: World): Step | undefined {
  if (a.type !== 'workDone' || a.result.kind !== 'timeline' || s.work?.id !== a.id || !s.timelineFor) return undefined;
  return showTimeline({ ...s, work: undefined }, world, s.timelineFor.key, s.timelineFor.turnSeq);
}

function timelineTarget(s: AppState, world: World): TargetOf {
  const t = s.timeline!;
  const session = world.session(t.key);
  if (!session) return { none: 'the session is no longer in the store' };
  return { key: t.key, session, gone: false, seq: rowSeq(rowsOf(s, world)[t.cursor], t.turnSeq) };
}

export const TIMELINE: SurfaceModule<'timeline'> = {
  id: 'timeline',
  title: 'Timeline',
  active: (s) => Boolean(s.timeline),
  keys: () => KEYS,
  open: openTimeline,
  answer: (s, a, world) => timelineDone(s, a, world),
  target: timelineTarget,
  // the window follows the cursor (a resize, and a live turn's rows growing under it)
  normalize: (s, world) => {
    const t = s.timeline;
    if (!t) return s;
    const rows = rowsOf(s, world);
    const cursor = Math.min(Math.max(0, t.cursor), Math.max(0, rows.length - 1));
    const top = visibleWindow(rows, cursor, timelineBody(s), t.top).top;
    return cursor === t.cursor && top === t.top ? s : { ...s, timeline: { ...t, cursor, top } };
  },
};
