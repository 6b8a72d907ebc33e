// The keys every view has, around each view's own: moves, Enter, f, a, Esc,
// Tab, m, c, C, x, y, R, ?, q. A view module (src/view/<view>/surface.ts) hands
// over how its list moves, what Enter and Esc mean there and its own keys;
// the actions on the target are the same handlers everywhere (commands.ts).
import { ch, either, flag, type Binding, type Handler, type Reason } from './binding.js';
import { exportKey, markKey, resumeKey, cancelWork } from './commands.js';
import type { Move } from './list-cursor.js';
import { step, type AppState } from './state.js';
import { hasTarget } from './target.js';
import { compareDisabled, exportDisabled, forkVerdict, needsTarget, resumeDisabled } from './verdicts.js';

/** The moving keys of a list: ↑ ↓ g G PgUp PgDn, each running `run(move)` (the views', and any list over them). */
export function moveKeys(run: (move: Move) => Handler): Binding[] {
  return [
    { keys: '↑ / k', help: 'move up', hint: 'move', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')), run: run('up') },
    { keys: '↓ / j', help: 'move down', match: either(flag('downArrow'), ch('j')), run: run('down') },
    { keys: 'g / Home', help: 'go to top', match: either(flag('home'), ch('g')), run: run('top') },
    { keys: 'G / End', help: 'go to bottom', match: either(flag('end'), ch('G')), run: run('bottom') },
    { keys: 'PgUp', help: 'page up', match: flag('pageUp'), run: run('pageUp') },
    { keys: 'PgDn', help: 'page down', match: flag('pageDown'), run: run('pageDown') },
  ];
}

export interface ViewParts {
  /** how the view's list moves */
  move: (move: Move) => Handler;
  /** Enter */
  open: { help: string; menu: string; run: Handler; disabled?: Reason };
  /** Esc (a background export or comparison under way is cancelled first) */
  back: { help: string; hint?: string; run: Handler };
  /** turns: x exports up to the selected row */
  exportsUpTo?: boolean;
  own: readonly Binding[];
}

const quit: Handler = (s) => step(s, [{ type: 'exit' }]);

/** Tab / Shift-Tab: the next view in the registry's order; leaving forgets a Compare (Esc would not return there any more). */
function switchView(by: 1 | -1): Handler {
  return (s, world, app) => {
    const views = app.views;
    const view = views[(views.indexOf(s.view) + by + views.length) % views.length];
    const next: AppState = { ...s, view, compare: undefined };
    return step(app.surface(view).enter?.(next, world, s.view) ?? next);
  };
}

/** A view's whole table: the common keys around its own. */
export function viewKeys(p: ViewParts): Binding[] {
  const table: Binding[] = [
    ...moveKeys(p.move),
    { keys: 'Enter', help: p.open.help, hint: 'open', menu: p.open.menu, match: flag('return'), run: p.open.run, disabled: p.open.disabled },
    {
      keys: 'f', help: 'fork at the selection (only at a turn boundary)', hint: 'fork', match: ch('f'), run: (s, w, app) => app.fork(s, w), showsRefusal: true,
      menu: (s, w, app) => forkVerdict(s, w, app).label, disabled: (s, w, app) => forkVerdict(s, w, app).disabled,
    },
    // the menu's rows are reserved by the layout: how many entries it lists is known when it opens
    { keys: 'a', help: 'actions: everything that can be done here, with the reason when it cannot', hint: 'actions', match: ch('a'), run: (s) => step({ ...s, menu: { cursor: 0, entries: menuEntries } }) },
    ...p.own,
    {
      keys: 'Esc', help: `${p.back.help} (first: cancel an export or comparison under way)`, hint: p.back.hint, match: flag('escape'),
      run: (s, w, app, k) => (s.work ? cancelWork(s) : p.back.run(s, w, app, k)),
    },
    { keys: 'Tab', help: 'next view', hint: 'view', match: (_i, k) => Boolean(k.tab) && !k.shift, run: switchView(1) },
    { keys: 'Shift-Tab', help: 'previous view', match: (_i, k) => Boolean(k.tab) && Boolean(k.shift), run: switchView(-1) },
    {
      keys: 'm', help: 'mark the session (or unmark it) to compare another with it', match: ch('m'), run: markKey, disabled: needsTarget,
      menu: (s, w, app) => { const t = app.target(s, w); return hasTarget(t) && s.mark === t.key ? 'unmark' : 'mark for compare'; },
    },
    { keys: 'c', help: 'compare the marked session with this one, from their common ancestor', menu: 'compare with the marked session', match: ch('c'), run: (s, w, app) => app.compare(s, w), disabled: compareDisabled },
    {
      keys: 'C', help: p.exportsUpTo ? "the files the selected row's turn wrote or edited, as diffs, and the commands it ran" : 'the files the session wrote or edited, as diffs, and the commands it ran',
      menu: p.exportsUpTo ? "changes of this turn (files, diffs)" : 'changes (files, diffs)', match: ch('C'), run: (s, w, app) => app.changes(s, w), disabled: exportDisabled,
    },
    {
      keys: 'x', match: ch('x'), run: exportKey, disabled: exportDisabled,
      help: p.exportsUpTo ? 'export the session up to the selected row as Markdown to a new file (0600) in the current folder' : 'export the session as Markdown to a new file (0600) in the current folder',
      menu: p.exportsUpTo ? 'export up to here (Markdown)' : 'export (Markdown)',
    },
    {
      keys: 'y', help: 'copy the command that continues the session in the harness (dsh --resume=ID, in its cwd)', menu: 'copy the resume command', match: ch('y'),
      run: (s, w, app) => resumeKey(s, w, app, false), disabled: (s, w, app) => resumeDisabled(s, w, app, false),
    },
    {
      keys: 'R', help: "leave the browser and run dsh --resume=ID in the session's cwd (printed if dsh is not on the PATH)", menu: 'resume in the harness (dsh --resume)', match: ch('R'),
      run: (s, w, app) => resumeKey(s, w, app, true), disabled: (s, w, app) => resumeDisabled(s, w, app, true),
    },
    { keys: '?', help: 'this help', hint: 'help', match: ch('?'), run: (s, w, app) => app.help(s, w) },
    { keys: 'q / Ctrl-C', help: 'quit', hint: 'quit', match: (i, k) => ch('q')(i, k) || (Boolean(k.ctrl) && i === 'c'), run: quit },
  ];
  const menuEntries = table.filter((b) => b.menu !== undefined).length;
  return table;
}

/** The entries of a view's action menu: its bindings with a menu label. */
export const menuBindings = (table: readonly Binding[]): readonly Binding[] => table.filter((b) => b.menu !== undefined);

