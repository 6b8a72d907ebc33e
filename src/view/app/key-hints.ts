// The one-line footer: the hints of whatever surface has the keyboard,
// generated from its key table (so a hint never names a key the app does not
// bind, and a disabled hint gives the binding's own reason, lazygit style).
import { labelOf, shortKey, type KeyDoc } from './binding.js';
import type { AppState } from './state.js';
import { APP } from './surfaces.js';
import type { World } from './world.js';

export interface KeyHint {
  keys: string;
  label: string;
  /** why it cannot run now: the binding's reason, word for word */
  disabled?: string;
}

export function hintsOf(table: readonly KeyDoc[], s: AppState, world: World): KeyHint[] {
  const out: KeyHint[] = [];
  for (const b of table) {
    if (b.hint === undefined) continue;
    const hint: KeyHint = { keys: shortKey(b), label: labelOf(b.hint, s, world, APP) };
    const why = b.disabled?.(s, world, APP);
    if (why) hint.disabled = why;
    out.push(hint);
  }
  return out;
}

export const footerHints = (s: AppState, world: World): KeyHint[] => hintsOf(APP.active(s).keys(s), s, world);

/** A reason, short enough for the footer: its code when it starts with one (`OPEN_TURN: …` -> `OPEN_TURN`). */
export function shortReason(reason: string): string {
  const m = /^([A-Z][A-Z0-9_]{2,}):/.exec(reason);
  return m ? m[1] : reason;
}
