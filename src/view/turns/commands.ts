// The Turns view's commands (fold, history, detail, search matches, b) and the
// reader it opens. Pure steps of the reducer in app/reducer.ts.
import type { EventAt } from './turn-detail.js';
import type { Session } from '../../session/session.js';
import type { SessionEvent } from '../../session/events.js';
import { initialReaderState, readerDoc, eventReaderContent } from '../reader/reader-state.js';
import { seedDiffText } from './seed-diff.js';
import { partialPercent } from './turn-loading.js';
import { openToSeq, stepMatch } from './turn-search.js';
import { type Command } from '../app/keymap.js';
import type { RowSeq } from '../app/window.js';
import { sanitizeInline } from '../text/sanitize.js';
import { textField } from '../text/text-field.js';
import { nearestBoundaries } from '../../session/log-facts.js';
import { nearestBoundary, rowIndexForSeq, type TurnRow } from './turn-rows.js';
import { hasSomethingToClose, turnsReducer, type TurnsAction } from './turns-state.js';
import type { World } from '../app/world.js';
import { turnsCursor } from '../app/target.js';
import { type AppState, type Step, autoDetail, layoutOf, readerHeight, selectedSession, setTurns, step, turnsStateOf, turnsView, withStatus } from '../app/state.js';

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
export function openReader(s: AppState, world: World): Step {
  const session = selectedSession(s, world);
  if (!session) return step(s);
  const data = world.turns(session);
  if (data.loading) return withStatus(s, 'this session is still loading');
  if (!data.ok) return withStatus(s, `cannot read this session: ${sanitizeInline(data.error ?? '')}`, 'error');
  const row = turnsCursor(s, world, session)?.row;
  if (!row || row.kind === 'boundary' || row.kind === 'inherited-divider') return withStatus(s, 'nothing to read on this row');
  const div = data.divergence;
  let doc; // (readerDoc sanitises the title and the content)
  if (div && row.seq <= div.seq && div.seq <= row.lastSeq) doc = readerDoc(seedDiffText(div), `${session.id} · seq ${div.seq} differs from the parent's seed`);
  else {
    const e = row.entry ? data.event(row.entry.seq) : readerEvent(row, data.event);
    if (!e) return withStatus(s, 'nothing to read on this row');
    const { title, content } = eventReaderContent(e);
    doc = readerDoc(content, `${session.id} · ${title}`);
  }
  return step({ ...s, reader: initialReaderState(doc, layoutOf(s).width, readerHeight(s)), status: undefined });
}

/** n / N: the next (previous) match from the cursor; folded parents open to show it. */
export function gotoMatch(s: AppState, world: World, dir: 1 | -1, inclusive = false): Step {
  const t = s.turnSearch;
  const session = selectedSession(s, world);
  if (!t || !t.seqs.length || !session || t.key !== s.selection) return withStatus(s, 'no search here: / searches this session');
  const data = world.turns(session);
  if (!data.ok) return step(s);
  const ts = turnsStateOf(s, t.key);
  const row = turnsCursor(s, world, session)?.row;
  const from = row === undefined ? undefined : inclusive ? row.seq - dir : row.seq;
  const seq = stepMatch(t.seqs, from, dir);
  if (seq === undefined) return step(s);
  const expansion = openToSeq(ts.expansion, data.tree, seq);
  const opened = { ...ts, showHistory: false, expansion };
  const next = turnsReducer(opened, { type: 'pick', view: turnsView(s, data), pick: (rows) => rowIndexForSeq(rows, seq) });
  const k = t.seqs.indexOf(seq) + 1;
  return withStatus(setTurns(s, t.key, next), `match ${k} of ${t.seqs.length}: seq ${seq} (n/N)`);
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

export function turnsCommand(s: AppState, cmd: Command, world: World): Step {
  const session = selectedSession(s, world);
  const key = s.selection;
  const leave = (): Step => step({ ...s, view: s.turnsFrom && s.turnsFrom !== 'turns' ? s.turnsFrom : 'sessions' });
  if (cmd === 'back' && (!session || key === undefined)) return leave();
  if (!session || key === undefined) return step(s);
  const data = world.turns(session);
  if (!data.ok) return cmd === 'back' ? leave() : step(s);
  const t = turnsStateOf(s, key);
  const view = turnsView(s, data);
  const auto = autoDetail(s);
  const apply = (action: TurnsAction): Step => step(setTurns(s, key, turnsReducer(t, action)));
  switch (cmd) {
    case 'top': {
      // tail first: while the earlier turns are indexed, the top is the first turn read so far
      const p = data.partial;
      const moved = apply({ type: cmd, view });
      return p && !t.showHistory ? withStatus(moved.state, `turn 1 is not read yet (${partialPercent(p)}% indexed): this is the earliest turn read so far`) : moved;
    }
    case 'up':
    case 'down':
    case 'bottom':
    case 'pageUp':
    case 'pageDown':
    case 'expand':
    case 'collapse':
    case 'collapseAll':
    case 'toggleHistory':
      return apply({ type: cmd, view });
    case 'expandAll':
      return apply({ type: 'expandAll' });
    case 'open': {
      // Enter folds a parent row; on a leaf it opens the event in the reader
      const row = turnsCursor(s, world, session)?.row;
      if (row && (t.showHistory || !row.expandable) && row.kind !== 'boundary' && row.kind !== 'inherited-divider') return openReader(s, world);
      return apply({ type: 'toggle', view, autoDetail: auto });
    }
    case 'openReader':
      return openReader(s, world);
    case 'search':
      return step({ ...s, turnSearch: { key, field: textField(''), editing: true, seqs: [] } }); // empty, as / in less and vim
    case 'nextMatch':
    case 'prevMatch':
      return gotoMatch(s, world, cmd === 'nextMatch' ? 1 : -1);
    case 'toggleDetail':
      return apply({ type: 'toggleDetail', autoDetail: auto });
    case 'jumpBoundary':
      return apply({ type: 'pick', view, pick: pickBoundary(session) });
    case 'back':
      if (s.turnSearch?.scanning && s.turnSearch.key === key) return withStatus({ ...s, turnSearch: undefined }, 'search cancelled'); // (the app drops its read)
      if (hasSomethingToClose(t, auto)) return apply({ type: 'back', autoDetail: auto });
      if (s.compare) return step({ ...s, compare: { ...s.compare, open: true } }); // opened from Compare: back to it
      return leave();
    default:
      return step(s);
  }
}
