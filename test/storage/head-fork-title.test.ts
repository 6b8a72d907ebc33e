// In the browser (a fork made in this process, no reload), a head fork of an
// RFC-era child shows its parent's title at once.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);

it('store.fork at the head of bisect-ci-timeout: the child and its own head fork keep the title', () => {
  const index = loadRootSync(copyDir(SAMPLE_DIR, path.join(tmpDir(), 'sample')));
  const parent = index.store.getAll('bisect-ci-timeout')[0];
  expect(parent.facts.title).toMatch(/^Bisect it/);
  const child = index.store.fork({ source: parent, sessionId: 'head-child' });
  expect(child.facts.title).toBe(parent.facts.title);
  const grandchild = index.store.fork({ source: child, sessionId: 'head-grandchild' });
  expect(grandchild.facts.title).toBe(parent.facts.title);
  // and a fresh load agrees
  const again = loadRootSync(index.root);
  expect(again.store.getAll('head-grandchild')[0].facts.title).toBe(parent.facts.title);
});
