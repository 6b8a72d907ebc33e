// docs/keys.md is the key tables, rendered: it fails here when a key, its
// help or a table changes without the document (`npm run docs:keys` rewrites
// it), and no surface that can have the keyboard is left out.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { everyKeyTable } from '../../src/view/app/surface-keys.js';
import type { Surface } from '../../src/view/app/surface.js';
import { SURFACE_TITLES } from '../../src/view/help/help.js';
import { keysMarkdown } from '../../src/view/help/keys-doc.js';
import { REPO } from '../support/fixtures.js';

describe('docs/keys.md', () => {
  it('is what the key tables generate (npm run docs:keys rewrites it)', async () => {
    await expect(keysMarkdown()).toMatchFileSnapshot(path.join(REPO, 'docs', 'keys.md'));
  });

  it('has a table for every surface that can have the keyboard', () => {
    const documented = new Set(everyKeyTable().map((t) => t.surface));
    expect(Object.keys(SURFACE_TITLES).filter((s) => !documented.has(s as Surface))).toEqual([]);
  });
});
