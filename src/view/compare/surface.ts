// Compare, over the views after `c`: the marked session and the target side
// by side from their common ancestor, then the files each changed. Moves, a
// side, Enter opens the side's turn in Turns (Esc there comes back) or reads
// a file's two versions, Esc closes.
import { filePairText } from '../../session/branch-files.js';
import { SessionStore } from '../../session/store.js';
import { ch, either, flag, type Binding, type Handler } from '../app/binding.js';
import { step, withStatus, type AppState } from '../app/state.js';
import { compareBody } from './compare-size.js';
import type { SurfaceModule } from '../app/surface.js';
import { hasTarget, type TargetOf } from '../app/target.js';
import type { World } from '../app/world.js';
import { sanitizeInline } from '../text/sanitize.js';
import { compareEnter, compareReducer, type CompareAction } from './compare-state.js';
import { comparisonDone, openCompare } from './open-compare.js';

const act = (type: CompareAction['type']): Handler => (s) => {
  const c = s.compare!;
  return step({ ...s, compare: { ...c, cs: compareReducer(c.cs, { type }, c.rows, compareBody(s)) } });
};

const open: Handler = (s, world, app) => {
  const c = s.compare!;
  const row = c.rows[c.cs.cursor];
  // a file both sides changed: the two versions (or each side's edits) in the reader
  if (row?.kind === 'file') {
    const names = [c.comparison.left.session.id, c.comparison.right.session.id];
    return app.read(s, world, { in: `${names[0]} vs ${names[1]}`, title: row.pair.path, text: filePairText(row.pair, names[0], names[1]) });
  }
  const t = app.target(s, world);
  if (!hasTarget(t)) return withStatus(s, t.none, 'error');
  return step(app.openSession({ ...s, compare: { ...s.compare!, open: false } }, world, t.key, t.seq));
};

const KEYS: readonly Binding[] = [
  { keys: '↑ / k', help: 'previous row', hint: 'row', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')), run: act('up') },
  { keys: '↓ / j', help: 'next row', match: either(flag('downArrow'), ch('j')), run: act('down') },
  { keys: 'PgUp', help: 'page up', match: flag('pageUp'), run: act('pageUp') },
  { keys: 'PgDn', help: 'page down', match: flag('pageDown'), run: act('pageDown') },
  { keys: 'g / Home', help: 'first row', match: either(flag('home'), ch('g')), run: act('home') },
  { keys: 'G / End', help: 'last row', match: either(flag('end'), ch('G')), run: act('end') },
  { keys: '← / h', help: 'the left (marked) side', hint: 'side', hintKeys: '←→/Tab', match: either(flag('leftArrow'), ch('h')), run: act('left') },
  { keys: '→ / l', help: 'the right side', match: either(flag('rightArrow'), ch('l')), run: act('right') },
  { keys: 'Tab', help: 'the other side', match: flag('tab'), run: act('toggleSide') },
  { keys: 'Enter', help: "open the selected side's turn in Turns (Esc there comes back here); on a file, read the two versions as one diff", hint: 'open', match: flag('return'), run: open },
  { keys: 'Esc / q', help: 'close Compare, back to the view it was opened from', hint: 'back', match: either(flag('escape'), ch('q')), run: (s) => step({ ...s, compare: undefined, view: s.compare!.from }) },
  { keys: '?', help: 'these keys', hint: 'help', match: ch('?'), run: (s, w, app) => app.help(s, w) },
];

/** The turn of the selected side's row. */
function compareTarget(s: AppState, world: World): TargetOf {
  const c = s.compare!;
  const at = compareEnter(c.comparison, c.rows, c.cs);
  if (!at) return { none: 'no turn on this row' };
  const key = SessionStore.keyOf(at.session);
  const session = world.session(key);
  if (!session) return { none: `session ${sanitizeInline(at.session.id)} is no longer in the store` };
  return { key, session, gone: false, seq: at.seq };
}

export const COMPARE: SurfaceModule<'compare'> = {
  id: 'compare',
  title: 'Compare',
  active: (s) => Boolean(s.compare?.open),
  keys: () => KEYS,
  answer: comparisonDone,
  open: openCompare,
  target: compareTarget,
};
