// `?` on any surface (a view, the reader, Compare): help about the keys of that
// surface, or of the overlay it was pressed on.
import { step, type AppState, type Step } from './state.js';
import type { App } from './surface.js';

export function openHelp(s: AppState, app: App): Step {
  const on = app.active(s);
  return step({ ...s, help: { scroll: 0, of: on.overlay ? on.id : app.content(s).id } });
}
