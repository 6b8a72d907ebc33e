// A transcript written by `x` (exportToFile) holds the same prompts and tool
// output as its session file, so it gets the same owner-only mode, set when
// the file is created rather than by a chmod afterwards.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { exportToFile, type ExportFormat } from '../../src/export/export.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';

afterAll(cleanupTmp);
afterEach(() => vi.restoreAllMocks());

describe('exportToFile: mode 0600', () => {
  it('every format is written 0600 even under umask 0, with no chmod, and no existing file is touched', () => {
    const index = loadRootSync(copyDir(SAMPLE_DIR, tmpDir()));
    const s = index.store.getAll('bump-vitest')[0];
    const out = tmpDir();
    const existing = path.join(out, 'bump-vitest.md');
    fs.writeFileSync(existing, 'KEEP', { mode: 0o644 });
    const chmods = [vi.spyOn(fs, 'chmodSync'), vi.spyOn(fs, 'fchmodSync')];
    // umask 0: the mode given at creation is the mode the file gets (022 would hide 0644 as 0644, 077 as 0600)
    const old = process.umask(0);
    try {
      for (const format of ['md', 'html', 'json'] as ExportFormat[]) {
        const { file } = exportToFile(s, index.store.list(), out, { format });
        expect((fs.statSync(file).mode & 0o777).toString(8), `${format}: ${file}`).toBe('600');
      }
    } finally {
      process.umask(old);
    }
    for (const c of chmods) expect(c).not.toHaveBeenCalled();
    expect(fs.readFileSync(existing, 'utf8')).toBe('KEEP');
    expect((fs.statSync(existing).mode & 0o777).toString(8)).toBe('644');
  });
});
