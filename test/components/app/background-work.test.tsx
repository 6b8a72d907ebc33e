// Export and Compare of a large log in the real app: reading it
// takes seconds, so the app makes them in its slices with keys answered
// meanwhile, the progress on the title bar, Esc cancelling (no file left
// behind). The threshold is lowered so that small logs take that path; what
// comes out is what the same export or comparison gives at once.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportSession } from '../../../src/export/export.js';
import { sessionChanges } from '../../../src/session/changes.js';
import { compareSessions, comparisonJson } from '../../../src/session/compare.js';
import { changesList } from '../../../src/view/changes/changes-rows.js';
import type { BackgroundWork } from '../../../src/view/app/state.js';
import { setIndexedMin } from '../../../src/storage/indexed-turns.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows } from '../../support/fixtures.js';
import { KEY, mountApp } from '../../support/app-harness.js';

beforeAll(() => setIndexedMin(0));
afterAll(() => {
  setIndexedMin(16 * 1024 * 1024);
  cleanupTmp();
});

/** `n` turns; from turn `from` on, the prompts say `variant` (two logs that share their first turns). */
function turns(n: number, variant: string, from = 1) {
  return evs(...Array.from({ length: n }, (_, i) => turnRows(i + 1, { kind: 'completed' }, `prompt ${i + 1} ${i + 1 >= from ? variant : 'shared'} ${'x'.repeat(2000)}`)).flat());
}

function root() {
  const dir = tmpDir();
  const out = tmpDir();
  fs.writeFileSync(path.join(dir, 'big.jsonl'), logText(hdr('big', { createdAt: 1_700_000_000_000 }), turns(600, 'left', 301)));
  fs.writeFileSync(path.join(dir, 'other.jsonl'), logText(hdr('other', { createdAt: 1_600_000_000_000 }), turns(500, 'right', 301)));
  return { dir, out };
}

/** The background work of every state the app takes from now on (in order; undefined when none). */
function recordWork(m: ReturnType<typeof mountApp>): Array<BackgroundWork | undefined> {
  const out: Array<BackgroundWork | undefined> = [];
  m.controller.subscribe(() => out.push(m.state().work));
  return out;
}

const leftovers = (out: string) => fs.readdirSync(out).filter((f) => f.endsWith('.tmp'));

describe('export and compare of a large log, in the background', () => {
  it('x writes the transcript in slices (progress on the title bar), the file the export made at once gives', async () => {
    const { dir, out } = root();
    const index = loadRootSync(dir);
    const m = mountApp({ index, view: 'sessions', size: { columns: 120, rows: 30 }, exportDir: out });
    try {
      await m.idle();
      expect(m.selectedLine()).toContain('big');
      const works = recordWork(m);
      await m.press('x', 'x');
      // under way (the state says so at once: the slices come later); a second x is refused with what runs
      expect(works[0]).toMatchObject({ kind: 'export', label: 'big', done: 0 });
      expect(m.frame()).toMatch(/exporting big \d+% under way: wait, or Esc to cancel it/);
      await m.idle();
      expect(m.state().work).toBeUndefined();
      const file = path.join(out, 'big.md');
      expect(m.frame()).toContain(`exported to ${file}`);
      const fresh = loadRootSync(dir);
      expect(fs.readFileSync(file, 'utf8')).toBe(exportSession(fresh.store.get('big')!, fresh.store.list(), 'md'));
      expect(leftovers(out)).toEqual([]);
      expect(index.store.get('big')!.isLoaded).toBe(false);

      // in Turns, up to the highlighted row: the usage of that prefix is read first, in slices too
      await m.press(KEY.enter);
      await m.idle();
      works.length = 0;
      await m.press('g', KEY.down, KEY.down, 'x');
      expect(works.find((w) => w !== undefined)).toMatchObject({ kind: 'export', label: 'big' });
      await m.idle();
      const at = fs.readdirSync(out).find((f) => f.startsWith('big.at-'))!;
      const seq = Number(/^big\.at-(\d+)\.md$/.exec(at)![1]);
      expect(fs.readFileSync(path.join(out, at), 'utf8')).toBe(exportSession(fresh.store.get('big')!, fresh.store.list(), 'md', seq));
      expect(leftovers(out)).toEqual([]);
    } finally {
      m.unmount();
    }
  });

  it('the app is not idle while an export whose progress is drawn is still under way', async () => {
    const { dir, out } = root();
    const m = mountApp({ index: loadRootSync(dir), view: 'sessions', size: { columns: 120, rows: 30 }, exportDir: out });
    // the app's clock runs 20x fast: its 250 ms between two progress frames pass within a few slices
    // (on a loaded machine the export took that long: idle() resolved at its first progress frame)
    const real = performance.now.bind(performance);
    const t0 = real();
    const fast = vi.spyOn(performance, 'now').mockImplementation(() => t0 + (real() - t0) * 20);
    try {
      await m.idle();
      const works = recordWork(m);
      await m.press('x');
      await m.idle();
      // progress was drawn while it ran, and idle() came after it was done
      expect(works.some((w) => w !== undefined && w.done > 0)).toBe(true);
      expect(m.state().work).toBeUndefined();
      expect(fs.existsSync(path.join(out, 'big.md'))).toBe(true);
    } finally {
      fast.mockRestore();
      m.unmount();
    }
  });

  it('Esc cancels an export under way: no file, no temp file, and it says so', async () => {
    const { dir, out } = root();
    const m = mountApp({ index: loadRootSync(dir), view: 'sessions', size: { columns: 120, rows: 30 }, exportDir: out });
    try {
      await m.idle();
      await m.press('x', KEY.esc);
      expect(m.state().work).toBeUndefined();
      await m.idle();
      expect(m.frame()).toContain('export cancelled');
      expect(fs.readdirSync(out)).toEqual([]);
      expect(m.state().view).toBe('sessions');
    } finally {
      m.unmount();
    }
  });

  it('c reads both logs side by side in slices: the comparison made at once; Esc cancels one under way', async () => {
    const { dir, out } = root();
    const index = loadRootSync(dir);
    const m = mountApp({ index, view: 'sessions', size: { columns: 120, rows: 30 }, exportDir: out });
    try {
      await m.idle();
      await m.press('m', KEY.down);
      expect(m.selectedLine()).toContain('other');
      await m.press('c', KEY.esc);
      expect(m.state().work).toBeUndefined();
      await m.idle();
      expect(m.frame()).toContain('compare cancelled');
      expect(m.state().compare).toBeUndefined();

      const works = recordWork(m);
      await m.press('c');
      expect(works[0]).toMatchObject({ kind: 'compare', label: 'big with other' });
      await m.idle();
      const c = m.state().compare?.comparison;
      expect(c).toBeDefined();
      const fresh = loadRootSync(dir);
      const want = comparisonJson(compareSessions(fresh.store.get('big')!, fresh.store.get('other')!, fresh.store.list()));
      expect(comparisonJson(c!)).toEqual(want);
      // the two logs share their first 300 turns: 7 events each
      expect([want.prefix, want.sharedTurns, want.left.turns.length, want.right.turns.length]).toEqual([2101, 300, 300, 200]);
      expect(index.store.get('big')!.isLoaded).toBe(false);
      expect(index.store.get('other')!.isLoaded).toBe(false);
    } finally {
      m.unmount();
    }
  });

  it('C folds a large log in slices: the changes made at once; Esc cancels a read under way', async () => {
    // 3,000 turns of one edit each: a read long enough to be under way when Esc comes
    const rows: Array<[string, unknown?]> = [];
    for (let t = 1; t <= 3000; t++) {
      const args = JSON.stringify({ file_path: `src/f${t % 7}.ts`, old_string: `a${t}`, new_string: `b${t}\nc${t}` });
      const result = { message: { role: 'user', content: [{ type: 'tool-result', toolCallId: `c${t}`, content: [{ type: 'text', text: 'ok' }], isError: false }], source: { kind: 'tool', callId: `c${t}` } } };
      rows.push(['turn/start', { turn: t }], ['tool/call', { turn: t, step: 1, callId: `c${t}`, name: 'edit', arguments: args }], ['tool/result', { turn: t, step: 1, ...result }], ['turn/end', { turn: t, reason: { kind: 'completed' } }]);
    }
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'edits.jsonl'), logText(hdr('edits'), evs(...rows)));
    const index = loadRootSync(dir);
    const m = mountApp({ index, view: 'sessions', size: { columns: 120, rows: 30 } });
    try {
      await m.idle();
      await m.press('C', KEY.esc);
      await m.idle();
      expect(m.frame()).toContain('changes cancelled');
      expect(m.state().changes).toBeUndefined();
      const works = recordWork(m);
      await m.press('C');
      expect(works[0]).toMatchObject({ kind: 'changes', label: 'edits' });
      await m.idle();
      const at = changesList('edits', 'the session', sessionChanges(index.store.list()[0]));
      expect(m.state().changes?.list).toEqual(at);
      expect(m.frame()).toContain('files written or edited · 7 files  +6000 −3000');
    } finally {
      m.unmount();
    }
  });
});
