// The Problems view in the body: every diagnostic, the highlighted one marked.
import React from 'react';
import { highlightedProblem } from '../../src/view/problems/highlighted.js';
import type { BodyProps } from '../app/body.js';
import { ProblemsView } from './problems-view.js';

export function ProblemsBody({ state, world, lay }: BodyProps): React.JSX.Element | null {
  if (lay.view <= 0) return null;
  const rows = world.problems();
  return <ProblemsView rows={rows} selected={highlightedProblem(state, rows)} top={state.problems.top} root={world.root} width={lay.width} height={lay.view} />;
}
