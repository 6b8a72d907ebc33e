// `?` on any surface: help about the keys of that surface.
import { step, type AppState, type Step } from '../app/state.js';
import type { App } from '../app/surface.js';

export function openHelp(s: AppState, app: App): Step {
  const on = app.active(s);
  return step({ ...s, help: { scroll: 0, of: on.overlay ? on.id : app.content(s).id } });
}
