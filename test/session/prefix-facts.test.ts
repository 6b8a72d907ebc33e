// prefixFacts (used by fork to avoid re-folding the seed) must equal a fold of
// the same prefix, on every boundary of every session we have.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyFacts, foldEvent, prefixFacts } from '../../src/session/log-facts.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { REAL_DIR } from '../support/fixtures.js';

const ROOTS = [path.resolve(__dirname, '../../sample-sessions'), REAL_DIR].filter((d) => fs.existsSync(d));

describe('prefixFacts', () => {
  const sessions = ROOTS.flatMap((r) => loadRootSync(r).store.list());
  it('covers sessions with boundaries', () => {
    expect(sessions.filter((s) => s.facts.boundaries.length > 0).length).toBeGreaterThanOrEqual(10);
  });
  it.each(sessions.map((s) => [path.basename(s.file!), s] as const))('equals the fold at every boundary of %s', (_n, s) => {
    const events = s.events;
    for (const b of [-1, ...s.facts.boundaries]) {
      const n = b + 1;
      const folded = emptyFacts();
      folded.seedFrom = n;
      if (s.facts.rc8Rule) folded.rc8Rule = true;
      for (let i = 0; i < n; i++) foldEvent(folded, events[i]);
      expect(prefixFacts(s.facts, events, n, n), `boundary ${b}`).toEqual(folded);
    }
  });
});
