// What a surface's component is handed to draw itself in the body: the app
// state, the world on screen and the layout. Each surface's folder in
// components/ has one such body; app.tsx picks the one of the surface the
// registry says is on screen.
import type React from 'react';
import type { AppLayout } from '../../src/view/app/layout.js';
import type { AppState } from '../../src/view/app/state.js';
import type { World } from '../../src/view/app/world.js';

export interface BodyProps {
  state: AppState;
  world: World;
  lay: AppLayout;
}

export type Body = (props: BodyProps) => React.JSX.Element | null;
