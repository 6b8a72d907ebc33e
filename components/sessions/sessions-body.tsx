// The Sessions view in the body: the rows as shown, with the filter prompt
// and the project scope.
import React from 'react';
import { indexOfKey } from '../../src/view/app/state.js';
import { sessionsRows } from '../../src/view/sessions/rows.js';
import { filterQueryError } from '../../src/view/sessions/session-filter.js';
import { sanitizeInline } from '../../src/view/text/sanitize.js';
import type { BodyProps } from '../app/body.js';
import { SessionsView } from './sessions-view.js';

export function SessionsBody({ state, world, lay }: BodyProps): React.JSX.Element | null {
  if (lay.view <= 0) return null;
  const rows = sessionsRows(state, world);
  return (
    <SessionsView
      rows={rows}
      total={world.total}
      scoped={Boolean(world.scope && !state.allProjects)}
      selected={indexOfKey(rows, state.selection, state.sessions.hint)}
      top={state.sessions.top}
      order={state.order}
      filter={state.filter}
      editing={state.filterEditing}
      mark={state.mark}
      scope={world.scope ? (state.allProjects ? 'all projects (p: this one)' : `project ${sanitizeInline(world.scope.cwd)} (p: all)`) : undefined}
      width={lay.width}
      height={lay.view}
      scanning={world.scanning}
      searching={world.filterSearching(state.filter.text)}
      queryError={filterQueryError(state.filter.text)}
    />
  );
}
