// The Turns view in the body: the selected session's turns, or why there are none.
import { Text } from 'ink';
import React from 'react';
import { selectedSession } from '../../src/view/app/state.js';
import { turnsStateOf } from '../../src/view/turns/turns-slice.js';
import type { BodyProps } from '../app/body.js';
import { TurnsView } from './turns-view.js';

export function TurnsBody({ state, world, lay }: BodyProps): React.JSX.Element | null {
  if (lay.view <= 0) return null;
  const session = selectedSession(state, world);
  if (!session) return <Text dimColor>  no session selected (Tab to Sessions)</Text>;
  return <TurnsView state={state} world={world} session={session} turns={turnsStateOf(state, state.selection)} width={lay.width} height={lay.view} />;
}
