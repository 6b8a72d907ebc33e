// The Turns view: one session's turns as a tree (or the model history), the
// cursor on a row. Its keys (fold, history, detail, b, o, / n N) around the
// common ones, the tail -F follow of a growing log, and its target: the
// cursor's event, with the cut `f` forks at and `x` exports up to.
import type { Session } from '../../session/session.js';
import type { SessionEvent } from '../../session/events.js';
import { nearestBoundaries } from '../../session/log-facts.js';
import { ch, either, flag, type Handler } from '../app/binding.js';
import type { Move } from '../app/list-cursor.js';
import type { RowSeq } from '../app/window.js';
import type { App, ViewModule } from '../app/surface.js';
import { hasTarget, selectionTarget, type TargetOf } from '../app/target.js';
import { viewKeys } from '../app/view-keys.js';
import type { World } from '../app/world.js';
import { turnsReads, type TurnsData } from './reads.js';
import { type AppState, type Step, selectedSession, step, withStatus } from '../app/state.js';
import { autoDetail, cutOfRow, openTurns, setTurns, stepInto, stepOut, turnsStateOf, turnsView } from './turns-slice.js';
import { SessionStore } from '../../session/store.js';
import { SUBAGENT_TOOLS } from '../../session/subagents.js';
import { sanitizeInline } from '../text/sanitize.js';
import { textField } from '../text/text-field.js';
import type { EventAt } from './turn-detail.js';
import { seedDiffText } from './seed-diff.js';
import { partialPercent } from '../text/percent.js';
import { nearestBoundary, rowIndexForSeq, type TurnRow } from './turn-rows.js';
import { hasSomethingToClose, initialTurnsState, turnsReducer, type RowsView, type TurnsAction, type TurnsState } from './turns-state.js';
import { gotoMatch, turnsCursor } from './turns-cursor.js';

/** The cursor's event, with the cut a fork or an export takes. */
function turnsTarget(s: AppState, world: World, app: App): TargetOf {
  const base = selectionTarget(s, world);
  if (!hasTarget(base)) return base;
  const c = turnsCursor(s, world, app, base.session);
  if (!c) return base;
  if (c.t.showHistory) return { ...base, seq: c.row?.seq, cut: c.t.historyUpTo, history: true };
  return { ...base, seq: c.row?.seq, cut: c.row ? cutOfRow(c.row) : undefined };
}

/** The event a Turns row shows in the reader: its own, a turn's prompt. */
export function readerEvent(row: TurnRow, eventAt: EventAt): SessionEvent | undefined {
  if (row.kind === 'turn') {
    for (let seq = row.seq; seq <= row.lastSeq; seq++) {
      const e = eventAt(seq);
      if (e?.type === 'user/message') return e;
    }
  }
  return eventAt(row.seq);
}

/** Enter on a leaf / o: the selected event full screen. */
export function openReader(s: AppState, world: World, app: App): Step {
  const session = selectedSession(s, world);
  if (!session) return step(s);
  const data = world.turns(session);
  if (data.loading) return withStatus(s, 'this session is still loading');
  if (!data.ok) return withStatus(s, `cannot read this session: ${sanitizeInline(data.error ?? '')}`, 'error');
  const row = turnsCursor(s, world, app, session)?.row;
  if (!row || row.kind === 'boundary' || row.kind === 'inherited-divider') return withStatus(s, 'nothing to read on this row');
  const div = data.divergence;
  if (div && row.seq <= div.seq && div.seq <= row.lastSeq) return app.read(s, world, { in: session.id, title: `seq ${div.seq} differs from the parent's seed`, text: seedDiffText(div) });
  const e = row.entry ? data.event(row.entry.seq) : readerEvent(row, data.event);
  if (!e) return withStatus(s, 'nothing to read on this row');
  return app.read(s, world, { in: session.id, event: e });
}

/** b: the nearest boundary; on a boundary already, the next one. */
export function pickBoundary(session: Session) {
  return (rows: RowSeq<TurnRow>, index: number): number | undefined => {
    const row = rows.at(index);
    if (!row) return undefined;
    let b = nearestBoundary(session, row.lastSeq);
    if (b !== undefined && rowIndexForSeq(rows, b) === index) b = nearestBoundaries(session.facts, row.lastSeq).after;
    return b === undefined ? undefined : rowIndexForSeq(rows, b);
  };
}

/** What a Turns key works on: the session shown, its rows, its state. */
interface Shown {
  s: AppState;
  world: World;
  app: App;
  session: Session;
  key: string;
  data: Extract<TurnsData, { ok: true }>;
  t: TurnsState;
  view: (st: TurnsState) => RowsView;
  auto: boolean;
  apply(action: TurnsAction): Step;
}

/** A key on the session shown (nothing happens while none is, or its rows cannot be built). */
const onShown = (fn: (c: Shown) => Step): Handler => (s, world, app) => {
  const session = selectedSession(s, world);
  const key = s.selection;
  if (!session || key === undefined) return step(s);
  const data = world.turns(session);
  if (!data.ok) return step(s);
  const t = turnsStateOf(s, key);
  return fn({ s, world, app, session, key, data, t, view: turnsView(s, data, app), auto: autoDetail(s, app), apply: (action) => step(setTurns(s, key, turnsReducer(t, action))) });
};

const move = (m: Move): Handler =>
  onShown(({ data, t, view, apply }) => {
    const moved = apply({ type: m, view });
    // tail first: while the earlier turns are indexed, the top is the first turn read so far
    const p = data.partial;
    return m === 'top' && p && !t.showHistory ? withStatus(moved.state, `turn 1 is not read yet (${partialPercent(p)}% indexed): this is the earliest turn read so far`) : moved;
  });

/** Esc: a search read cancelled, the history or the detail pane closed, Compare again, else back where Turns was opened from. */
const back: Handler = (s, world, app) => {
  const leave = (): Step => step({ ...s, view: s.turnsFrom && s.turnsFrom !== 'turns' ? s.turnsFrom : app.home });
  const session = selectedSession(s, world);
  const key = s.selection;
  if (!session || key === undefined) return leave();
  const data = world.turns(session);
  if (!data.ok) return leave();
  const t = turnsStateOf(s, key);
  const auto = autoDetail(s, app);
  if (s.turnSearch?.scanning && s.turnSearch.key === key) return withStatus({ ...s, turnSearch: undefined }, 'search cancelled'); // (the app drops its read)
  if (hasSomethingToClose(t, auto)) return step(setTurns(s, key, turnsReducer(t, { type: 'back', autoDetail: auto })));
  const out = stepOut(s, world);
  if (out) return step(out); // stepped into a subagent's child: back to the call
  if (s.compare) return step({ ...s, compare: { ...s.compare, open: true } }); // opened from Compare: back to it
  return leave();
};

/** Enter folds a parent row; on a leaf it opens the event in the reader; on a subagent call it steps into the child. */
const open = onShown(({ s, world, app, session, t, view, auto, apply }) => {
  const row = turnsCursor(s, world, app, session)?.row;
  const n = row?.node;
  if (n?.kind === 'tool' && row?.part === undefined && !t.showHistory && SUBAGENT_TOOLS.has(n.name)) {
    const link = world.subagents(session).links.get(n.seq);
    if (link?.kind === 'linked') return step(stepInto(s, world, app, SessionStore.keyOf(link.child)));
    if (link) return withStatus(s, `no child to step into: ${link.kind === 'missing' ? 'the session this call started is not in this root' : 'several sessions could be the one this call started'}`, 'error');
  }
  if (row && (t.showHistory || !row.expandable) && row.kind !== 'boundary' && row.kind !== 'inherited-divider') return openReader(s, world, app);
  return apply({ type: 'toggle', view, autoDetail: auto });
});

const KEYS = viewKeys({
  move,
  open: { help: "fold / unfold the row; on a leaf, read its event full screen; on a subagent call, step into the child's turns (Esc comes back)", menu: 'open / fold the row', run: open },
  back: { help: 'close the history or the detail pane, else back to where Turns was opened from', hint: 'back', run: back },
  exportsUpTo: true,
  own: [
    { keys: 'b', help: 'jump to the nearest fork boundary', hint: 'boundary', match: ch('b'), run: onShown(({ session, view, apply }) => apply({ type: 'pick', view, pick: pickBoundary(session) })) },
    { keys: 't', help: 'toggle model history (what the model sees up to the selection)', hint: 'history', match: ch('t'), run: onShown(({ view, apply }) => apply({ type: 'toggleHistory', view })) },
    { keys: 'o', help: 'read the selected event full screen (scroll, wrap, / search, O opens $PAGER)', match: ch('o'), run: onShown(({ s, world, app }) => openReader(s, world, app)) },
    // empty, as / in less and vim
    { keys: '/', help: 'search this session (same query language as the filter)', match: ch('/'), run: onShown(({ s, key }) => step({ ...s, turnSearch: { key, field: textField(''), editing: true, seqs: [] } })) },
    { keys: 'n', help: 'next search match', match: ch('n'), run: onShown(({ s, world, app }) => gotoMatch(s, world, app, 1)) },
    { keys: 'N', help: 'previous search match', match: ch('N'), run: onShown(({ s, world, app }) => gotoMatch(s, world, app, -1)) },
    { keys: '→ / l', help: 'expand / go to the first child', match: either(flag('rightArrow'), ch('l')), run: onShown(({ view, apply }) => apply({ type: 'expand', view })) },
    { keys: '← / h', help: 'collapse / go to the parent', match: either(flag('leftArrow'), ch('h')), run: onShown(({ view, apply }) => apply({ type: 'collapse', view })) },
    { keys: 'e', help: 'expand all', match: ch('e'), run: onShown(({ apply }) => apply({ type: 'expandAll' })) },
    { keys: 'E', help: 'collapse all', match: ch('E'), run: onShown(({ view, apply }) => apply({ type: 'collapseAll', view })) },
    { keys: 'd', help: 'toggle the detail pane', match: ch('d'), run: onShown(({ auto, apply }) => apply({ type: 'toggleDetail', autoDetail: auto })) },
    { keys: 'T', help: "the selected row's turn as a timeline: its steps, model requests and tool calls as bars on its time axis", menu: 'timeline of this turn', match: ch('T'), run: (s, w, app) => app.timeline(s, w) },
  ],
});

/** tail -F: a cursor parked on the end by G follows a growing log; a large log opens on its end. */
function follow(s0: AppState, world: World, app: App): AppState {
  // nothing selected: the selection is pointed as the first tab points it
  if (s0.selection === undefined) return app.surface(app.home).normalize?.(s0, world, app) ?? s0;
  let s = s0;
  const key = s.selection!;
  let t = s.turns.get(key);
  const session = selectedSession(s, world);
  if (!t && session) {
    // a large log (opened tail first): its cursor starts on the end, and stays there as the earlier turns fill in above
    // (whether or not its index was done at once: the same place whatever the machine's speed)
    const data = world.turns(session);
    if (data.ok && data.indexed) s = setTurns(s, key, (t = turnsReducer(initialTurnsState(), { type: 'bottom', view: turnsView(s, data, app) })));
  }
  if (t?.follow && session) {
    const data = world.turns(session);
    if (data.ok) {
      const next = turnsReducer(t, { type: 'bottom', view: turnsView(s, data, app) });
      if (next.tree.key !== t.tree.key || next.tree.top !== t.tree.top) s = setTurns(s, key, next);
    }
  }
  return s;
}

export const TURNS: ViewModule<'turns'> = {
  id: 'turns',
  title: 'Turns',
  view: true,
  explainsDisabled: true,
  eventRows: true,
  hasText: true,
  active: (s) => s.view === 'turns',
  keys: () => KEYS,
  normalize: follow,
  reads: turnsReads,
  target: turnsTarget,
  found: (s, world, app) => gotoMatch(s, world, app, 1, true),
  enter: (s, _world, from) => ({ ...s, turnsFrom: from }),
  showsSession: true,
  openSession: openTurns,
  tabLabel: (s, world) => selectedSession(s, world)?.id,
};
