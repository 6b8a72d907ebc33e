// A few trials of scripts/fault-injection.mjs (kill -9 during a fork, two
// forks racing to one id); the full run is `node scripts/fault-injection.mjs --trials 100`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/fixtures.js';

describe('fault injection (fast)', () => {
  it('kill -9 leaves the complete child or none, the parent unchanged; a race has one winner', { timeout: 180_000 }, () => {
    const r = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'fault-injection.mjs'), '--trials', '6', '--race-trials', '6', '--size', '4'], { encoding: 'utf8', timeout: 170_000 });
    const last = r.stdout.trim().split('\n').pop() ?? '';
    expect(last.startsWith('RESULT '), r.stdout + r.stderr).toBe(true);
    const res = JSON.parse(last.slice('RESULT '.length));
    expect(res.violations, r.stdout).toBe(0);
    expect(r.status).toBe(0);
    expect(res.kill.trials).toBe(6);
    expect(res.kill.complete + res.kill.none).toBe(6);
    expect(res.kill.seedMismatch).toBe(0);
    expect(res.kill.invisibleFile).toBe(0);
    expect(res.kill.parentChanged).toBe(0);
    expect(res.race.oneWinner).toBe(6);
    expect(res.race.loserAlreadyExists).toBe(6);
    expect(res.race.parentChanged).toBe(0);
  });
});
