// The views' key tables: input -> named command, with help text, footer
// label, menu label and disabled reason on each binding (binding.ts). Each
// view's table is the common keys below plus the view's own (sessions/keys.ts,
// turns/keys.ts, lineage/keys.ts, problems/keys.ts). Help, the footer and the
// action menu are generated from these tables, and the reducer dispatches
// with them: what they say is what the app does.
import { ch, either, flag, type Binding } from './binding.js';
import { compareDisabled, exportDisabled, forkVerdict, needsTarget, resumeDisabled } from './verdicts.js';
import { hasTarget, target } from './target.js';
import { SESSIONS_KEYS } from '../sessions/keys.js';
import { TURNS_KEYS } from '../turns/keys.js';
import { LINEAGE_KEYS } from '../lineage/keys.js';
import { PROBLEMS_KEYS } from '../problems/keys.js';

export type { KeyFlags } from './binding.js';

export type ViewName = 'sessions' | 'turns' | 'lineage' | 'problems';

export type Command =
  | 'up' | 'down' | 'top' | 'bottom' | 'pageUp' | 'pageDown'
  | 'open' | 'back' | 'nextView' | 'prevView' | 'help' | 'quit'
  | 'fork' | 'filter' | 'cycleSort'
  | 'expand' | 'collapse' | 'expandAll' | 'collapseAll' | 'toggleHistory' | 'toggleDetail' | 'jumpBoundary'
  | 'copyResume' | 'resume' | 'mark' | 'compare' | 'export' | 'menu' | 'toggleScope'
  | 'openReader' | 'search' | 'nextMatch' | 'prevMatch';

export type ViewBinding = Binding<Command> & {
  /** a disabled fork still runs: it shows the store's typed refusal in the dialog (b jumps to a boundary) */
  showsRefusal?: boolean;
};

/** Moving keys: the same in every list (the help overlay, the menu and Compare reuse them). */
export const MOVES: readonly ViewBinding[] = [
  { keys: '↑ / k', command: 'up', help: 'move up', hint: 'move', hintKeys: '↑↓', match: either(flag('upArrow'), ch('k')) },
  { keys: '↓ / j', command: 'down', help: 'move down', match: either(flag('downArrow'), ch('j')) },
  { keys: 'g / Home', command: 'top', help: 'go to top', match: either(flag('home'), ch('g')) },
  { keys: 'G / End', command: 'bottom', help: 'go to bottom', match: either(flag('end'), ch('G')) },
  { keys: 'PgUp', command: 'pageUp', help: 'page up', match: flag('pageUp') },
  { keys: 'PgDn', command: 'pageDown', help: 'page down', match: flag('pageDown') },
];

const OPEN_HELP: Record<ViewName, { help: string; menu: string }> = {
  sessions: { help: 'open the session in Turns', menu: 'open in Turns' },
  turns: { help: 'fold / unfold the row; on a leaf, read its event full screen', menu: 'open / fold the row' },
  lineage: { help: 'open the session in Turns at its fork point', menu: 'open at its fork point' },
  problems: { help: "open the problem's session in Turns at that event", menu: 'open at this event' },
};

const BACK_HELP: Record<ViewName, string> = {
  sessions: 'clear the filter',
  turns: 'close the history or the detail pane, else back to where Turns was opened from',
  lineage: 'back to Sessions',
  problems: 'back to Sessions',
};

function viewTable(view: ViewName, own: readonly ViewBinding[]): ViewBinding[] {
  return [
    ...MOVES,
    { keys: 'Enter', command: 'open', help: OPEN_HELP[view].help, hint: 'open', menu: OPEN_HELP[view].menu, match: flag('return'), disabled: view === 'turns' ? undefined : needsTarget },
    { keys: 'f', command: 'fork', help: 'fork at the selection (only at a turn boundary)', hint: 'fork', menu: (s, w) => forkVerdict(s, w).label, match: ch('f'), disabled: (s, w) => forkVerdict(s, w).disabled, showsRefusal: true },
    { keys: 'a', command: 'menu', help: 'actions: everything that can be done here, with the reason when it cannot', hint: 'actions', match: ch('a') },
    ...own,
    { keys: 'Esc', command: 'back', help: `${BACK_HELP[view]} (first: cancel an export or comparison under way)`, hint: view === 'sessions' ? undefined : 'back', match: flag('escape') },
    { keys: 'Tab', command: 'nextView', help: 'next view', hint: 'view', match: (_i, k) => Boolean(k.tab) && !k.shift },
    { keys: 'Shift-Tab', command: 'prevView', help: 'previous view', match: (_i, k) => Boolean(k.tab) && Boolean(k.shift) },
    {
      keys: 'm', command: 'mark', help: 'mark the session (or unmark it) to compare another with it', match: ch('m'), disabled: needsTarget,
      menu: (s, w) => { const t = target(s, w); return hasTarget(t) && s.mark === t.key ? 'unmark' : 'mark for compare'; },
    },
    { keys: 'c', command: 'compare', help: 'compare the marked session with this one, from their common ancestor', menu: 'compare with the marked session', match: ch('c'), disabled: compareDisabled },
    {
      keys: 'x', command: 'export', match: ch('x'), disabled: exportDisabled,
      help: view === 'turns' ? 'export the session up to the selected row as Markdown to a new file (0600) in the current folder' : 'export the session as Markdown to a new file (0600) in the current folder',
      menu: view === 'turns' ? 'export up to here (Markdown)' : 'export (Markdown)',
    },
    { keys: 'y', command: 'copyResume', help: 'copy the command that continues the session in the harness (dsh --resume=ID, in its cwd)', menu: 'copy the resume command', match: ch('y'), disabled: (s, w) => resumeDisabled(s, w, false) },
    { keys: 'R', command: 'resume', help: "leave the browser and run dsh --resume=ID in the session's cwd (printed if dsh is not on the PATH)", menu: 'resume in the harness (dsh --resume)', match: ch('R'), disabled: (s, w) => resumeDisabled(s, w, true) },
    { keys: '?', command: 'help', help: 'this help', hint: 'help', match: ch('?') },
    { keys: 'q / Ctrl-C', command: 'quit', help: 'quit', hint: 'quit', match: (i, k) => ch('q')(i, k) || (Boolean(k.ctrl) && i === 'c') },
  ];
}

const TABLES: Record<ViewName, ViewBinding[]> = {
  sessions: viewTable('sessions', SESSIONS_KEYS),
  turns: viewTable('turns', TURNS_KEYS),
  lineage: viewTable('lineage', LINEAGE_KEYS),
  problems: viewTable('problems', PROBLEMS_KEYS),
};

export const bindingsFor = (view: ViewName): readonly ViewBinding[] => TABLES[view];

/** The entries of a view's action menu: its bindings with a menu label (the layout reserves their rows). */
const MENUS = Object.fromEntries(Object.entries(TABLES).map(([v, t]) => [v, t.filter((b) => b.menu !== undefined)])) as Record<ViewName, ViewBinding[]>;
export const menuBindings = (view: ViewName): readonly ViewBinding[] => MENUS[view];
