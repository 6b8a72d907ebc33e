// A key binding, the one shape every surface's key table has: the keys as
// help shows them, the command they run, the help text, the footer label
// (when the footer shows it), the action menu's label (when the menu lists
// it), and why it cannot run now (lazygit's GetDisabledReason). Help, footer
// and menu are generated from the tables, so a key, its hint and its menu
// entry can never disagree.
import type { AppState } from './state.js';
import type { KeyPress } from './keys.js';
import type { World } from './world.js';

/** Ink's key flags (a subset of ink's Key). */
export interface KeyFlags {
  upArrow?: boolean; downArrow?: boolean; leftArrow?: boolean; rightArrow?: boolean;
  pageUp?: boolean; pageDown?: boolean; return?: boolean; escape?: boolean; tab?: boolean; shift?: boolean; ctrl?: boolean;
  home?: boolean; end?: boolean; backspace?: boolean; delete?: boolean; meta?: boolean;
}

export type Match = (input: string, key: KeyFlags) => boolean;
export type Reason = (s: AppState, world: World) => string | undefined;
export type Label = string | ((s: AppState, world: World) => string);

export interface Binding<C extends string = string> {
  /** as shown in help: `↑ / k` */
  keys: string;
  command: C;
  help: string;
  /** the footer's short label, when the footer shows this key */
  hint?: Label;
  /** the keys as the footer shows them, when not the first of `keys` (`↑↓`) */
  hintKeys?: string;
  /** the action menu's label, when the menu lists this command */
  menu?: Label;
  match: Match;
  /** why the command cannot run now (undefined: it can) */
  disabled?: Reason;
}

/** What help and the footer read of a binding (the reader's table has its own command shape). */
export type KeyDoc = Pick<Binding, 'keys' | 'help' | 'hint' | 'hintKeys' | 'disabled'>;

/** A plain key (no Ctrl, no Alt). */
export const ch = (c: string): Match => (input, key) => input === c && !key.ctrl && !key.meta;
export const flag = (name: keyof KeyFlags): Match => (_input, key) => Boolean(key[name]);
export const either = (...ms: Match[]): Match => (input, key) => ms.some((m) => m(input, key));

/** The binding a key press means in a table (a paste is never a command). */
export function bindingFor<C extends string>(table: readonly Binding<C>[], p: KeyPress): Binding<C> | undefined {
  if (p.paste !== undefined) return undefined;
  return table.find((b) => b.match(p.input, p.key));
}

export const labelOf = (l: Label, s: AppState, world: World): string => (typeof l === 'function' ? l(s, world) : l);

/** The first key as the footer and the menu show it (`q / Ctrl-C` -> `q`). */
export const shortKey = (b: KeyDoc): string => b.hintKeys ?? b.keys.split(' / ')[0];
