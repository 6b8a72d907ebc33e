// `?` on any surface: help about the keys of that surface.
import { step, type AppState, type Step } from '../app/state.js';
import type { App } from '../app/surface.js';

export const openHelp = (s: AppState, app: App): Step => step({ ...s, help: { scroll: 0, of: s.menu ? 'menu' : s.dialog ? 'dialog' : app.content(s).id } });
