// A key binding, the one shape every surface's key table has: the keys as
// help shows them, what the key does (its handler), the help text, the footer
// label, the action menu's label and why it cannot run now, on one row as
// lazygit's Handler and GetDisabledReason are. Help, the footer, the menu and
// docs/keys.md are generated from the tables, and the reducer runs the
// handler of the binding a key matches: what a table says is what the app does.
import type { KeyPress } from './keys.js';
import type { AppState, Step } from './state.js';
import type { App } from './surface.js';
import type { World } from './world.js';

/** Ink's key flags (a subset of ink's Key). */
export interface KeyFlags {
  upArrow?: boolean; downArrow?: boolean; leftArrow?: boolean; rightArrow?: boolean;
  pageUp?: boolean; pageDown?: boolean; return?: boolean; escape?: boolean; tab?: boolean; shift?: boolean; ctrl?: boolean;
  home?: boolean; end?: boolean; backspace?: boolean; delete?: boolean; meta?: boolean;
}

export type Match = (input: string, key: KeyFlags) => boolean;
/** What a key does: the next state and its effects. */
export type Handler = (s: AppState, world: World, app: App, p: KeyPress) => Step;
export type Reason = (s: AppState, world: World, app: App) => string | undefined;
export type Label = string | ((s: AppState, world: World, app: App) => string);

export interface Binding {
  /** as shown in help: `↑ / k` */
  keys: string;
  help: string;
  /** the footer's short label, when the footer shows this key */
  hint?: Label;
  /** the keys as the footer shows them, when not the first of `keys` (`↑↓`) */
  hintKeys?: string;
  /** the action menu's label, when the menu lists this binding */
  menu?: Label;
  match: Match;
  /** what the key does; absent: a key the surface's text field handles, listed for help only */
  run?: Handler;
  /** why it cannot run now (undefined: it can) */
  disabled?: Reason;
  /** a disabled binding that still runs: the fork shows the store's typed refusal in its dialog (b jumps to a boundary) */
  showsRefusal?: boolean;
}

/** What help and the footer read of a binding. */
export type KeyDoc = Pick<Binding, 'keys' | 'help' | 'hint' | 'hintKeys' | 'disabled'>;

/** A plain key (no Ctrl, no Alt). */
export const ch = (c: string): Match => (input, key) => input === c && !key.ctrl && !key.meta;
export const flag = (name: keyof KeyFlags): Match => (_input, key) => Boolean(key[name]);
export const either = (...ms: Match[]): Match => (input, key) => ms.some((m) => m(input, key));
/** A key listed in help whose press the surface's text field takes (the caret keys). */
export const textKey: Match = () => false;

/** The binding a key press means in a table (a paste is never a binding). */
export function bindingFor<B extends Binding>(table: readonly B[], p: KeyPress): B | undefined {
  if (p.paste !== undefined) return undefined;
  return table.find((b) => b.match(p.input, p.key));
}

export const labelOf = (l: Label, s: AppState, world: World, app: App): string => (typeof l === 'function' ? l(s, world, app) : l);

/** The first key as the footer and the menu show it (`q / Ctrl-C` -> `q`). */
export const shortKey = (b: KeyDoc): string => b.hintKeys ?? b.keys.split(' / ')[0];
