import { describe, expect, it } from 'vitest';
import { pagerCommand, READER_BINDINGS, READER_PROMPT_KEYS, readerBindingFor, readerPromptKey, type ReaderBinding } from '../../src/view/reader/reader-keys.js';
import type { KeyFlags } from '../../src/view/app/binding.js';

/** What a key does in the reader: its ReaderAction, or the app command its binding stands for (by its help). */
const APP_COMMANDS: Record<string, string> = { O: 'pager', 'Esc / q': 'close', '?': 'help' };
const described = (b: ReaderBinding | undefined) => (b === undefined ? undefined : b.action ? { action: b.action } : { app: APP_COMMANDS[b.keys] });
const readerCommandFor = (input: string, key: KeyFlags) => described(readerBindingFor(input, key));
const readerHints = (promptOpen: boolean) => (promptOpen ? READER_PROMPT_KEYS : READER_BINDINGS).filter((b) => b.hint).map((b) => ({ keys: b.keys.split(' / ')[0], label: b.hint as string }));
import { initialReaderState, readerDoc, readerReducer, type ReaderState } from '../../src/view/reader/reader-state.js';

describe('reader keys', () => {
  it('maps keys to reader actions and app commands', () => {
    expect(readerCommandFor('j', {})).toEqual({ action: { type: 'scroll', by: 1 } });
    expect(readerCommandFor('', { downArrow: true })).toEqual({ action: { type: 'scroll', by: 1 } });
    expect(readerCommandFor(' ', {})).toEqual({ action: { type: 'page', by: 1 } });
    expect(readerCommandFor('', { pageUp: true })).toEqual({ action: { type: 'page', by: -1 } });
    expect(readerCommandFor('G', {})).toEqual({ action: { type: 'bottom' } });
    expect(readerCommandFor('w', {})).toEqual({ action: { type: 'toggleWrap' } });
    expect(readerCommandFor('/', {})).toEqual({ action: { type: 'searchStart' } });
    expect(readerCommandFor('n', {})).toEqual({ action: { type: 'next' } });
    expect(readerCommandFor('N', {})).toEqual({ action: { type: 'prev' } });
    expect(readerCommandFor('O', {})).toEqual({ app: 'pager' });
    expect(readerCommandFor('', { escape: true })).toEqual({ app: 'close' });
    expect(readerCommandFor('q', {})).toEqual({ app: 'close' });
    expect(readerCommandFor('j', { ctrl: true })).toBeUndefined();
    expect(readerCommandFor('x', {})).toBeUndefined();
  });
  it('no two bindings claim the same key', () => {
    const probes: Array<[string, object]> = [...'jkbgGhlwnNOq/ '].map((c) => [c, {}] as [string, object]);
    for (const flag of ['upArrow', 'downArrow', 'leftArrow', 'rightArrow', 'pageUp', 'pageDown', 'home', 'end', 'escape']) probes.push(['', { [flag]: true }]);
    for (const [input, key] of probes) expect(READER_BINDINGS.filter((b) => b.match(input, key)).length, JSON.stringify([input, key])).toBe(1);
  });
  it('a / search typed, committed and stepped with n, all through the keys', () => {
    let s: ReaderState = initialReaderState(readerDoc(Array.from({ length: 2000 }, (_, i) => (i % 100 === 0 ? `+ hit ${i}` : ` line ${i}`)).join('\n')), 80, 20);
    const press = (input: string, key = {}) => {
      if (s.prompt !== null) {
        const a = readerPromptKey(input, key);
        s = readerReducer(s, a ?? { type: 'searchInput', text: s.prompt + input });
        return;
      }
      const c = readerCommandFor(input, key);
      if (c && 'action' in c) s = readerReducer(s, c.action);
    };
    for (const k of '/hit') press(k);
    expect(s.prompt).toBe('hit');
    press('', { return: true });
    expect(s.search!.matches).toHaveLength(20);
    press('n');
    press('n');
    expect(s.search!.current).toBe(2);
    expect(s.rows[s.top].line).toBeLessThanOrEqual(200);
    expect(s.rows[s.top + s.height - 1].line).toBeGreaterThanOrEqual(200);
  });
  it('footer hints: the reader keys, or the prompt keys while typing', () => {
    expect(readerHints(false).map((h) => h.label)).toEqual(['page', 'wrap', 'search', 'next', 'pager', 'back', 'help']);
    expect(readerHints(true)).toEqual([{ keys: 'Enter', label: 'search' }, { keys: 'Esc', label: 'cancel' }]);
  });
  it('$PAGER: default less -R, quoted arguments', () => {
    expect(pagerCommand({})).toEqual({ command: 'less', args: ['-R'] });
    expect(pagerCommand({ PAGER: '  ' })).toEqual({ command: 'less', args: ['-R'] });
    expect(pagerCommand({ PAGER: 'more' })).toEqual({ command: 'more', args: [] });
    expect(pagerCommand({ PAGER: `bat --style "plain,numbers" -l 'a b'` })).toEqual({ command: 'bat', args: ['--style', 'plain,numbers', '-l', 'a b'] });
  });
});
