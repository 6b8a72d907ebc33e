import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForCollections } from '../bench/collections.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function trace(lines: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-collections-'));
  dirs.push(dir);
  const file = path.join(dir, 'trace.txt');
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

describe('waitForCollections (the idle figures wait for V8 after the work)', () => {
  it("counts only the collections after the last work milestone when no quiet collection ran", async () => {
    const file = trace([
      '100 120 tui',
      '1900 2300 collection under pressure',
      '1960 2400 collection under pressure done',
      '1970 2420 gc major 64',
      '2600 3200 audit done',
      '3000 3300 gc major 60',
      '24000 3800 gc major 16',
    ]);
    // (one look, then the deadline)
    const r = await waitForCollections(file, 300);
    expect(r.collections).toBe(1);
  });

  it('counts from the quiet collection when it ran', async () => {
    const file = trace(['2600 3200 audit done', '5000 3400 quiet collection', '5200 3600 quiet collection done', '5300 3610 gc major 200', '30000 3900 gc major 12', '31000 3950 gc major 9']);
    const r = await waitForCollections(file, 300);
    expect(r.collections).toBe(2);
  });
});
