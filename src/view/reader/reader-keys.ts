// The reader's keys, in the shape of the main key table (keymap.ts): input ->
// a ReaderAction (for readerReducer) or a command for the app (close, pager).
// The footer and help read the same table. Plus the $PAGER command line.
import type { KeyDoc, KeyFlags } from '../app/binding.js';
import type { ReaderAction } from './reader-state.js';

export type ReaderCommand = { action: ReaderAction } | { app: 'close' | 'pager' | 'help' };

export interface ReaderBinding {
  keys: string;
  help: string;
  /** short footer label, when the footer shows it */
  hint?: string;
  command: ReaderCommand;
  match(input: string, key: KeyFlags): boolean;
}

const ch = (c: string) => (input: string, key: KeyFlags) => input === c && !key.ctrl && !key.meta;
const act = (action: ReaderAction): ReaderCommand => ({ action });

export const READER_BINDINGS: readonly ReaderBinding[] = [
  { keys: '↓ / j', help: 'scroll down a line', command: act({ type: 'scroll', by: 1 }), match: (i, k) => Boolean(k.downArrow) || ch('j')(i, k) },
  { keys: '↑ / k', help: 'scroll up a line', command: act({ type: 'scroll', by: -1 }), match: (i, k) => Boolean(k.upArrow) || ch('k')(i, k) },
  { keys: 'Space / PgDn', help: 'page down', hint: 'page', command: act({ type: 'page', by: 1 }), match: (i, k) => Boolean(k.pageDown) || ch(' ')(i, k) },
  { keys: 'b / PgUp', help: 'page up', command: act({ type: 'page', by: -1 }), match: (i, k) => Boolean(k.pageUp) || ch('b')(i, k) },
  { keys: 'g / Home', help: 'top', command: act({ type: 'top' }), match: (i, k) => Boolean(k.home) || ch('g')(i, k) },
  { keys: 'G / End', help: 'bottom', command: act({ type: 'bottom' }), match: (i, k) => Boolean(k.end) || ch('G')(i, k) },
  { keys: '← / h', help: 'scroll left (wrap off)', command: act({ type: 'left' }), match: (i, k) => Boolean(k.leftArrow) || ch('h')(i, k) },
  { keys: '→ / l', help: 'scroll right (wrap off)', command: act({ type: 'right' }), match: (i, k) => Boolean(k.rightArrow) || ch('l')(i, k) },
  { keys: 'w', help: 'wrap long lines on/off', hint: 'wrap', command: act({ type: 'toggleWrap' }), match: ch('w') },
  { keys: '/', help: 'search', hint: 'search', command: act({ type: 'searchStart' }), match: ch('/') },
  { keys: 'n', help: 'next match', hint: 'next', command: act({ type: 'next' }), match: ch('n') },
  { keys: 'N', help: 'previous match', command: act({ type: 'prev' }), match: ch('N') },
  { keys: 'O', help: 'open in $PAGER (default less -R), then come back', hint: 'pager', command: { app: 'pager' }, match: ch('O') },
  { keys: 'Esc / q', help: 'back to the same row', hint: 'back', command: { app: 'close' }, match: (i, k) => Boolean(k.escape) || ch('q')(i, k) },
  { keys: '?', help: 'these keys', hint: 'help', command: { app: 'help' }, match: ch('?') },
];

/** The keys of the reader's search prompt (anything else is text for it). */
export const READER_PROMPT_KEYS: readonly KeyDoc[] = [
  { keys: 'Enter', help: 'search', hint: 'search' },
  { keys: 'Esc', help: 'cancel the search', hint: 'cancel' },
];

/** What a key does in the reader (not while its search prompt is open: see readerPromptKey). */
export function readerCommandFor(input: string, key: KeyFlags): ReaderCommand | undefined {
  for (const b of READER_BINDINGS) if (b.match(input, key)) return b.command;
  return undefined;
}

/** While the search prompt is open: Enter commits, Esc cancels; anything else is text for the field. */
export function readerPromptKey(_input: string, key: KeyFlags): ReaderAction | undefined {
  if (key.return) return { type: 'searchCommit' };
  if (key.escape) return { type: 'searchCancel' };
  return undefined;
}

/** The footer while the reader is open: its own keys, short. */
export function readerHints(promptOpen: boolean): Array<{ keys: string; label: string }> {
  const table: readonly KeyDoc[] = promptOpen ? READER_PROMPT_KEYS : READER_BINDINGS;
  return table.filter((b) => b.hint).map((b) => ({ keys: b.keys.split(' / ')[0], label: b.hint as string }));
}

/**
 * $PAGER as a command and arguments (whitespace-separated, with '…' and "…"
 * quoting); `less -R` when unset or blank. The content goes on its stdin.
 */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>): { command: string; args: string[] } {
  const raw = env.PAGER?.trim();
  if (!raw) return { command: 'less', args: ['-R'] };
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(raw); m !== null; m = re.exec(raw)) words.push(m[1] ?? m[2] ?? m[3]);
  return { command: words[0], args: words.slice(1) };
}
