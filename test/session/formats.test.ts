// Per-version rules that are not about files: the event vocabulary of v2-v4.
import { describe, expect, it } from 'vitest';
import { headerProblem, unknownEventReason } from '../../src/session/formats.js';

describe('event vocabulary (v2+: unknown types only when ignorable)', () => {
  it.each([
    [2, 'tool/code-dispatch', undefined, false],
    [3, 'tool/code-dispatch', undefined, true], // renamed to tool/ptc-dispatch by v2 -> v3
    [3, 'tool/ptc-dispatch', undefined, false],
    [3, 'developer/message', undefined, true], // v4 only
    [4, 'developer/message', undefined, false],
    [4, 'slots/dispatch', undefined, false],
    [4, 'roleplay/opened', undefined, true],
    [4, 'roleplay/opened', true, false],
    [4, 'plugin:roleplay/opened', true, false],
    [4, 'roleplay/opened', 'yes', true], // ignorable must be exactly true
    [0, 'anything/at-all', undefined, false], // v0 logs keep and show unknown types
  ])('v%i %s (ignorable %s): refused %s', (version, type, ignorable, refused) => {
    const why = unknownEventReason(version, type, ignorable);
    expect(why !== undefined).toBe(refused);
    if (why) expect(why).toMatch(new RegExp(`not in the v${version} vocabulary`));
  });
});

describe("another agent's header", () => {
  it('is NOT_DSH_SESSION, and its keys (from the file) are named only up to a bound', () => {
    const p = headerProblem({ type: 'session', version: 3, id: 's', timestamp: '2026-01-01', ['k'.repeat(10_000)]: 1 });
    expect(p?.code).toBe('NOT_DSH_SESSION');
    expect(p!.message.length).toBeLessThan(300);
  });
});
