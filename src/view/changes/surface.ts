// Changes, over the views after C: the files the target session (in Turns,
// the highlighted row's turn) wrote or edited with their +n −m, then the
// commands it ran and the paths of unknown effect. Enter on a file reads its
// diffs (the reader: coloured, searchable, O to $PAGER); on a command or an
// unknown effect, opens its call in Turns. Esc closes.
import { ch, either, flag, type Binding, type Handler } from '../app/binding.js';
import { moveCursor, type Move } from '../app/list-cursor.js';
import { step, withStatus, type AppState } from '../app/state.js';
import type { SurfaceModule } from '../app/surface.js';
import type { TargetOf } from '../app/target.js';
import { visibleWindow } from '../app/window.js';
import { moveKeys } from '../app/view-keys.js';
import type { World } from '../app/world.js';
import { changesBody } from './changes-size.js';
import { fileDiffText, type ChangesRow } from './changes-rows.js';
import { changesDone, openChanges } from './open-changes.js';

const move = (m: Move): Handler => (s) => {
  const c = s.changes!;
  return step({ ...s, changes: { ...c, cursor: moveCursor(c.cursor, m, c.list.rows.length, changesBody(s)) } });
};

const close = (s: AppState): AppState => ({ ...s, changes: undefined, view: s.changes!.from });

/** The seq a row stands for in the log: a command's or unknown effect's call, a file's first edit listed. */
function rowSeq(row: ChangesRow | undefined): number | undefined {
  if (!row) return undefined;
  if (row.kind === 'command') return row.run.seq;
  if (row.kind === 'unknown') return row.effect.seq;
  if (row.kind === 'file') return row.file.edits.find((e) => e.inherited === row.inherited)?.seq;
  return undefined;
}

const open: Handler = (s, world, app) => {
  const c = s.changes!;
  const row = c.list.rows[c.cursor];
  if (row?.kind === 'file') return app.read(s, world, { in: c.list.id, title: `${row.file.path} · ${c.list.scope}`, text: fileDiffText(row) });
  const seq = rowSeq(row);
  if (seq === undefined) return withStatus(s, 'nothing to open on this row', 'error');
  if (!world.session(c.key)) return withStatus(s, 'the session is no longer in the store', 'error');
  return step(app.openSession(close(s), world, c.key, seq));
};

const KEYS: readonly Binding[] = [
  ...moveKeys(move),
  { keys: 'Enter', help: "a file: read its diffs (/ searches, O opens $PAGER); a command: its call in Turns", hint: 'open', match: flag('return'), run: open },
  { keys: 'Esc / q', help: 'close Changes, back to the view it was opened from', hint: 'back', match: either(flag('escape'), ch('q')), run: (s) => step(close(s)) },
  { keys: '?', help: 'these keys', hint: 'help', match: ch('?'), run: (s, w, app) => app.help(s, w) },
];

function changesTarget(s: AppState, world: World): TargetOf {
  const c = s.changes!;
  const session = world.session(c.key);
  if (!session) return { none: 'the session is no longer in the store' };
  return { key: c.key, session, gone: false, seq: rowSeq(c.list.rows[c.cursor]) };
}

export const CHANGES: SurfaceModule<'changes'> = {
  id: 'changes',
  title: 'Changes',
  active: (s) => Boolean(s.changes),
  keys: () => KEYS,
  open: openChanges,
  answer: (s, a, world) => changesDone(s, a, world),
  target: changesTarget,
  // the window follows the cursor (and a resize)
  normalize: (s) => {
    const c = s.changes;
    if (!c) return s;
    const cursor = Math.min(Math.max(0, c.cursor), Math.max(0, c.list.rows.length - 1));
    const top = visibleWindow(c.list.rows, cursor, changesBody(s), c.top).top;
    return cursor === c.cursor && top === c.top ? s : { ...s, changes: { ...c, cursor, top } };
  },
};
