// Opening a session whose log holds multi-GB over-long lines (sparse files:
// holes of zero bytes, no newline) in the real app: the skip to each line's
// end runs in slices off the key path, the screen says it is loading and keys
// keep working (Esc goes back and drops the load), and the session then shows
// with its LINE_TOO_LONG diagnostics (file and line) as a load at once gives.
// The event loop is never blocked for long meanwhile (a timer-drift monitor,
// with a generous bound), the background audit of that log included. A
// normal log still opens in the key's own frame, with no "loading" frame.
import { indexProgress, turnIndexOf } from '../../../src/storage/indexed-turns.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LINE_SCAN } from '../../../src/storage/log-reader.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { readLog } from '../../../src/storage/session-file.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows } from '../../support/fixtures.js';
import { KEY, mountApp } from '../../support/app-harness.js';
import { monitorLoop } from '../../support/loop-monitor.js';

afterEach(cleanupTmp);

/** The longest the loop may be blocked at once (the skip at once blocked it ~430 ms on an idle 2-core machine). */
const MAX_BLOCK_MS = 200;
/** Each over-long line: just under the scan cap, so it is skipped to its end (and the log read on), not given up. */
const HOLE = MAX_LINE_SCAN - 16 * 1024 * 1024;

/** header, a turn, [hole, newline, a turn] x `holes`: the holes are over-long lines of zero bytes (sparse: no disk). */
function writeHoles(file: string, holes: number): number[] {
  const all = evs(...Array.from({ length: holes + 1 }, (_, i) => turnRows(i + 1)).flat());
  const fd = fs.openSync(file, 'w');
  let pos = 0;
  const write = (s: string) => (pos += fs.writeSync(fd, s, pos));
  write(logText(hdr('holes'), all.slice(0, 7)));
  const longLines: number[] = [];
  for (let k = 1; k <= holes; k++) {
    longLines.push(1 + 7 * k + k); // header, 7k events, k-1 long lines before it
    pos += HOLE;
    write('\n' + all.slice(7 * k, 7 * k + 7).map((e) => JSON.stringify(e) + '\n').join(''));
  }
  fs.closeSync(fd);
  return longLines;
}

describe('a session with multi-GB over-long lines opens off the key path', () => {
  it('shows that it loads, keeps keys working, then shows the session with LINE_TOO_LONG; the loop is never blocked long', { timeout: 180_000 }, async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'holes.jsonl');
    const longLines = writeHoles(file, 2);
    expect(fs.statSync(file).size).toBeGreaterThan(2 * 1000 * 1024 * 1024);
    const index = loadRootSync(dir); // the scan (in steps in the app) is not what this test measures
    const session = index.store.get('holes')!;
    expect(session.diagnostics.map((d) => [d.code, d.line])).toEqual(longLines.map((l) => ['LINE_TOO_LONG', l]));

    const m = mountApp({ index, view: 'sessions' });
    const loop = monitorLoop();
    try {
      await m.idle(); // the background audit reads the whole log too, in its slices
      expect(m.state().view).toBe('sessions');

      const seen = m.r.frames.length;
      await m.press(KEY.enter);
      expect(m.state().view).toBe('turns');
      // tail first: the last turn shows at once, while the rest is indexed in slices (the skips included)
      const loading = m.r.frames.slice(seen).join('\n');
      expect(loading).toContain('turn 3');
      expect(loading).toMatch(/indexing earlier turns \d+% \(skipping an over-long line: line \d+\)/);
      expect(session.isLoaded).toBe(false);

      // keys keep working: Esc goes back, and the load is dropped (its file closed)
      await m.press(KEY.esc);
      expect(m.state().view).toBe('sessions');
      expect(m.selectedLine()).toContain('holes');
      await m.idle();
      expect(session.loading).toBeUndefined();
      expect(indexProgress(session)).toBeUndefined();
      expect(session.isLoaded).toBe(false);

      // open again and let it index
      await m.press(KEY.enter);
      expect(m.frame()).toMatch(/indexing earlier turns \d+%/);
      await m.idle();
      // a log this size opens from its offset index: its events are never all loaded
      expect(turnIndexOf(session)?.current).toBe(true);
      expect(session.isLoaded).toBe(false);
      expect(m.frame()).not.toContain('loading this session');
      expect(m.frame()).not.toContain('indexing earlier turns');
      expect(m.frame()).toMatch(/holes {2}\[at boundary\] {2}· 3 turns · 21 events/);
      // opened tail first, the cursor started on the end and followed it while the earlier turns filled in
      expect(m.turnsSelected()).toMatch(/^› +── fork here · seq 20 ──/);
      expect(m.frame()).toMatch(/ 0 ▸ turn 1 /);
      expect(session.diagnostics.map((d) => ({ code: d.code, file: d.file, line: d.line }))).toEqual(longLines.map((line) => ({ code: 'LINE_TOO_LONG', file, line })));
    } finally {
      const worst = loop.stop();
      m.unmount();
      expect(worst, `the longest block of the event loop, ms`).toBeLessThan(MAX_BLOCK_MS);
    }
    // what a load at once gives (it blocks: only after the measure)
    const once = readLog(file, true).reader;
    expect(session.events).toEqual(once.events);
    expect(session.diagnostics).toEqual(once.diagnostics);
  });

  it('a normal log opens in the key press itself: no "loading" frame', async () => {
    const dir = tmpDir();
    const all = evs(...Array.from({ length: 2000 }, (_, i) => turnRows(i + 1, { kind: 'completed' }, `prompt ${i + 1} ${'x'.repeat(200)}`)).flat());
    fs.writeFileSync(path.join(dir, 'normal.jsonl'), logText(hdr('normal'), all)); // 14,000 events, ~4 MB
    const m = mountApp({ index: loadRootSync(dir), view: 'sessions' });
    try {
      await m.idle();
      const seen = m.r.frames.length;
      await m.press(KEY.enter);
      const frames = m.r.frames.slice(seen);
      expect(frames.join('\n')).not.toContain('loading');
      expect(frames[0]).toMatch(/normal {2}\[at boundary\] {2}· 2000 turns · 14000 events/);
    } finally {
      m.unmount();
    }
  });
});
