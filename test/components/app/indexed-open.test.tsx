// A large log in the real app: its Turns come from the offset
// index (the threshold lowered so a small log takes that path), its `/` search
// reads the log in the background and brings the matches the search of a log
// in memory finds, and Esc cancels a search under way.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseQuery, type Query } from '../../../src/session/query.js';
import { indexProgress, setIndexedMin, turnIndexOf } from '../../../src/storage/indexed-turns.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { openSessionFile, readLog } from '../../../src/storage/session-file.js';
import { encodeStoredFrame } from '../../../src/storage/zstd-frames.js';
import { frameMapOf, setSeekStep } from '../../../src/storage/zstd-seek.js';
import { turnMatches } from '../../../src/session/turn-matches.js';
import { buildTurnRows, historyRows, rowsContext } from '../../../src/view/turns/turn-rows.js';
import { buildTurnTree } from '../../../src/session/replay.js';
import { detailLines } from '../../../src/view/turns/turn-detail.js';
import { cleanupTmp, copyDir, evs, hdr, logText, REPO, tmpDir, turnRows } from '../../support/fixtures.js';
import { KEY, mountApp } from '../../support/app-harness.js';
import { splitKeys } from '../../../src/view/app/keys.js';
import { TurnIndex } from '../../../src/session/turn-index.js';
import { treeSubagents } from '../../../src/session/subagent-calls.js';


beforeAll(() => setIndexedMin(0));
afterAll(() => {
  setIndexedMin(16 * 1024 * 1024);
  cleanupTmp();
});

describe('a large log in the app', () => {
  it('opens from its index; / searches it in the background; Esc cancels a search under way', async () => {
    const dir = tmpDir();
    const all = evs(...Array.from({ length: 400 }, (_, i) => turnRows(i + 1, { kind: 'completed' }, `prompt ${i + 1} ${i % 7 === 0 ? 'needle' : 'hay'} ${'x'.repeat(700)}`)).flat());
    const file = path.join(dir, 'big.jsonl');
    fs.writeFileSync(file, logText(hdr('big'), all));
    const index = loadRootSync(dir);
    const session = index.store.get('big')!;
    const m = mountApp({ index, view: 'sessions', size: { columns: 120, rows: 30 } });
    try {
      await m.idle();
      await m.press(KEY.enter);
      await m.idle();
      expect(m.state().view).toBe('turns');
      expect(turnIndexOf(session)?.current).toBe(true);
      expect(indexProgress(session)).toBeUndefined();
      expect(session.isLoaded).toBe(false); // never loaded whole
      // opened tail first: the cursor on the end (where a user forks), following it while the rest filled in
      expect(m.frame()).toContain('▸ turn 400 ');
      expect(m.turnsSelected()).toMatch(/fork here · seq 2799/);

      await m.press('/', ...'needle', KEY.enter);
      await m.idle();
      const want = [...new Set(turnMatches(parseQuery('needle') as Query, readLog(file, true).reader.events).map((x) => x.seq))];
      expect(want.length).toBeGreaterThan(50);
      expect(m.state().turnSearch?.seqs).toEqual(want);
      expect(m.state().turnSearch?.scanning).toBeUndefined();
      expect(m.frame()).toContain(`match 1 of ${want.length}`);
      expect(session.isLoaded).toBe(false);

      // the history of the whole log, read in the background: the rows the history of the log in memory gives
      await m.press('G', 't');
      await m.idle();
      expect(m.frame()).toContain('model history up to seq 2799');
      const whole = historyRows(readLog(file, true).reader.events, 2799);
      const data = m.controller.world().turns(session);
      expect(data.ok && data.history(2799).slice().map((r) => [r.key, r.seq, r.text])).toEqual(whole.slice().map((r) => [r.key, r.seq, r.text]));
      // a clipped entry's detail reads its event again: the whole text, as from the log in memory
      const events = readLog(file, true).reader.events;
      expect(data.ok && data.history(2799).at(0)!.entry?.clipped).toBe(true);
      if (data.ok) for (const i of [0, 1, 400]) expect(detailLines(data.history(2799).at(i)!, data.event)).toEqual(detailLines(whole.at(i)!, (seq) => events[seq]));
      expect(session.isLoaded).toBe(false);
      await m.press('t');

      // e expands all: the rows counted from the index (each node keeps how many it shows expanded), built as read, the log still not loaded
      await m.press('e');
      expect(m.state().turns.get(session.file!)?.expansion?.mode).toBe('all');
      const all = buildTurnRows(buildTurnTree(events), { mode: 'all', toggled: new Set() }, rowsContext(openSessionFile(file, true).session!)).rows;
      const shown = m.controller.world().turns(session);
      expect(shown.ok && shown.rows({ mode: 'all', toggled: new Set() }).rows.length).toBe(all.length);
      expect(shown.ok && shown.rows({ mode: 'all', toggled: new Set() }).rows.at(-3)!.text).toBe(all.at(-3)!.text);
      expect(session.isLoaded).toBe(false);
      await m.press('g');

      // a search started and cancelled before its first slice: it is dropped, and says so
      // (Enter and Esc straight to the controller, in one go: Ink holds a lone Esc until its next check
      // phase, and a timer phase before it could run the search's first slice, over before the Esc)
      await m.press('/', ...'hay');
      for (const press of splitKeys('\r\x1b')) m.controller.dispatch({ type: 'key', press });
      await m.settle();
      expect(m.state().turnSearch).toBeUndefined();
      await m.idle();
      expect(m.state().turnSearch).toBeUndefined();
      expect(m.frame()).toContain('search cancelled');
      expect(m.state().view).toBe('turns');
    } finally {
      m.unmount();
    }
  });

  it('a compressed log (the harness’s default) opens from its index too: each turn read again from the frame before it', async () => {
    setSeekStep(4096); // places every few KB: a turn's read starts mid-file
    const dir = tmpDir();
    const all = evs(...Array.from({ length: 300 }, (_, i) => turnRows(i + 1, { kind: 'completed' }, `prompt ${i + 1} ${i % 9 === 0 ? 'needle' : 'hay'} ${'x'.repeat(700)}`)).flat());
    // as rc.8 writes it: the header alone in frame 1, then a frame per append (a turn's events here)
    const lines = logText(hdr('zbig'), all).split(/(?<=\n)/);
    const frames = [encodeStoredFrame(Buffer.from(lines[0]))];
    for (let i = 1; i < lines.length; i += 7) frames.push(encodeStoredFrame(Buffer.from(lines.slice(i, i + 7).join(''))));
    const file = path.join(dir, 'session.jsonl.zstd');
    fs.writeFileSync(file, Buffer.concat(frames));
    const index = loadRootSync(dir);
    const session = index.store.get('zbig')!;
    const m = mountApp({ index, view: 'sessions', size: { columns: 120, rows: 30 } });
    try {
      await m.idle();
      await m.press(KEY.enter);
      await m.idle();
      expect(turnIndexOf(session)?.current).toBe(true);
      expect(session.isLoaded).toBe(false); // never loaded whole
      expect(frameMapOf(file, fs.statSync(file)).places).toBeGreaterThan(50); // ~260 KB of text, a place every 4 KB
      expect(m.frame()).toContain('▸ turn 300 ');
      expect(m.turnsSelected()).toMatch(/fork here · seq 2099/);
      const events = readLog(file, true).reader.events;
      // the first turn, expanded: its events read again from the frames that hold them
      await m.press('g', KEY.right);
      await m.idle();
      expect(m.frame()).toContain(`prompt 1 needle`);
      await m.press('/', ...'needle', KEY.enter);
      await m.idle();
      const want = [...new Set(turnMatches(parseQuery('needle') as Query, events).map((x) => x.seq))];
      expect(want.length).toBeGreaterThan(30);
      expect(m.state().turnSearch?.seqs).toEqual(want);
      expect(session.isLoaded).toBe(false);
    } finally {
      m.unmount();
      setSeekStep(1024 * 1024);
    }
  });
});

describe('subagent calls of a large log', () => {
  it('link their children from what the index keeps of each turn: no turn is read again to find them', async () => {
    const dir = copyDir(path.join(REPO, 'test/fixtures/real-sessions-v2v4/zdsh-vfs-workspace'), tmpDir());
    const index = loadRootSync(dir);
    const parent = index.store.list().find((x) => x.id === 'preview-showcase')!;
    const m = mountApp({ index, view: 'sessions', size: { columns: 140, rows: 40 }, selection: parent.file });
    try {
      await m.idle();
      await m.press(KEY.enter);
      await m.idle();
      const world = m.controller.world();
      expect(world.turns(parent)).toMatchObject({ ok: true, indexed: true });
      const links = [...world.subagents(parent).links.values()].map((l) => (l.kind === 'linked' ? l.child.id : l.kind));
      expect(links).toEqual(['preview-follow-up-builder', 'preview-architecture-review']);
      // what the links are found from: the index's tree, walked without a turn's children read again
      const tree = turnIndexOf(parent)!.index.tree;
      const body = vi.spyOn(TurnIndex.prototype, 'body');
      try {
        expect(treeSubagents(tree).calls.map((c) => [c.seq, c.name])).toEqual([
          [188, 'subagent'],
          [190, 'subagent_fork'],
        ]);
        expect(body).not.toHaveBeenCalled();
      } finally {
        body.mockRestore();
      }
    } finally {
      m.unmount();
    }
  });
});

