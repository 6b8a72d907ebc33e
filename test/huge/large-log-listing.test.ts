// A cold start beside a huge log: every session is on screen before the
// huge log is read (it is listed from its head and tail, its counts shown as
// not known), and its counts fill in once the background read is over. In a
// real terminal; the deadlines are generous (a loaded machine is slower, not
// red), and what is checked is the order of things, not their speed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeHugeSession, type HugeSessionInfo } from '../../bench/generate.js';
import { killAllPtys, spawnPty } from '../e2e/pty-harness.js';
import { cleanupTmp, SAMPLE_DIR, tmpDir } from '../support/fixtures.js';
import { BIN } from '../support/run-cli.js';

let root: string;
let huge: HugeSessionInfo;
let small: number;
beforeAll(() => {
  root = tmpDir('huge-listing-');
  // "a" sorts first: the scan meets the huge log before every small one
  huge = writeHugeSession(path.join(root, 'a-huge.jsonl'), 200e6, { id: 'huge' });
  const samples = fs.readdirSync(SAMPLE_DIR).filter((f) => f.endsWith('.jsonl')).slice(0, 5);
  for (const f of samples) fs.copyFileSync(path.join(SAMPLE_DIR, f), path.join(root, f));
  small = samples.length;
}, 120_000);
afterEach(() => killAllPtys());
afterAll(() => cleanupTmp());

/** The huge log's row: its id in the ID column. */
const hugeRow = (screen: string): string | undefined => screen.split('\n').find((l) => / huge +/.test(l));
/** Its counts (T, EV, TOK) shown as not known, then its age. */
const NOT_KNOWN = /…\s+…\s+…\s+\S+\s*$/;

describe('a cold start beside a 200 MB log', () => {
  it('lists every session before the large log is read, then fills in its counts', async () => {
    const s = spawnPty(process.execPath, [BIN, root, '--no-cache'], { cols: 140, rows: 30 });
    const all = new RegExp(`^${small + 1} sessions · order:`, 'm');
    // every session listed while the huge log's counts are still not known
    const early = await s.waitFor((screen) => all.test(screen) && NOT_KNOWN.test(hugeRow(screen) ?? ''), 60_000);
    expect(early).toMatch(/scanning .*a-huge\.jsonl \d+%/); // the title bar says how far the read is
    // then its counts, once the whole log is read (a narrow column cuts them: their first digits)
    const counts = new RegExp(`\\s${String(huge.turns).slice(0, 2)}\\d*…?\\s+\\d[\\d…]*\\s+\\S+\\s+\\S+\\s*$`);
    const later = await s.waitFor((screen) => all.test(screen) && counts.test(hugeRow(screen) ?? ''), 300_000);
    expect(hugeRow(later)).not.toMatch(NOT_KNOWN);
    expect(later).not.toMatch(/scanning/);
    s.write('q');
    await s.exited;
  }, 400_000);
});
