import { describe, expect, it } from 'vitest';
import { READER_BINDINGS, READER_PROMPT_KEYS, type ReaderBinding } from '../../../src/view/reader/reader-keys.js';
import type { KeyFlags } from '../../../src/view/app/binding.js';
import { APP, initialAppState } from '../../../src/view/app/surfaces.js';
import type { World } from '../../../src/view/app/world.js';
import { initialReaderState, readerDoc, readerReducer, type ReaderState } from '../../../src/view/reader/reader-state.js';

/** The binding a key means in the reader, and the prompt's action for a key while its search prompt is open. */
const readerBindingFor = (input: string, key: KeyFlags): ReaderBinding | undefined => READER_BINDINGS.find((b) => b.match(input, key));
const readerPromptKey = (input: string, key: KeyFlags) => READER_PROMPT_KEYS.find((b) => b.match(input, key))?.action;

/**
 * What a key does in the reader: its ReaderAction, or what its handler does
 * to the app when run on a state with the reader open (opens the pager,
 * closes the reader, opens help).
 */
function readerCommandFor(input: string, key: KeyFlags): { action: unknown } | { app: string } | undefined {
  const b: ReaderBinding | undefined = readerBindingFor(input, key);
  if (!b) return undefined;
  if (b.action) return { action: b.action };
  const s = { ...initialAppState({ columns: 80, rows: 24 }, 'turns'), reader: initialReaderState(readerDoc('some text'), 80, 20) };
  const out = b.run!(s, {} as World, APP, { input, key });
  if (out.effects.some((e) => e.type === 'pager')) return { app: 'pager' };
  if (out.state.help) return { app: 'help' };
  if (!out.state.reader) return { app: 'close' };
  return { app: 'unknown' };
}
const readerHints = (promptOpen: boolean) => (promptOpen ? READER_PROMPT_KEYS : READER_BINDINGS).filter((b) => b.hint).map((b) => ({ keys: b.keys.split(' / ')[0], label: b.hint as string }));

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
});
