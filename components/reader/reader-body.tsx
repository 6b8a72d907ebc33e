// The reader in the body: one event's content over the whole content area.
import React from 'react';
import type { BodyProps } from '../app/body.js';
import { ReaderView } from './reader-view.js';

export const ReaderBody = ({ state, lay }: BodyProps): React.JSX.Element => <ReaderView state={state.reader!} width={lay.width} />;
