// SessionsView on its own: the header's count (a deleted selection kept on
// screen is not one of the sessions) and the STATE column's badges, uncut.
import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionsView } from '../../../components/sessions/sessions-view.js';
import { rowOf, type SessionRow } from '../../../src/view/sessions/session-list.js';
import { type SessionListItem } from '../../../src/session/list-item.js';
import { textField } from '../../../src/view/text/text-field.js';
import { displayWidth } from '../../../src/view/text/sanitize.js';

const NOW = 1_795_990_000_000;
const item = (key: string, extra: Partial<SessionListItem> = {}): SessionListItem => ({
  key,
  id: key,
  kind: 'root',
  createdAt: NOW - 60_000,
  turns: 1,
  events: 10,
  state: 'at-boundary',
  diagnostics: 0,
  ...extra,
});
/** The deleted selection, as the app state keeps it on screen (sessionsRows). */
const ghostOf = (s: SessionListItem): SessionRow => ({ ...rowOf({ ...s, gone: true }, 0, NOW), badge: 'file deleted', tone: 'red', forkable: false });

let unmounts: Array<() => void> = [];
afterEach(() => {
  unmounts.forEach((u) => u());
  unmounts = [];
});

function frame(rows: SessionRow[], total: number, width = 100, filter = ''): string[] {
  const r = render(<SessionsView rows={rows} total={total} selected={0} top={0} order="recent" filter={textField(filter)} editing={false} width={width} height={rows.length + 2} />);
  unmounts.push(r.unmount);
  const lines = (r.lastFrame() ?? '').split('\n');
  for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
  return lines;
}

describe('SessionsView', () => {
  const live = Array.from({ length: 3 }, (_, i) => item(`s${i}`));

  it('a deleted selection kept on screen is not counted among the sessions shown', () => {
    const rows = [ghostOf(item('gone')), ...live.map((s) => rowOf(s, 0, NOW))];
    expect(frame(rows, 3)[0]).toMatch(/^3 sessions \(\+1 deleted\) · order: recent/);
    expect(frame(rows.slice(0, 2), 3, 100, 's0')[0]).toMatch(/^1 of 3 sessions \(\+1 deleted\) · /);
    expect(frame(rows.slice(1), 3)[0]).toMatch(/^3 sessions · order/);
  });

  it('the STATE column is wide enough for its badges: ⊘ is spaced from the state, a deleted row says "file deleted" uncut', () => {
    const refused = rowOf(item('r', { notResumable: 'no', diagnostics: 2 }), 0, NOW);
    expect(refused.badge).toBe('⊘ boundary ⚠2');
    const rows = [ghostOf(item('gone')), refused, ...live.map((s) => rowOf(s, 0, NOW))];
    for (const width of [80, 120]) {
      const lines = frame(rows, 3, width);
      expect(lines[2]).toMatch(/^▶ file deleted +gone /);
      expect(lines[3]).toMatch(/^ {2}⊘ boundary ⚠2 +r /);
      expect(lines[1]).toMatch(/^ {2}STATE {9}ID/); // the heading over the same 13-column STATE
    }
  });
});
