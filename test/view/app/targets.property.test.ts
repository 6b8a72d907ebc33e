// Property: on EVERY surface (Sessions, Turns, Lineage, Problems,
// the reader, Compare, the action menu, the fork dialog, help), under random
// keys interleaved with store changes, the target of every action is what the
// highlighted row means (each row surface's target), and each key's footer
// hint, help line and menu entry agree on enabled/disabled and the reason.
import { sessionsRows } from '../../../src/view/sessions/rows.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../../src/session/resume-command.js';
import { SessionStore } from '../../../src/session/store.js';
import { applyStoreOp, driveApp, NOW, opArb, session } from '../../support/random-store.js';
import { compareEnter } from '../../../src/view/compare/compare-state.js';
import { helpLines } from '../../../src/view/help/help.js';
import { labelOf, shortKey } from '../../../src/view/app/binding.js';
import { footerHints } from '../../../src/view/app/key-hints.js';
import { splitKeys } from '../../../src/view/app/keys.js';
import { reduce } from '../../../src/view/app/reducer.js';
import { type AppAction, type AppState, type Effect } from '../../../src/view/app/state.js';
import { APP } from '../../../src/view/app/surfaces.js';
import { hasTarget } from '../../../src/view/app/target.js';
import { turnsCursor } from '../../../src/view/turns/turns-cursor.js';

const rowSurface = (s: AppState) => APP.rows(s).id;
const activeSurface = (s: AppState) => APP.active(s).id;
const target = (s: AppState, world: World) => APP.target(s, world);
import type { World } from '../../../src/view/app/world.js';
import { menuItems } from '../../../src/view/menu/action-menu.js';
import { runs } from '../../support/property.js';

// every surface is reachable: a (menu), ? (help), f (dialog), o / Enter (reader), m then c (Compare), / (prompts)
const KEYS = ['j', 'k', 'g', 'G', '\x1b[B', '\x1b[A', '\x1b[6~', '/', 'a', 'l', 'e', 'p', '\x7f', '\r', '\x1b', '\t', '\x1b[Z', 'f', 's', '?', 'h', 't', 'b', 'E', 'm', 'c', 'o', 'x', 'y', 'R', 'n', 'w', 'd'];


/** The highlighted row of the row surface, as the screen draws it: its session key and seq. */
function highlighted(s: AppState, world: World): { key?: string; seq?: number } | undefined {
  switch (rowSurface(s)) {
    case 'sessions': {
      const rows = sessionsRows(s, world).slice();
      return rows.length ? { key: rows[s.sessions.hint]?.key } : undefined;
    }
    case 'lineage': {
      const rows = world.lineage(s.lineage.collapsed).rows;
      return rows.length ? { key: rows[s.lineage.hint]?.key ?? undefined } : undefined;
    }
    case 'problems': {
      const row = s.problems.hint >= 0 ? world.problems()[s.problems.hint] : undefined;
      return row ? { key: row.sessionKey !== undefined && world.session(row.sessionKey) ? row.sessionKey : undefined, seq: row.seq } : undefined;
    }
    case 'turns': {
      const c = turnsCursor(s, world, APP);
      return c ? { key: s.selection, seq: c.row?.seq } : undefined;
    }
    case 'compare': {
      const at = compareEnter(s.compare!.comparison, s.compare!.rows, s.compare!.cs);
      return at ? { key: SessionStore.keyOf(at.session), seq: at.seq } : undefined;
    }
  }
}

const isView = (x: string): boolean => ['sessions', 'turns', 'lineage', 'problems'].includes(x);

describe('every surface acts on what it highlights', () => {
  it('target = the highlighted row; f, Enter, a, x, y, R, m act on the target; hints, help and menu agree', () => {
    fc.assert(
      fc.property(fc.array(opArb(KEYS, 8), { minLength: 1, maxLength: 40 }), fc.constantFrom(24, 30, 14), (ops, rows) => {
        const store = new SessionStore();
        store.add(session('alpha', 2, NOW));
        store.add(session('beta', 3, NOW - 1000, true));
        const kid = store.fork({ source: store.getAll('alpha')[0], boundary: 2, sessionId: 'alpha-kid' });
        expect(kid.kind).toBe('fork');
        kid.log.diagnostics.push({ file: 'alpha-kid.jsonl', line: 2, severity: 'warning', code: 'ORPHAN_PARENT', message: 'x' });
        const d = driveApp(store, { columns: 100, rows });
        let state: AppState = d.state;
        let world: World = d.world;
        const dispatch = (a: AppAction): void => {
          d.dispatch(a);
          state = d.state;
          world = d.world;
        };
        /** what keys would do from the current state, without keeping it */
        const probe = (raw: string): { state: AppState; effects: Effect[] } => {
          let st = state;
          const effects: Effect[] = [];
          for (const press of splitKeys(raw)) {
            const out = reduce(st, { type: 'key', press }, world);
            st = out.state;
            effects.push(...out.effects);
          }
          return { state: st, effects };
        };

        const check = (): void => {
          const t = target(state, world);
          const h = highlighted(state, world);
          // the target is the highlighted row
          if (hasTarget(t)) {
            expect(h?.key, `target ${t.key} on ${rowSurface(state)}`).toBe(t.key);
            if (rowSurface(state) === 'turns' || rowSurface(state) === 'problems' || rowSurface(state) === 'compare') expect(t.seq).toBe(h?.seq);
          } else if (h?.key !== undefined && rowSurface(state) !== 'compare') {
            expect.fail(`no target (${t.none}) though ${h.key} is highlighted on ${rowSurface(state)}`);
          }
          // hints and menu read the same reasons as the keys
          const surface = activeSurface(state);
          const hints = footerHints(state, world);
          if (isView(surface)) {
            const table = APP.surface(surface).keys(state);
            const items = menuItems(state, world, APP);
            const help = helpLines(surface, state, APP);
            for (const b of table) {
              const why = b.disabled?.(state, world, APP);
              if (b.hint !== undefined) {
                const hint = hints.find((x) => x.keys === shortKey(b) && x.label === labelOf(b.hint!, state, world, APP));
                expect(hint, `hint of ${b.keys}`).toBeDefined();
                expect(hint!.disabled).toBe(why);
              }
              if (b.menu !== undefined) expect(items.find((i) => i.binding === b)!.disabled).toBe(why);
              expect(help.some((l) => l.keys === b.keys && l.text === b.help)).toBe(true);
            }
          }
          if (!isView(surface)) return;
          // every action on a view means the target
          const f = probe('f').state;
          if (f.dialog) {
            expect(hasTarget(t) && f.dialog.sourceKey).toBe(hasTarget(t) && t.key);
            if (f.dialog.kind === 'confirm' && surface === 'turns' && hasTarget(t)) expect(f.dialog.cut ?? -1).toBe(t.cut ?? f.dialog.source.length - 1);
          } else expect(f.status?.tone).toBe('error');
          for (const key of ['y', 'R', 'x', 'a x', 'a y']) {
            const out = probe(key.replace(' ', ''));
            const eff = out.effects.find((e) => e.type === 'copy' || e.type === 'run' || e.type === 'export');
            if (!hasTarget(t)) {
              expect(eff).toBeUndefined();
              continue;
            }
            if (!eff) {
              // refused: the status names the target session
              expect(out.state.status?.text, key).toContain(`(${t.session.id})`);
              continue;
            }
            if (eff.type === 'copy') expect(eff.text).toBe(resumeCommand(t.session).shell);
            if (eff.type === 'run') expect(eff.command).toEqual(resumeCommand(t.session));
            if (eff.type === 'export') {
              expect(eff.session).toBe(t.session);
              expect(eff.upTo).toBe(surface === 'turns' ? t.cut : undefined);
            }
          }
          const m = probe('m').state;
          if (hasTarget(t)) expect(m.mark).toBe(state.mark === t.key ? undefined : t.key);
          if (surface !== 'turns' && hasTarget(t)) {
            const enter = probe('\r').state;
            expect(enter.view).toBe('turns');
            expect(enter.selection).toBe(t.key);
          }
        };

        for (const op of ops) {
          if (op.kind === 'keys') for (const press of splitKeys(op.raw)) dispatch({ type: 'key', press });
          else {
            applyStoreOp(store, op, d.version);
            d.changed();
            state = d.state;
            world = d.world;
          }
          check();
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
