// Keys while a surface owns the keyboard: the fork dialog, help, the filter
// prompt, the action menu, the reader, Compare and the Turns search prompt.
// Pure steps of the reducer in app-reducer.ts.
import { menuItems } from '../menu/action-menu.js';
import { compareEnter, compareReducer } from '../compare/compare-state.js';
import { SessionStore } from '../../session/store.js';
import { type Dialog } from '../dialog/fork-dialog-state.js';
import { helpLines, helpPageSize } from '../help/help.js';
import type { KeyPress } from './keys.js';
import { isQueryError, parseQuery, queryErrorLine } from '../../session/query.js';
import { readerReducer, type ReaderState } from '../reader/reader-state.js';
import { readerCommandFor, readerPromptKey } from '../reader/reader-keys.js';
import { turnMatches } from '../turns/turn-search.js';
import { commandFor, type Command } from './keymap.js';
import { isMove, moveCursor } from './list-cursor.js';
import { sanitizeInline } from '../text/sanitize.js';
import { editField, textField } from '../text/text-field.js';
import type { World } from './world.js';
import { compareBody, layoutOf, openTurns, selectedSession, step, withStatus, type AppState, type CompareSurface, type Step, type TurnSearch } from './state.js';
import { gotoMatch, moveSessions } from './commands.js';

export function dialogKey(s: AppState, d: Dialog, p: KeyPress, world: World): Step {
  if (d.kind === 'refused') {
    if (p.key.escape || p.key.return) return step({ ...s, dialog: undefined });
    if (p.input === 'b' && !p.key.ctrl && d.jumpSeq !== undefined) return step(openTurns({ ...s, dialog: undefined }, d.sourceKey, world, d.jumpSeq));
    if (p.input === 'q' && !p.key.ctrl) return step(s, [{ type: 'exit' }]);
    return step(s);
  }
  if (p.key.escape) return withStatus({ ...s, dialog: undefined }, 'fork cancelled: nothing was written');
  if (p.key.return && p.paste === undefined) {
    if (d.childId.text === '') return step({ ...s, dialog: { ...d, error: { code: 'INVALID_SESSION_ID', message: 'the child id is empty: type one' }, note: undefined } });
    // a pinned empty cut on a log that grew since: the store refuses (INVALID_BOUNDARY), nothing is written
    const boundary = d.cut ?? (d.source.length > 0 ? -1 : undefined);
    return step(s, [{ type: 'fork', source: d.source, boundary, childId: d.childId.text }]);
  }
  const field = editField(d.childId, p);
  if (!field || field === d.childId) return step(s);
  return step({ ...s, dialog: { ...d, childId: field, error: undefined } });
}

export function helpKey(s: AppState, p: KeyPress): Step {
  const cmd = p.paste === undefined ? commandFor(s.view, p.input, p.key) : undefined;
  if (cmd === 'quit') return step(s, [{ type: 'exit' }]);
  if (cmd === 'back' || cmd === 'help') return step({ ...s, help: undefined });
  if (isMove(cmd)) {
    const page = helpPageSize(layoutOf(s).content);
    const n = helpLines(s.view).length;
    return step({ ...s, help: { scroll: Math.min(Math.max(0, n - page), moveCursor(s.help!.scroll, cmd!, n, page)) } });
  }
  return step(s);
}

export function filterKey(s: AppState, p: KeyPress, world: World): Step {
  const k = p.key;
  if (p.paste === undefined) {
    if (k.escape) return step({ ...s, filter: textField(''), filterEditing: false });
    if (k.return) return step({ ...s, filterEditing: false });
    if (k.upArrow || k.downArrow || k.pageUp || k.pageDown) return moveSessions(s, k.upArrow ? 'up' : k.downArrow ? 'down' : k.pageUp ? 'pageUp' : 'pageDown', world);
  }
  const field = editField(s.filter, p);
  return step(field && field !== s.filter ? { ...s, filter: field } : s);
}

/** The action menu owns the keyboard: move, Enter chooses an entry (or says why it cannot), Esc closes; the chosen command comes back for the reducer to run. */
export function menuKey(s: AppState, p: KeyPress, world: World): Step | { state: AppState; run: Command } {
  const items = menuItems(s, world);
  const k = p.key;
  const cursor = Math.min(s.menu!.cursor, Math.max(0, items.length - 1));
  if (p.paste !== undefined) return step(s);
  if (k.escape || (p.input === 'a' && !k.ctrl)) return step({ ...s, menu: undefined });
  if (k.upArrow || p.input === 'k') return step({ ...s, menu: { cursor: Math.max(0, cursor - 1) } });
  if (k.downArrow || p.input === 'j') return step({ ...s, menu: { cursor: Math.min(items.length - 1, cursor + 1) } });
  if (k.home || p.input === 'g') return step({ ...s, menu: { cursor: 0 } });
  if (k.end || p.input === 'G') return step({ ...s, menu: { cursor: items.length - 1 } });
  // an entry's own key runs it too, as the keys stay the fast path
  const byKey = !k.return && !k.ctrl ? items.findIndex((i) => i.key === p.input) : -1;
  const chosen = k.return ? items[cursor] : byKey >= 0 ? items[byKey] : undefined;
  if (!chosen) return step(s);
  const closed = { ...s, menu: undefined };
  if (chosen.disabled) return withStatus(closed, `${chosen.label}: ${chosen.disabled}`, 'error');
  return { state: closed, run: chosen.command };
}

export function readerKey(s: AppState, r: ReaderState, p: KeyPress): Step {
  if (r.prompt !== null) {
    if (p.paste === undefined) {
      const a = readerPromptKey(p.input, p.key);
      if (a) return step({ ...s, reader: readerReducer(r, a) });
    }
    const field = editField(textField(r.prompt), p);
    return step(field && field.text !== r.prompt ? { ...s, reader: readerReducer(r, { type: 'searchInput', text: field.text }) } : s);
  }
  if (p.paste !== undefined) return step(s);
  const cmd = readerCommandFor(p.input, p.key);
  if (!cmd) return step(s);
  if ('action' in cmd) return step({ ...s, reader: readerReducer(r, cmd.action) });
  if (cmd.app === 'close') return step({ ...s, reader: undefined });
  return step(s, [{ type: 'pager', content: r.doc.lines.map((l) => l.text).join('\n') + '\n' }]);
}

/** Typing the Turns search: Enter runs it (matches, the first one at or after the cursor), Esc cancels. */
export function searchKey(s: AppState, t: TurnSearch, p: KeyPress, world: World): Step {
  if (p.paste === undefined && p.key.escape) return step({ ...s, turnSearch: undefined });
  if (p.paste === undefined && p.key.return) {
    const text = t.field.text.trim();
    if (!text) return step({ ...s, turnSearch: undefined });
    const q = parseQuery(text);
    if (isQueryError(q)) return withStatus(s, queryErrorLine(q), 'error');
    const session = selectedSession(s, world);
    if (!session) return step(s);
    let seqs: number[];
    try {
      seqs = [...new Set(turnMatches(q, session.events).map((m) => m.seq))].sort((a, b) => a - b);
    } catch (e) {
      return withStatus(s, `cannot search this session: ${sanitizeInline((e as Error).message)}`, 'error');
    }
    const next = { ...s, turnSearch: { ...t, editing: false, seqs, query: text } };
    if (!seqs.length) return withStatus(next, `no match for ${sanitizeInline(text)}`, 'error');
    return gotoMatch(next, world, 1, true);
  }
  const field = editField(t.field, p);
  return step(field && field !== t.field ? { ...s, turnSearch: { ...t, field } } : s);
}

export function compareKey(s: AppState, c: CompareSurface, p: KeyPress, world: World): Step {
  const k = p.key;
  if (p.paste !== undefined) return step(s);
  if (k.escape || (p.input === 'q' && !k.ctrl)) return step({ ...s, compare: undefined, view: c.from });
  if (k.return) {
    const target = compareEnter(c.comparison, c.rows, c.cs);
    if (!target) return step(s);
    const key = SessionStore.keyOf(target.session);
    if (!world.session(key)) return withStatus(s, `session ${sanitizeInline(target.session.id)} is no longer in the store`, 'error');
    return step(openTurns({ ...s, compare: { ...c, open: false } }, key, world, target.seq));
  }
  const move: Record<string, Parameters<typeof compareReducer>[1]['type'] | undefined> = {
    up: 'up', down: 'down', pageUp: 'pageUp', pageDown: 'pageDown', home: 'home', end: 'end', left: 'left', right: 'right', tab: 'toggleSide',
  };
  const name = k.upArrow || p.input === 'k' ? 'up' : k.downArrow || p.input === 'j' ? 'down' : k.pageUp ? 'pageUp' : k.pageDown ? 'pageDown' : k.home || p.input === 'g' ? 'home' : k.end || p.input === 'G' ? 'end' : k.leftArrow || p.input === 'h' ? 'left' : k.rightArrow || p.input === 'l' ? 'right' : k.tab ? 'tab' : undefined;
  const type = name ? move[name] : undefined;
  if (!type) return step(s);
  return step({ ...s, compare: { ...c, cs: compareReducer(c.cs, { type }, c.rows, compareBody(s)) } });
}
