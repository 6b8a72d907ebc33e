// The Lineage view in the body: the family tree, the selection's ancestry marked.
import React from 'react';
import { indexOfKey } from '../../src/view/app/state.js';
import { ancestryKeys } from '../../src/view/lineage-graph/lineage-layout.js';
import type { BodyProps } from '../app/body.js';
import { LineageView } from './lineage-view.js';

export function LineageBody({ state, world, lay }: BodyProps): React.JSX.Element | null {
  if (lay.view <= 0) return null;
  const layout = world.lineage(state.lineage.collapsed);
  const ancestry = state.selection ? ancestryKeys(layout, state.selection) : new Set<string>();
  return <LineageView layout={layout} selected={indexOfKey(layout.rows, state.selection, state.lineage.hint)} top={state.lineage.top} ancestry={ancestry} mark={state.mark} width={lay.width} height={lay.view} />;
}
