// The app's commands on the selection in each view (Sessions, Lineage, Problems,
// Turns) and the ones that open a surface (fork dialog, reader, Compare, search
// match): pure steps of the reducer in reducer.ts. Every action reads target().
import { SessionStore } from '../../session/store.js';
import { compareSessions, type Comparison } from '../../session/compare.js';
import { resumeCommand } from '../../session/resume-command.js';
import { layoutOf as fileLayoutOf } from '../../storage/layout.js';
import { compareRows } from '../compare/compare-model.js';
import { initialCompareState } from '../compare/compare-state.js';
import type { Session } from '../../session/session.js';
import { lineageListHeight, problemsListHeight, sessionsListHeight } from './layout.js';
import { openForkDialog } from '../dialog/fork-dialog-state.js';
import type { SessionEvent } from '../../session/events.js';
import { initialReaderState, readerDoc, eventReaderContent } from '../reader/reader-state.js';
import { seedDiffText } from '../turns/seed-diff.js';
import { openToSeq, stepMatch } from '../turns/turn-search.js';
import { type Command } from './keymap.js';
import { isMove, moveCursor } from './list-cursor.js';
import type { LineageRow } from '../lineage/lineage-layout.js';
import { sanitizeInline } from '../text/sanitize.js';
import { nextOrder } from '../sessions/session-list.js';
import { textField } from '../text/text-field.js';
import { nearestBoundaries } from '../../session/log-facts.js';
import { nearestBoundary, rowIndexForSeq, type TurnRow } from '../turns/turn-rows.js';
import { hasSomethingToClose, turnsReducer, type TurnsAction } from '../turns/turns-state.js';
import type { World } from './world.js';
import { forkVerdict, resumeDisabled, compareDisabled } from './verdicts.js';
import { hasTarget, target, turnsCursor } from './target.js';
import { type AppState, type Step, autoDetail, compareBody, indexOfKey, layoutOf, openTurns, readerHeight, select, selectedSession, sessionsRows, setTurns, step, turnsStateOf, turnsView, withStatus } from './state.js';

/** f: the fork dialog for the target at its cut (a store refusal opens as the refusal dialog, with b to a boundary). */
export function forkCommand(s: AppState, world: World): Step {
  const v = forkVerdict(s, world);
  if (!v.session || (v.disabled && !v.storeRefusal)) return withStatus(s, `${v.label}: ${v.disabled ?? 'no session selected'}`, 'error');
  if (v.problem) return step({ ...s, dialog: { kind: 'refused', sourceKey: SessionStore.keyOf(v.session), sourceId: v.session.id, error: v.problem } });
  return step({ ...s, dialog: openForkDialog(world, v.session, v.cut, world.newChildId) });
}

/** y / R: the command that continues the target session in the harness. */
export function resumeKey(s: AppState, cmd: 'copyResume' | 'resume', world: World): Step {
  const t = target(s, world);
  const why = resumeDisabled(s, world, cmd === 'resume');
  if (why || !hasTarget(t)) return withStatus(s, `${hasTarget(t) ? `session ${sanitizeInline(t.session.id)}: ` : ''}${why ?? 'no session selected'}`, 'error');
  const rc = resumeCommand(t.session);
  if (cmd === 'resume') return step(s, [{ type: 'run', command: rc }]);
  const shown = withStatus(s, `copied: ${sanitizeInline(rc.shell)}`, 'ok');
  return { state: shown.state, effects: [{ type: 'copy', text: rc.shell }, ...shown.effects] };
}

/** m: marks the target session, or unmarks it when it is the mark. */
export function markKey(s: AppState, world: World): Step {
  const t = target(s, world);
  if (!hasTarget(t)) return withStatus(s, t.none, 'error');
  if (s.mark === t.key) return withStatus({ ...s, mark: undefined }, `unmarked ${sanitizeInline(t.session.id)}`);
  return withStatus({ ...s, mark: t.key }, `marked ${sanitizeInline(t.session.id)}: select another session and press c to compare`);
}

/** c: the marked session (left) against the target (right), from their common ancestor. */
export function openCompare(s: AppState, world: World): Step {
  const why = compareDisabled(s, world);
  const t = target(s, world);
  if (why || !hasTarget(t)) return withStatus(s, `compare: ${why ?? 'no session selected'}`, 'error');
  const left = world.session(s.mark!)!;
  let comparison: Comparison;
  try {
    comparison = compareSessions(left, t.session, world.sessions());
  } catch (e) {
    return withStatus(s, `compare failed: ${sanitizeInline(e instanceof Error ? e.message : String(e))}`, 'error');
  }
  const rows = compareRows(comparison);
  return step({ ...s, compare: { comparison, rows, cs: initialCompareState(rows, compareBody(s)), open: true, from: s.view }, help: undefined });
}

/** x: a transcript of the target session (in Turns up to the highlighted row) to a new file. */
export function exportKey(s: AppState, world: World): Step {
  const t = target(s, world);
  if (!hasTarget(t)) return withStatus(s, `${t.none}: nothing to export`, 'error');
  return step(s, [{ type: 'export', session: t.session, upTo: s.view === 'turns' ? t.cut : undefined }]);
}

/** Enter in a list: the target session in Turns, at the target's seq (a problem's event, a child's fork point). */
export function openTarget(s: AppState, world: World): Step {
  const t = target(s, world);
  if (!hasTarget(t)) return withStatus(s, `${t.none}: nothing to open`, 'error');
  return step(openTurns(s, t.key, world, t.seq));
}

/** The event a Turns row shows in the reader: its own, a turn's prompt. */
export function readerEvent(row: TurnRow, events: readonly SessionEvent[]): SessionEvent | undefined {
  if (row.kind === 'turn') {
    for (let i = row.seq; i <= row.lastSeq && i < events.length; i++) if (events[i].type === 'user/message') return events[i];
  }
  return events[row.seq];
}

/** Enter on a leaf / o: the selected event full screen. */
export function openReader(s: AppState, world: World): Step {
  const session = selectedSession(s, world);
  if (!session) return step(s);
  const data = world.turns(session);
  if (!data.ok) return withStatus(s, `cannot read this session: ${sanitizeInline(data.error)}`, 'error');
  const row = turnsCursor(s, world, session)?.row;
  if (!row || row.kind === 'boundary' || row.kind === 'inherited-divider') return withStatus(s, 'nothing to read on this row');
  const div = data.divergence;
  let doc; // (readerDoc sanitises the title and the content)
  if (div && row.seq <= div.seq && div.seq <= row.lastSeq) doc = readerDoc(seedDiffText(div), `${session.id} · seq ${div.seq} differs from the parent's seed`);
  else {
    const e = row.entry ? data.session.events[row.entry.seq] : readerEvent(row, data.session.events);
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

export function moveSessions(s: AppState, cmd: Command, world: World): Step {
  const rows = sessionsRows(s, world);
  if (!rows.length) return step(s);
  const from = Math.max(0, indexOfKey(rows, s.selection));
  const i = moveCursor(from, cmd, rows.length, sessionsListHeight(layoutOf(s).view));
  return step({ ...select(s, rows[i].key, world), sessions: { ...s.sessions, hint: i } });
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

/** The session row nearest to `i` in direction `dir` first, then the other way; -1 when there is none. */
export function nearestSessionRow(rows: readonly LineageRow[], i: number, dir: 1 | -1): number {
  for (let j = i; j >= 0 && j < rows.length; j += dir) if (rows[j].key !== null) return j;
  for (let j = i; j >= 0 && j < rows.length; j -= dir) if (rows[j].key !== null) return j;
  return -1;
}

/** Moves in the lineage list land on session rows only (synthetic rows are labels). */
export function lineageMove(rows: readonly LineageRow[], from: number, cmd: Command, page: number): number {
  const i = moveCursor(from, cmd, rows.length, page);
  const j = nearestSessionRow(rows, i, cmd === 'up' || cmd === 'pageUp' || cmd === 'bottom' ? -1 : 1);
  return j < 0 ? from : j;
}

// ---- normalize: the selection is the highlighted row -------------------------

export function lineageCommand(s: AppState, cmd: Command, world: World): Step {
  const rows = world.lineage(s.lineage.collapsed).rows;
  if (isMove(cmd)) {
    if (!rows.length) return step(s);
    const from = Math.max(0, indexOfKey(rows, s.selection));
    const i = lineageMove(rows, from, cmd, lineageListHeight(layoutOf(s).view));
    const key = rows[i].key ?? undefined;
    return step({ ...select(s, key, world), lineage: { ...s.lineage, hint: i } });
  }
  switch (cmd) {
    case 'open':
      return openTarget(s, world);
    case 'back':
      return step({ ...s, view: 'sessions' });
    case 'collapse':
    case 'expand': {
      // h hides the selected node's subtree, l shows it again
      const row = rows[indexOfKey(rows, s.selection)];
      if (!row || s.selection === undefined || !row.hasChildren) return step(s);
      const collapsed = new Set(s.lineage.collapsed);
      if (cmd === 'collapse') collapsed.add(s.selection);
      else collapsed.delete(s.selection);
      return step({ ...s, lineage: { ...s.lineage, collapsed } });
    }
    default:
      return step(s);
  }
}

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

/** b: the nearest boundary; on a boundary already, the next one. */
export function pickBoundary(session: Session) {
  return (rows: readonly TurnRow[], index: number): number | undefined => {
    const row = rows[index];
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
    case 'up':
    case 'down':
    case 'top':
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
      if (hasSomethingToClose(t, auto)) return apply({ type: 'back', autoDetail: auto });
      if (s.compare) return step({ ...s, compare: { ...s.compare, open: true } }); // opened from Compare: back to it
      return leave();
    default:
      return step(s);
  }
}
