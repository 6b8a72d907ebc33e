// The Sessions view in the body: the rows as shown, with the filter prompt
// and the project scope.
import React from 'react';
import type { Session } from '../../src/session/session.js';
import { indexOfKey, selectedSession } from '../../src/view/app/state.js';
import { sessionDetailLines, type DetailTurns } from '../../src/view/sessions/session-detail.js';
import { sessionsLayout } from '../../src/view/sessions/sessions-layout.js';
import { partialPercent } from '../../src/view/text/percent.js';
import { sessionsRows } from '../../src/view/sessions/rows.js';
import { filterQueryError } from '../../src/view/sessions/session-filter.js';
import { sanitizeInline } from '../../src/view/text/sanitize.js';
import type { BodyProps } from '../app/body.js';
import { SessionsView } from './sessions-view.js';

/** What the detail pane can read of the selected session's turns now. */
function detailTurns(world: BodyProps['world'], session: Session): DetailTurns {
  const data = world.turns(session);
  if (data.loading) return { loading: `reading its turns (${partialPercent(data.loading)}%)` };
  if (!data.ok) return { error: data.error };
  return { series: data.series, partial: data.partial !== undefined };
}

export function SessionsBody({ state, world, lay }: BodyProps): React.JSX.Element | null {
  if (lay.view <= 0) return null;
  const rows = sessionsRows(state, world);
  const layout = sessionsLayout(lay.view, state.sessionsDetail);
  const session = layout.pane > 0 ? selectedSession(state, world) : undefined;
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
      list={layout.list}
      detail={layout.pane > 0 ? (session ? sessionDetailLines(session, detailTurns(world, session), lay.width) : [{ text: 'no session selected', dim: true }]) : undefined}
    />
  );
}
