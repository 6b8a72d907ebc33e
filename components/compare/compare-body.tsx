// Compare in the body: the two sessions side by side over the whole content area.
import React from 'react';
import type { BodyProps } from '../app/body.js';
import { CompareView } from './compare-view.js';

export function CompareBody({ state, lay }: BodyProps): React.JSX.Element {
  const c = state.compare!;
  return <CompareView comparison={c.comparison} rows={c.rows} cursor={c.cs.cursor} side={c.cs.side} from={c.cs.from} width={lay.width} height={lay.content} />;
}
