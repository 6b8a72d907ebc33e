// The one key table: input -> named command. The help overlay renders this
// same table, so what it says is what the app does.
export type ViewName = 'sessions' | 'turns' | 'lineage' | 'problems';

export type Command =
  | 'up' | 'down' | 'top' | 'bottom' | 'pageUp' | 'pageDown'
  | 'open' | 'back' | 'nextView' | 'prevView' | 'help' | 'quit'
  | 'fork' | 'filter' | 'cycleSort'
  | 'expand' | 'collapse' | 'expandAll' | 'collapseAll' | 'toggleHistory' | 'toggleDetail' | 'jumpBoundary'
  | 'copyResume' | 'resume' | 'mark' | 'compare' | 'export' | 'menu' | 'toggleScope'
  | 'openReader' | 'search' | 'nextMatch' | 'prevMatch';

/** Ink's key flags (a subset of ink's Key). */
export interface KeyFlags {
  upArrow?: boolean; downArrow?: boolean; leftArrow?: boolean; rightArrow?: boolean;
  pageUp?: boolean; pageDown?: boolean; return?: boolean; escape?: boolean; tab?: boolean; shift?: boolean; ctrl?: boolean;
  home?: boolean; end?: boolean; backspace?: boolean; delete?: boolean; meta?: boolean;
}

export interface Binding {
  keys: string; // as shown in help
  command: Command;
  views: ViewName[] | 'all';
  help: string;
  match(input: string, key: KeyFlags): boolean;
}

const all = 'all' as const;
const ch = (c: string) => (input: string, key: KeyFlags) => input === c && !key.ctrl;

export const BINDINGS: Binding[] = [
  { keys: '↑ / k', command: 'up', views: all, help: 'move up', match: (i, k) => Boolean(k.upArrow) || ch('k')(i, k) },
  { keys: '↓ / j', command: 'down', views: all, help: 'move down', match: (i, k) => Boolean(k.downArrow) || ch('j')(i, k) },
  { keys: 'g / Home', command: 'top', views: all, help: 'go to top', match: (i, k) => Boolean(k.home) || ch('g')(i, k) },
  { keys: 'G / End', command: 'bottom', views: all, help: 'go to bottom', match: (i, k) => Boolean(k.end) || ch('G')(i, k) },
  { keys: 'PgUp', command: 'pageUp', views: all, help: 'page up', match: (_i, k) => Boolean(k.pageUp) },
  { keys: 'PgDn', command: 'pageDown', views: all, help: 'page down', match: (_i, k) => Boolean(k.pageDown) },
  { keys: 'Enter', command: 'open', views: all, help: 'open (session → turns, lineage node → its fork point, problem → its session at that event; in turns: fold or detail)', match: (_i, k) => Boolean(k.return) },
  { keys: 'Esc', command: 'back', views: all, help: 'back / close / clear filter', match: (_i, k) => Boolean(k.escape) },
  { keys: 'Tab', command: 'nextView', views: all, help: 'next view', match: (_i, k) => Boolean(k.tab) && !k.shift },
  { keys: 'Shift-Tab', command: 'prevView', views: all, help: 'previous view', match: (_i, k) => Boolean(k.tab) && Boolean(k.shift) },
  { keys: 'f', command: 'fork', views: all, help: 'fork at the selection (only at a turn boundary)', match: ch('f') },
  { keys: 'b', command: 'jumpBoundary', views: ['turns'], help: 'jump to the nearest fork boundary', match: ch('b') },
  { keys: '/', command: 'filter', views: ['sessions'], help: 'filter with a query: words, tool:NAME, is:error, reason:KIND, is:open|fork|spawn|damaged, cwd:, id:, after:, before:, -term, "quoted words"', match: ch('/') },
  { keys: '/', command: 'search', views: ['turns'], help: 'search this session (same query language); n / N next and previous match', match: ch('/') },
  { keys: 'n', command: 'nextMatch', views: ['turns'], help: 'next search match', match: ch('n') },
  { keys: 'N', command: 'prevMatch', views: ['turns'], help: 'previous search match', match: ch('N') },
  { keys: 'o', command: 'openReader', views: ['turns'], help: 'read the selected event full screen (scroll, wrap, / search, O opens $PAGER); Enter does it on a leaf row', match: ch('o') },
  { keys: 'p', command: 'toggleScope', views: ['sessions'], help: 'this project only / all projects (in dsh\'s own root, as its /resume)', match: ch('p') },
  { keys: 's', command: 'cycleSort', views: ['sessions'], help: 'cycle order: recent, created, id, threaded', match: ch('s') },
  { keys: '→ / l', command: 'expand', views: ['turns', 'lineage'], help: 'expand / go to child (lineage: show the subtree)', match: (i, k) => Boolean(k.rightArrow) || ch('l')(i, k) },
  { keys: '← / h', command: 'collapse', views: ['turns', 'lineage'], help: 'collapse / go to parent (lineage: hide the subtree)', match: (i, k) => Boolean(k.leftArrow) || ch('h')(i, k) },
  { keys: 'e', command: 'expandAll', views: ['turns'], help: 'expand all', match: ch('e') },
  { keys: 'E', command: 'collapseAll', views: ['turns'], help: 'collapse all', match: ch('E') },
  { keys: 't', command: 'toggleHistory', views: ['turns'], help: 'toggle model history (what the model sees up to the selection)', match: ch('t') },
  { keys: 'd', command: 'toggleDetail', views: ['turns'], help: 'toggle the detail pane', match: ch('d') },
  { keys: 'm', command: 'mark', views: all, help: 'mark the session (or unmark it) to compare another with it', match: ch('m') },
  { keys: 'c', command: 'compare', views: all, help: 'compare the marked session with this one, from their common ancestor', match: ch('c') },
  { keys: 'x', command: 'export', views: all, help: 'export the session as Markdown to a new file in the current folder (in Turns: up to the selected row)', match: ch('x') },
  { keys: 'a', command: 'menu', views: all, help: 'actions: everything that can be done here, with the reason when it cannot', match: ch('a') },
  { keys: 'y', command: 'copyResume', views: all, help: 'copy the command that continues the session in the harness (dsh --resume=ID, in its cwd)', match: ch('y') },
  { keys: 'R', command: 'resume', views: all, help: 'leave the browser and run dsh --resume=ID in the session\'s cwd (printed if dsh is not on the PATH)', match: ch('R') },
  { keys: '?', command: 'help', views: all, help: 'this help', match: ch('?') },
  { keys: 'q / Ctrl-C', command: 'quit', views: all, help: 'quit', match: (i, k) => ch('q')(i, k) || (Boolean(k.ctrl) && i === 'c') },
];

/** The command an input means in a view, if any. */
export function commandFor(view: ViewName, input: string, key: KeyFlags): Command | undefined {
  for (const b of BINDINGS) if ((b.views === 'all' || b.views.includes(view)) && b.match(input, key)) return b.command;
  return undefined;
}

export function bindingsFor(view: ViewName): Binding[] {
  return BINDINGS.filter((b) => b.views === 'all' || b.views.includes(view));
}
