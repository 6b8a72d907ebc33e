// The action menu (`a`): everything that can be done on the selection in the
// active view, each entry with its key (the fast path) and, when it cannot be
// done now, the reason (lazygit style). Pure: derived from the state and the
// world, like the footer hints.
import { compareDisabled } from '../app/commands.js';
import { cutOfRow, selectedSession, turnsStateOf, turnsView, type AppState } from '../app/state.js';
import type { Session } from '../../session/session.js';
import { layoutOf } from '../../storage/layout.js';
import type { Command } from '../app/keymap.js';
import { cursorIndex } from '../turns/turns-state.js';
import type { World } from '../app/world.js';

export interface MenuItem {
  /** the key that does the same (shown, and accepted inside the menu) */
  key: string;
  label: string;
  command: Command;
  disabled?: string;
}

function forkWhy(s: AppState, world: World): { label: string; disabled?: string } {
  const session = selectedSession(s, world);
  if (!session) return { label: 'fork', disabled: 'no session selected' };
  if (s.view === 'turns') {
    const data = world.turns(session);
    if (!data.ok) return { label: 'fork here', disabled: 'the session cannot be read' };
    const t = turnsStateOf(s, s.selection);
    const v = turnsView(s, data)({ ...t, showHistory: false });
    const row = v.rows[cursorIndex(t.tree, v)];
    const cut = row ? cutOfRow(row) : undefined;
    const err = world.forkError(session, cut);
    return { label: cut === undefined ? 'fork (empty log)' : `fork here (seq ${cut})`, disabled: err ? `${err.code}: ${err.message}` : undefined };
  }
  const err = world.forkError(session);
  return { label: 'fork at the head', disabled: err ? `${err.code}: ${err.message}` : undefined };
}

/** For a harness file: why dsh --resume would refuse it. */
function resumeWhy(session: Session | undefined, world: World): string | undefined {
  if (!session?.file || layoutOf(session.file) === 'flat') return undefined;
  const why = world.resumeRefusal(session);
  return why ? `dsh --resume would refuse it: ${why}` : undefined;
}

export function menuItems(s: AppState, world: World): MenuItem[] {
  const session = selectedSession(s, world);
  const none = session ? undefined : 'no session selected';
  const gone = s.ghost ? 'its file was deleted' : undefined;
  const fork = forkWhy(s, world);
  const items: MenuItem[] = [
    { key: 'Enter', label: s.view === 'turns' ? 'open / fold the row' : 'open in Turns', command: 'open', disabled: none },
    { key: 'f', label: fork.label, command: 'fork', disabled: fork.disabled },
    { key: 'm', label: s.mark !== undefined && s.mark === s.selection ? 'unmark' : 'mark for compare', command: 'mark', disabled: none },
    { key: 'c', label: 'compare with the marked session', command: 'compare', disabled: compareDisabled(s, world) },
    { key: 'x', label: s.view === 'turns' ? 'export up to here (Markdown)' : 'export (Markdown)', command: 'export', disabled: none },
    { key: 'y', label: 'copy the resume command', command: 'copyResume', disabled: none ?? gone },
    { key: 'R', label: 'resume in the harness (dsh --resume)', command: 'resume', disabled: none ?? gone ?? resumeWhy(session, world) },
  ];
  return items; // MENU_ENTRIES entries: the layout reserves their rows
}
