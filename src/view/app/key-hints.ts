// The one-line footer: short hints for the active view, derived from the key
// table (so a hint never names a key the app does not bind). A hint may carry
// a disabled reason (lazygit style): shown greyed with the reason.
import { BINDINGS, type Command, type ViewName } from './keymap.js';

export interface KeyHint {
  keys: string;
  label: string;
  disabled?: string;
}

const LABELS: Partial<Record<Command, string>> = {
  open: 'open',
  back: 'back',
  fork: 'fork',
  filter: 'filter',
  cycleSort: 'sort',
  nextView: 'view',
  help: 'help',
  quit: 'quit',
  jumpBoundary: 'boundary',
  toggleDetail: 'detail',
  toggleHistory: 'history',
  expand: 'expand',
  menu: 'actions',
};

const PER_VIEW: Record<ViewName, Command[]> = {
  sessions: ['open', 'fork', 'menu', 'filter', 'cycleSort', 'nextView', 'help', 'quit'],
  turns: ['open', 'fork', 'menu', 'jumpBoundary', 'toggleHistory', 'back', 'nextView', 'help', 'quit'],
  lineage: ['open', 'fork', 'menu', 'back', 'nextView', 'help', 'quit'],
  problems: ['open', 'fork', 'menu', 'back', 'nextView', 'help', 'quit'],
};

/** The first key of a binding as shown in help (`q / Ctrl-C` -> `q`). */
export function shortKeys(cmd: Command): string {
  const b = BINDINGS.find((x) => x.command === cmd);
  return b ? b.keys.split(' / ')[0] : '';
}

export function keyHints(view: ViewName, disabled: Partial<Record<Command, string>> = {}, extra: Partial<Record<Command, string>> = {}): KeyHint[] {
  const hints: KeyHint[] = [{ keys: '↑↓', label: 'move' }];
  for (const cmd of PER_VIEW[view]) {
    const hint: KeyHint = { keys: shortKeys(cmd), label: extra[cmd] ?? LABELS[cmd] ?? cmd };
    const why = disabled[cmd];
    if (why) hint.disabled = why;
    hints.push(hint);
  }
  return hints;
}
