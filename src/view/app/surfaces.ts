// Keys while a surface other than a view owns the keyboard: the fork dialog,
// the action menu, help, the filter and search prompts, the reader and
// Compare. Each step receives the binding its key table found (or none: text
// for a field). Pure steps of the reducer in reducer.ts.
import { compareReducer } from '../compare/compare-state.js';
import { COMPARE_KEYS } from '../compare/keys.js';
import { CONFIRM_KEYS, REFUSED_KEYS } from '../dialog/keys.js';
import { type Dialog } from '../dialog/fork-dialog-state.js';
import { HELP_KEYS } from '../help/keys.js';
import { helpRowCount, helpPageSize } from '../help/help.js';
import type { KeyPress } from './keys.js';
import { isQueryError, parseQuery, queryErrorLine } from '../../session/query.js';
import { readerReducer, type ReaderState } from '../reader/reader-state.js';
import { readerCommandFor, readerPromptKey } from '../reader/reader-keys.js';
import { turnMatches } from '../turns/turn-search.js';
import { SEARCH_KEYS } from '../turns/keys.js';
import { FILTER_KEYS } from '../sessions/keys.js';
import { MENU_KEYS } from '../menu/keys.js';
import { menuItems } from '../menu/action-menu.js';
import { bindingFor } from './binding.js';
import { type Command } from './keymap.js';
import { moveCursor } from './list-cursor.js';
import { sanitizeInline } from '../text/sanitize.js';
import { editField, textField } from '../text/text-field.js';
import type { World } from './world.js';
import { contentSurface } from './surface.js';
import { hasTarget, target } from './target.js';
import { compareBody, layoutOf, openTurns, selectedSession, step, withStatus, type AppState, type CompareSurface, type Step, type TurnSearch } from './state.js';
import { gotoMatch, moveSessions } from './commands.js';
import { disabledStatus } from './verdicts.js';

export function dialogKey(s: AppState, d: Dialog, p: KeyPress, world: World): Step {
  if (d.kind === 'refused') {
    switch (bindingFor(REFUSED_KEYS, p)?.command) {
      case 'close':
        return step({ ...s, dialog: undefined });
      case 'jump':
        return d.jumpSeq === undefined ? step(s) : step(openTurns({ ...s, dialog: undefined }, d.sourceKey, world, d.jumpSeq));
      case 'quit':
        return step(s, [{ type: 'exit' }]);
      default:
        return step(s);
    }
  }
  switch (bindingFor(CONFIRM_KEYS, p)?.command) {
    case 'cancel':
      return withStatus({ ...s, dialog: undefined }, 'fork cancelled: nothing was written');
    case 'fork': {
      if (d.childId.text === '') return step({ ...s, dialog: { ...d, error: { code: 'INVALID_SESSION_ID', message: 'the child id is empty: type one' }, note: undefined } });
      // a pinned empty cut on a log that grew since: the store refuses (INVALID_BOUNDARY), nothing is written
      const boundary = d.cut ?? (d.source.length > 0 ? -1 : undefined);
      return step(s, [{ type: 'fork', source: d.source, boundary, childId: d.childId.text }]);
    }
  }
  const field = editField(d.childId, p);
  if (!field || field === d.childId) return step(s);
  return step({ ...s, dialog: { ...d, childId: field, error: undefined } });
}

export function helpKey(s: AppState, p: KeyPress): Step {
  const cmd = bindingFor(HELP_KEYS, p)?.command;
  if (cmd === 'quit') return step(s, [{ type: 'exit' }]);
  if (cmd === 'close') return step({ ...s, help: undefined });
  if (!cmd || !s.help) return step(s);
  const lay = layoutOf(s);
  const page = helpPageSize(lay.content);
  const n = helpRowCount(s.help.of, s, lay.width);
  return step({ ...s, help: { ...s.help, scroll: Math.min(Math.max(0, n - page), moveCursor(s.help.scroll, cmd, n, page)) } });
}

/** `?` on any surface: help about that surface's keys. */
export const openHelp = (s: AppState): Step => step({ ...s, help: { scroll: 0, of: s.menu ? 'menu' : s.dialog ? 'dialog' : contentSurface(s) } });

export function filterKey(s: AppState, p: KeyPress, world: World): Step {
  const cmd = bindingFor(FILTER_KEYS, p)?.command;
  switch (cmd) {
    case 'clear':
      return step({ ...s, filter: textField(''), filterEditing: false });
    case 'keep':
      return step({ ...s, filterEditing: false });
    case 'up':
    case 'down':
    case 'pageUp':
    case 'pageDown':
      return moveSessions(s, cmd, world);
  }
  const field = editField(s.filter, p);
  return step(field && field !== s.filter ? { ...s, filter: field } : s);
}

/** The action menu owns the keyboard: move, Enter chooses an entry (or says why it cannot), Esc closes; the chosen command comes back for the reducer to run. */
export function menuKey(s: AppState, p: KeyPress, world: World): Step | { state: AppState; run: Command } {
  const items = menuItems(s, world);
  const cursor = Math.min(s.menu!.cursor, Math.max(0, items.length - 1));
  const cmd = bindingFor(MENU_KEYS, p)?.command;
  switch (cmd) {
    case 'close':
      return step({ ...s, menu: undefined });
    case 'up':
    case 'down':
    case 'top':
    case 'bottom': {
      const at = cmd === 'up' ? cursor - 1 : cmd === 'down' ? cursor + 1 : cmd === 'top' ? 0 : items.length - 1;
      return step({ ...s, menu: { cursor: Math.min(Math.max(0, at), Math.max(0, items.length - 1)) } });
    }
  }
  if (p.paste !== undefined) return step(s);
  // an entry's own key runs it too, as the keys stay the fast path
  const byKey = cmd !== 'run' && !p.key.ctrl ? items.findIndex((i) => i.key === p.input) : -1;
  const chosen = cmd === 'run' ? items[cursor] : byKey >= 0 ? items[byKey] : undefined;
  if (!chosen) return step(s);
  const closed = { ...s, menu: undefined };
  if (chosen.disabled && !chosen.showsRefusal) return withStatus(closed, disabledStatus(s, world, chosen.label, chosen.disabled), 'error');
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
  // a leftover status (a search's "match 1 of 3") gives the footer back to the keys on the next key
  const s2 = s.status ? { ...s, status: undefined } : s;
  if ('action' in cmd) return step({ ...s2, reader: readerReducer(r, cmd.action) });
  if (cmd.app === 'close') return step({ ...s2, reader: undefined });
  if (cmd.app === 'help') return openHelp(s2);
  return step(s2, [{ type: 'pager', content: r.doc.lines.map((l) => l.text).join('\n') + '\n' }]);
}

/** Typing the Turns search: Enter runs it (matches, the first one at or after the cursor), Esc cancels. */
export function searchKey(s: AppState, t: TurnSearch, p: KeyPress, world: World): Step {
  const cmd = bindingFor(SEARCH_KEYS, p)?.command;
  if (cmd === 'cancel') return step({ ...s, turnSearch: undefined });
  if (cmd === 'search') {
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
  const cmd = bindingFor(COMPARE_KEYS, p)?.command;
  switch (cmd) {
    case undefined:
      return step(s);
    case 'close':
      return step({ ...s, compare: undefined, view: c.from });
    case 'help':
      return openHelp(s);
    case 'quit':
      return step(s, [{ type: 'exit' }]);
    case 'open': {
      const t = target(s, world);
      if (!hasTarget(t)) return withStatus(s, t.none, 'error');
      return step(openTurns({ ...s, compare: { ...c, open: false } }, t.key, world, t.seq));
    }
    default:
      return step({ ...s, compare: { ...c, cs: compareReducer(c.cs, { type: cmd }, c.rows, compareBody(s)) } });
  }
}

