// Property: random interleavings of key presses and store changes (appends
// that open and close turns, new sessions, deletes, replaced files). After
// every step, the session `f`, Enter and Tab act on is the highlighted row,
// and an open fork dialog's cut never changes.
import { sessionsRows } from '../../../src/view/sessions/rows.js';
import fc from 'fast-check';
import { runs } from '../../support/property.js';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src/session/store.js';
import { applyStoreOp, driveApp, IDS, NOW, opArb, session } from '../../support/random-store.js';
import { reduce } from '../../../src/view/app/reducer.js';
import { indexOfKey, type AppAction, type AppState } from '../../../src/view/app/state.js';
import { initialAppState } from '../../../src/view/app/surfaces.js';
import { splitKeys } from '../../../src/view/app/keys.js';
import type { World } from '../../../src/view/app/world.js';

const KEYS = ['j', 'k', 'g', 'G', '\x1b[B', '\x1b[A', '\x1b[6~', '/', 'a', 'l', 'e', 'p', '\x7f', '\r', '\x1b', '\t', '\x1b[Z', 'f', 's', '?', 'h', 't', 'b', 'E', 'a', 'm', 'c'];


describe('app state under random keys and store changes', () => {
  it('f, Enter and Tab always target the highlighted row; an open dialog keeps its cut', () => {
    fc.assert(
      fc.property(fc.array(opArb(KEYS, 6), { minLength: 1, maxLength: 40 }), fc.constantFrom(20, 30, 12), (ops, rows) => {
        const store = new SessionStore();
        IDS.slice(0, 3).forEach((id, i) => store.add(session(id, 2 + i, NOW - i * 1000)));
        const d = driveApp(store, { columns: 90, rows });
        let state: AppState = d.state;
        let world: World = d.world;
        const sync = (): void => {
          state = d.state;
          world = d.world;
        };
        /** what one more key would do, without keeping it */
        const probe = (raw: string): AppState => splitKeys(raw).reduce((s, press) => reduce(s, { type: 'key', press }, world).state, state);

        /** an open confirm dialog never changes the cut it shows (checked after every single action) */
        const act = (a: AppAction): void => {
          const before = state.dialog;
          d.dispatch(a);
          sync();
          if (before?.kind === 'confirm' && state.dialog?.kind === 'confirm') {
            expect(state.dialog.cut).toBe(before.cut);
            expect(state.dialog.seedLength).toBe(before.seedLength);
          }
        };

        for (const op of ops) {
          if (op.kind === 'keys') for (const press of splitKeys(op.raw)) act({ type: 'key', press });
          else {
            applyStoreOp(store, op, d.version);
            const before = state.dialog;
            d.changed();
            sync();
            if (before?.kind === 'confirm' && state.dialog?.kind === 'confirm') expect(state.dialog.cut).toBe(before.cut);
          }
          if (state.dialog || state.help || state.menu || state.compare?.open) continue;

          // the selection is the highlighted row of the view
          if (state.view === 'sessions') {
            const rowsNow = sessionsRows(state, world).slice();
            if (rowsNow.length === 0) expect(state.selection).toBeUndefined();
            else expect(indexOfKey(rowsNow, state.selection)).toBeGreaterThanOrEqual(0);
          }
          if (state.view === 'lineage') {
            const lrows = world.lineage().rows.filter((r) => r.key !== null);
            if (lrows.length) expect(lrows.some((r) => r.key === state.selection)).toBe(true);
          }
          if (state.view === 'sessions' && state.filterEditing) continue;

          // f targets the selection (in Problems: the highlighted problem's session)
          const f = probe('f');
          const problemRow = state.view === 'problems' ? world.problems()[state.problems.hint] : undefined;
          if (f.dialog) expect(f.dialog.sourceKey).toBe(state.view === 'problems' ? problemRow?.sessionKey : state.selection);
          else expect(state.selection === undefined || state.view === 'turns' || state.view === 'problems').toBe(true); // a problem row of a file that is no session
          // Enter (Sessions, Lineage) opens the selection; Tab from Sessions shows it in Turns
          if ((state.view === 'sessions' || state.view === 'lineage') && state.selection !== undefined) {
            const enter = probe('\r');
            expect(enter.view).toBe('turns');
            expect(enter.selection).toBe(state.selection);
          }
          if (state.view === 'sessions') expect(probe('\t').selection).toBe(state.selection);
        }
      }),
      { numRuns: runs(400) },
    );
  });
});
