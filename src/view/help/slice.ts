// The help overlay's slice of the app state.
import type { SurfaceId } from '../app/surface.js';

export interface HelpSlice {
  /** about the keys of the surface it was opened on */
  help?: { scroll: number; of: SurfaceId };
}
