// The one runner of the browser's background jobs (background-jobs.ts): a
// job's step runs in its own timer after its delay, is armed again while it
// asks, and idle() answers only once no job is armed, never before.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackgroundJobs, SLICE_MS, type Slice } from '../../../components/app/background-jobs.js';

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

describe('the background job runner', () => {
  it('runs a step after its delay, again while it asks, and is busy while one is armed', () => {
    const jobs = new BackgroundJobs();
    const slices: Slice[] = [];
    const job = jobs.add({ delay: 20, step: (slice) => slices.push(slice) < 3 });
    expect(jobs.busy).toBe(false);
    job.arm();
    job.arm(); // at most one step armed
    expect(jobs.busy).toBe(true);
    vi.advanceTimersByTime(19);
    expect(slices.length).toBe(0);
    vi.advanceTimersByTime(1);
    expect(slices.length).toBe(1);
    expect(slices[0].ms).toBe(SLICE_MS);
    vi.advanceTimersByTime(40);
    expect(slices.length).toBe(3);
    expect(jobs.busy).toBe(false);
  });

  it('decides a delay given as a function at each arming; arm(ms) overrides it', () => {
    const jobs = new BackgroundJobs();
    let delay = 5;
    let runs = 0;
    const job = jobs.add({ delay: () => delay, step: () => void runs++ });
    job.arm();
    delay = 0;
    vi.advanceTimersByTime(4);
    expect(runs).toBe(0);
    vi.advanceTimersByTime(1);
    expect(runs).toBe(1);
    job.arm(50);
    vi.advanceTimersByTime(49);
    expect(runs).toBe(1);
    vi.advanceTimersByTime(1);
    expect(runs).toBe(2);
  });

  it('idle() resolves once no job is armed, and not while a step armed its next one', async () => {
    const jobs = new BackgroundJobs();
    let left = 2;
    const a = jobs.add({ step: () => --left > 0 });
    const b = jobs.add({ delay: 10, step: () => undefined });
    a.arm();
    b.arm();
    let idle = false;
    void jobs.idle().then(() => (idle = true));
    await vi.advanceTimersByTimeAsync(2); // (a timer armed in a fake tick waits 1 ms)
    expect(left).toBe(0);
    expect(idle).toBe(false); // b is still armed
    await vi.advanceTimersByTimeAsync(10);
    expect(idle).toBe(true);
    await jobs.idle(); // nothing armed: at once
  });

  it('close() drops every armed step, arms none after, and answers idle()', async () => {
    const jobs = new BackgroundJobs();
    let runs = 0;
    const job = jobs.add({ step: () => void runs++ });
    job.arm();
    const idle = jobs.idle();
    jobs.close();
    await idle;
    job.arm();
    expect(job.armed).toBe(false);
    expect(jobs.busy).toBe(false);
    vi.advanceTimersByTime(100);
    expect(runs).toBe(0);
  });

  it('spent() tells the running step its slice is over, whichever job runs it', () => {
    const jobs = new BackgroundJobs();
    const seen: boolean[] = [];
    jobs.add({ step: () => void seen.push(jobs.spent()) }).arm();
    jobs.add({ sliceMs: -1, step: () => void seen.push(jobs.spent()) }).arm();
    vi.advanceTimersByTime(0);
    expect(seen).toEqual([false, true]);
  });
});
