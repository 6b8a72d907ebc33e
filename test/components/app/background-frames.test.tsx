// The background work (the first scan and the audit of 5,000
// sessions) draws a bounded number of frames, paced by time, not one or more
// per session or per slice; the list on screen is complete at the end.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexFileSafe, loadRootSync, newRootIndex } from '../../../src/storage/load-root.js';
import { RootShapes } from '../../../src/storage/root-refusals.js';
import { scanRoot } from '../../../src/storage/scan.js';
import { RootModel } from '../../../src/world/root-model.js';
import { AuditIndex } from '../../../src/session/audit-index.js';
import { mountApp } from '../../support/app-harness.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows, writeLog } from '../../support/fixtures.js';

afterEach(cleanupTmp);

const N = 5_000;

/** A root of `n` clean sessions of one turn each, s-0 … s-(n-1), the later ones newer. */
function cleanRoot(n: number): string {
  const root = tmpDir();
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, `s-${i}.jsonl`), logText(hdr(`s-${i}`, { createdAt: 1_700_000_000_000 + i }), evs(...turnRows(1))));
  return root;
}

describe('frames during a background scan and audit', () => {
  it(`${N} sessions: frames bounded by time (at most ~30 a second), far fewer than sessions`, async () => {
    const root = cleanRoot(N);
    const index = newRootIndex(root);
    index.scan = { done: 0, finished: false };
    const app = mountApp({ index });
    let frames = 0;
    app.controller.subscribe(() => frames++);
    const t0 = performance.now();
    await scanRoot(index, { onProgress: (p) => (index.scan = p) });
    index.store.emit();
    await app.idle();
    const ms = performance.now() - t0;
    expect(app.controller.getSnapshot().world.items.length).toBe(N);
    expect(app.frame()).toContain(`${N} sessions`);
    // paced: a frame per 33 ms at most (plus the last ones), and never one per session
    expect(frames).toBeLessThanOrEqual(Math.ceil(ms / 33) + 10);
    expect(frames).toBeLessThan(N / 10);
    app.unmount();
  }, 120_000);

  it("the audit's news about clean sessions draw no frame; a finding draws one, and its badge shows", async () => {
    const n = 300;
    const root = cleanRoot(n);
    const index = loadRootSync(root);
    const app = mountApp({ index, size: { columns: 140, rows: 30 } });
    let frames = 0;
    app.controller.subscribe(() => frames++);
    await app.idle();
    // every session was audited (clean): nothing on screen changed, so nothing was drawn
    expect(frames).toBe(0);
    expect(app.frame()).toContain(`${n} sessions`);
    // a session naming a parent the root does not hold: the audit's ORPHAN_PARENT shows on its row
    const orphan = path.join(root, 'orphan.jsonl');
    fs.writeFileSync(orphan, logText(hdr('orphan', { createdAt: 1_800_000_000_000, parentSession: 'nobody', seedLength: 0 }), evs(...turnRows(1))));
    indexFileSafe(index, orphan);
    index.store.emit();
    await app.idle();
    expect(app.frame()).toContain('ORPHAN_PARENT');
    app.unmount();
  }, 120_000);

  it('an emit that moved no session (the live status, a skipped file) leaves the audit be; a change makes it look again', async () => {
    const n = 50;
    const root = cleanRoot(n);
    const index = loadRootSync(root);
    const app = mountApp({ index });
    await app.idle();
    const invalidate = vi.spyOn(AuditIndex.prototype, 'invalidate');
    try {
      // what tui.ts does when the watcher starts or says something
      index.live = { mode: 'watch', message: 'watching' };
      index.store.emit();
      index.store.emit();
      await app.idle();
      expect(invalidate).not.toHaveBeenCalled();
      // an append (a new turn): the session changed, so the audit looks again
      const file = path.join(root, 's-0.jsonl');
      fs.appendFileSync(file, JSON.stringify({ type: 'turn/start', seq: 7, time: 1_700_000_000_100, data: { turn: 2, trigger: 'user' } }) + '\n');
      indexFileSafe(index, file);
      index.store.emit();
      await app.idle();
      expect(invalidate).toHaveBeenCalledTimes(1);
      expect(app.controller.getSnapshot().world.items.length).toBe(n);
    } finally {
      invalidate.mockRestore();
      app.unmount();
    }
  }, 60_000);

  it('the model takes a scan in steps before a frame (keys between them), and the frame shows all of it', async () => {
    const n = 1_500;
    const root = cleanRoot(n);
    const index = newRootIndex(root);
    const step = vi.spyOn(RootModel.prototype, 'syncStep');
    // steps of no time at all: one item each
    const app = mountApp({ index, syncStepMs: 0 });
    await scanRoot(index, {});
    index.store.emit();
    await app.idle();
    expect(step.mock.results.some((r) => r.value === false)).toBe(true);
    expect(app.controller.getSnapshot().world.items.length).toBe(n);
    expect(app.frame()).toContain(`${n} sessions`);
    // the whole list is there to move over: G reaches its last row (same age: by id, s-999 last)
    await app.press('G');
    expect(app.frame()).toMatch(/▶ boundary +s-999 /);
    step.mockRestore();
    app.unmount();
  }, 120_000);

  it("rc.8's whole-root refusal is found in steps after the scan, and every session of the root shows it", async () => {
    const n = 1_100;
    const root = path.join(tmpDir(), 'root');
    const header = (id: string) => hdr(id, { cwd: '/a', delegationDepth: 0, createdAt: 1_700_000_000_000 });
    for (let i = 0; i < n; i++) writeLog(path.join(root, '--a--', `s-${i}`, 'session.jsonl'), header(`s-${i}`), evs(...turnRows(1)));
    // one session file directly in the project folder: rc.8 refuses the whole root for it
    const flat = writeLog(path.join(root, '--a--', 'flat.jsonl'), header('flat'), evs(...turnRows(1)));
    const index = newRootIndex(root);
    index.scan = { done: 0, finished: false };
    const fold = vi.spyOn(RootShapes.prototype, 'refusals');
    const app = mountApp({ index, syncStepMs: 0 });
    await scanRoot(index, { onProgress: (p) => (index.scan = p) });
    index.store.emit();
    await app.idle();
    const world = app.controller.getSnapshot().world;
    const s = index.store.get(path.join(root, '--a--', 's-7', 'session.jsonl'))!;
    expect(world.resumeRefusal(s)).toBe(`${flat} uses the old flat layout inside a project folder: rc.8 refuses the whole root`);
    expect(world.rows('', 'recent').slice().find((r) => r.key === s.file)?.badge).toMatch(/^⊘ /);
    // found once, after the scan (not per frame while it ran)
    expect(fold).toHaveBeenCalledTimes(1);
    fold.mockRestore();
    app.unmount();
  }, 120_000);
});
