// Key routing for the app: overlays first (fork dialog, help), then the filter
// prompt, then the key table (commandFor). In Turns only the global commands
// are handled here; the Turns view handles its own keys while focused.
import type { Key } from 'ink';
import type { Session } from '../src/session/session.js';
import { SessionStore } from '../src/session/store.js';
import { commandFor, type ViewName } from '../src/view/keymap.js';
import type { LineageLayout } from '../src/view/lineage-layout.js';
import { isMove, moveCursor } from '../src/view/list-cursor.js';
import { nextOrder, type SessionRow, type SortOrder } from '../src/view/session-list.js';
import { dropLast, printable } from '../src/view/text-edit.js';
import type { Status } from './chrome.js';
import { VIEWS } from './chrome.js';
import { helpLines, helpPageSize } from './help-overlay.js';
import type { ForkFlow } from './use-fork-flow.js';
import { useKeys } from './use-keys.js';

type Setter<T> = (v: T | ((prev: T) => T)) => void;

export interface AppModel {
  view: ViewName;
  setView: Setter<ViewName>;
  help: { open: boolean; scroll: number };
  setHelp: Setter<{ open: boolean; scroll: number }>;
  filter: { text: string; editing: boolean };
  setFilter: Setter<{ text: string; editing: boolean }>;
  setOrder: Setter<SortOrder>;
  setStatus: Setter<Status | undefined>;
  fork: ForkFlow;
  exit: () => void;
  sessions: { rows: SessionRow[]; index: number; setFallback: (i: number) => void };
  lineage: { layout: LineageLayout; index: number; setCursor: (c: { index: number; key?: string }) => void };
  selected?: Session;
  selectedKey?: string;
  select: (key: string | undefined) => void;
  openTurns: (key: string, seq?: number) => void;
}


function cycleView(view: ViewName, step: number): ViewName {
  return VIEWS[(VIEWS.indexOf(view) + step + VIEWS.length) % VIEWS.length];
}

export function useAppInput(m: AppModel, pageHeight: number, afterKey?: () => void): void {
  // useKeys: the handler always sees this render's model (see use-keys.ts).
  useKeys((input: string, key: Key) => {
    // 1. the fork dialog owns the keyboard while open
    if (m.fork.state.kind === 'confirm') {
      if (key.escape) {
        m.fork.close();
        m.setStatus({ tone: 'info', text: 'fork cancelled: nothing was written' });
      } else if (key.return) m.fork.confirm();
      else m.fork.edit(input, key);
      return;
    }
    if (m.fork.state.kind === 'refused') {
      const st = m.fork.state;
      if (key.escape || key.return) m.fork.close();
      else if (input === 'b' && st.jumpSeq !== undefined) {
        m.fork.close();
        m.openTurns(SessionStore.keyOf(st.source), st.jumpSeq);
      } else if (input === 'q') m.exit();
      return;
    }
    const cmd = commandFor(m.view, input, key);
    // 2. help overlay
    if (m.help.open) {
      if (cmd === 'quit') m.exit();
      else if (cmd === 'back' || cmd === 'help') m.setHelp({ open: false, scroll: 0 });
      else if (isMove(cmd)) {
        const n = helpLines(m.view).length;
        const page = helpPageSize(pageHeight);
        m.setHelp((h) => ({ open: true, scroll: Math.min(Math.max(0, n - page), moveCursor(h.scroll, cmd!, n, page)) }));
      }
      return;
    }
    // 3. the filter prompt
    if (m.view === 'sessions' && m.filter.editing) {
      if (key.escape) m.setFilter({ text: '', editing: false });
      else if (key.return) m.setFilter((f) => ({ ...f, editing: false }));
      else if (key.backspace || key.delete) m.setFilter((f) => ({ ...f, text: dropLast(f.text) }));
      else if (key.upArrow || key.downArrow || key.pageUp || key.pageDown) moveSessions(m, key.upArrow ? 'up' : key.downArrow ? 'down' : key.pageUp ? 'pageUp' : 'pageDown', pageHeight);
      else if (!key.ctrl && !key.meta && !key.tab) {
        const add = printable(input);
        if (add) m.setFilter((f) => ({ ...f, text: f.text + add }));
      }
      return;
    }
    // 4. the key table
    switch (cmd) {
      case 'quit':
        m.exit();
        return;
      case 'help':
        m.setHelp({ open: true, scroll: 0 });
        return;
      case 'nextView':
      case 'prevView':
        m.setView(cycleView(m.view, cmd === 'nextView' ? 1 : -1));
        return;
    }
    if (m.view === 'turns' || cmd === undefined) return;
    if (m.view === 'sessions') sessionsCommand(m, cmd, pageHeight);
    else lineageCommand(m, cmd, pageHeight);
  }, true, afterKey);
}

function moveSessions(m: AppModel, cmd: Parameters<typeof moveCursor>[1], pageHeight: number): void {
  const rows = m.sessions.rows;
  if (!rows.length) return;
  const i = moveCursor(m.sessions.index, cmd, rows.length, pageHeight - 2);
  m.sessions.setFallback(i);
  m.select(rows[i].key);
}

function sessionsCommand(m: AppModel, cmd: NonNullable<ReturnType<typeof commandFor>>, pageHeight: number): void {
  const row = m.sessions.rows[m.sessions.index];
  if (isMove(cmd)) return moveSessions(m, cmd, pageHeight);
  switch (cmd) {
    case 'open':
      if (row) m.openTurns(row.key);
      return;
    case 'filter':
      m.setFilter((f) => ({ ...f, editing: true }));
      return;
    case 'cycleSort':
      m.setOrder((o) => nextOrder(o));
      return;
    case 'back':
      if (m.filter.text) m.setFilter({ text: '', editing: false });
      else m.setStatus(undefined);
      return;
    case 'fork':
      if (row && m.selected) m.fork.request(m.selected);
      return;
  }
}

function lineageCommand(m: AppModel, cmd: NonNullable<ReturnType<typeof commandFor>>, pageHeight: number): void {
  const rows = m.lineage.layout.rows;
  const row = rows[m.lineage.index];
  if (isMove(cmd)) {
    if (!rows.length) return;
    const i = moveCursor(m.lineage.index, cmd, rows.length, pageHeight - 1);
    const key = rows[i].key ?? m.selectedKey;
    if (key !== m.selectedKey) m.select(key);
    m.lineage.setCursor({ index: i, key });
    return;
  }
  switch (cmd) {
    case 'open':
      if (row?.key && m.selected) m.openTurns(row.key, m.selected.kind === 'fork' && m.selected.seedLength ? m.selected.seedLength - 1 : undefined);
      return;
    case 'back':
      m.setView('sessions');
      return;
    case 'fork':
      if (row?.key && m.selected) m.fork.request(m.selected);
      return;
  }
}
