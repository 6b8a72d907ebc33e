// The Sessions detail pane's lines: a chart of tokens per turn with its
// axis; nothing to chart said in words; loading and errors said.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { sessionDetailLines } from '../../../src/view/sessions/session-detail.js';
import { cleanupTmp, evs, hdr, tmpDir, turnRows, writeLog } from '../../support/fixtures.js';

afterAll(cleanupTmp);

function session() {
  const dir = tmpDir();
  writeLog(path.join(dir, 'a.jsonl'), hdr('a'), evs(...turnRows(1), ...turnRows(2)));
  return loadRootSync(dir).store.get('a')!;
}

const point = (turn: number, tokens: number) => ({ turn, seq: turn * 10, tokens, ms: 1000, open: false });

describe('sessionDetailLines', () => {
  it('charts tokens per turn three rows high, with the peak and its turn', () => {
    const lines = sessionDetailLines(session(), { series: [point(1, 100), point(2, 400), point(3, 0)] }, 40);
    expect(lines.map((l) => l.text)).toEqual(['a · at-boundary · 2 turns · 14 events', 'no token usage in the log', ' █ ', ' █ ', '▆█·', 'tokens per turn, turn 1–3 · peak 400 at turn 2 · 3.0s in turns']);
  });

  it('says in words when there is nothing to chart, or why it cannot', () => {
    const s = session();
    expect(sessionDetailLines(s, { series: [point(1, 0)] }, 40).at(-1)!.text).toBe('tokens per turn: none recorded in its turn');
    expect(sessionDetailLines(s, { series: [] }, 40).at(-1)!.text).toBe('tokens per turn: no turn yet');
    expect(sessionDetailLines(s, { loading: 'reading its turns (40%)' }, 40).at(-1)).toEqual({ text: 'tokens per turn: reading its turns (40%)', tone: 'yellow' });
    expect(sessionDetailLines(s, { error: 'gone\x1b[2J' }, 40).at(-1)!.text).not.toContain('\x1b');
  });
});
