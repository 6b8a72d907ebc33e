// Issue 17: the background work (the first scan and the audit of 5,000
// sessions) draws a bounded number of frames, paced by time, not one or more
// per session or per slice; the list on screen is complete at the end.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newRootIndex } from '../../src/storage/load-root.js';
import { scanRoot } from '../../src/storage/scan.js';
import { RootModel } from '../../src/view/app/root-model.js';
import { mountApp } from '../support/app-harness.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows } from '../support/fixtures.js';

afterEach(cleanupTmp);

const N = 5_000;

describe('frames during a background scan and audit', () => {
  it(`${N} sessions: frames bounded by time (at most ~30 a second), far fewer than sessions`, async () => {
    const root = tmpDir();
    const body = (i: number) => logText(hdr(`s-${i}`, { createdAt: 1_700_000_000_000 + i }), evs(...turnRows(1)));
    for (let i = 0; i < N; i++) fs.writeFileSync(path.join(root, `s-${i}.jsonl`), body(i));
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

  it('the model takes a scan in steps before a frame (keys between them), and the frame shows all of it', async () => {
    const n = 1_500;
    const root = tmpDir();
    const body = (i: number) => logText(hdr(`s-${i}`, { createdAt: 1_700_000_000_000 + i }), evs(...turnRows(1)));
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, `s-${i}.jsonl`), body(i));
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
});
