// docs/keys.md is the key tables, rendered: it fails here when a key, its
// help or a table changes without the document (`npm run docs:keys` rewrites
// it), and no surface that can have the keyboard is left out.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { everyKeyTable, SURFACES } from '../../../src/view/app/surfaces.js';
import { keysMarkdown } from '../../../src/view/help/keys-doc.js';
import { REPO } from '../../support/fixtures.js';

describe('docs/keys.md', () => {
  it('is what the key tables generate (npm run docs:keys rewrites it)', async () => {
    await expect(keysMarkdown()).toMatchFileSnapshot(path.join(REPO, 'docs', 'keys.md'));
  });

  it('has a table for every surface that can have the keyboard', () => {
    const documented = new Set(everyKeyTable().map((t) => t.surface.id));
    expect(SURFACES.map((s) => s.id).filter((s) => !documented.has(s))).toEqual([]);
  });
});
