// The action menu's entries (`a`): the view's key table entries that carry a
// menu label, each with its key (the fast path) and, when it cannot run now,
// the binding's own reason (lazygit style). Generated from the same table as
// the keys and the footer, so the three never disagree.
import { labelOf, shortKey, type Binding } from '../app/binding.js';
import type { AppState } from '../app/state.js';
import type { App } from '../app/surface.js';
import { menuBindings } from '../app/view-keys.js';
import type { World } from '../app/world.js';

export interface MenuItem {
  /** the key that does the same (shown, and accepted inside the menu) */
  key: string;
  label: string;
  /** the binding it runs */
  binding: Binding;
  /** what it does, in full (help's text) */
  help: string;
  disabled?: string;
  /** a disabled entry that still runs: the fork, which shows the store's refusal */
  showsRefusal?: boolean;
}

/** The entries of the menu opened on the current view. */
export function menuItems(s: AppState, world: World, app: App): MenuItem[] {
  return menuBindings(app.surface(s.view).keys(s)).map((b) => {
    const item: MenuItem = { key: shortKey(b), label: labelOf(b.menu!, s, world, app), binding: b, help: b.help };
    const why = b.disabled?.(s, world, app);
    if (why) item.disabled = why;
    if (b.showsRefusal) item.showsRefusal = true;
    return item;
  });
}
