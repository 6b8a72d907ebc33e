// The Sessions filter narrowed by the content index: once the browser has
// brought the index up to date (after its scan), a query's words rule out the
// logs that cannot hold them, unread. The answers are the same as without the
// index; the logs opened to answer are only the ones that may match.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ContentIndex } from '../../../src/storage/content-index.js';
import { loadRootSync } from '../../../src/storage/load-root.js';
import { setIndexedMin } from '../../../src/storage/indexed-turns.js';
import { KEY } from '../../support/app-harness.js';
import { mountApp } from '../../support/app-harness.js';
import { makeLog } from '../../support/random-logs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'filter-index-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
/** The clock of a run long after the logs were written: their stats are trusted. */
const later = () => Date.now() + 60_000;

function root(): { dir: string; cache: string; files: string[] } {
  const dir = path.join(tmp, 'root');
  const cache = path.join(tmp, 'cache');
  fs.mkdirSync(cache, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < 30; i++) {
    const f = path.join(dir, `f${i}`, 'session.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    let text = makeLog(i * 5 + 1, 200, { escapes: 0, blocked: false });
    if (i === 11) text += JSON.stringify({ type: 'user/message', seq: 200, time: 5000, data: { message: { role: 'user', content: 'a zqxjrare word' } } }) + '\n';
    fs.writeFileSync(f, text);
    files.push(f);
  }
  return { dir, cache, files };
}

/** Mounts the browser on the root, types the query into the Sessions filter, and returns the screen and the logs opened to answer it. */
async function filter(dir: string, query: string, contentIndex?: ContentIndex): Promise<{ frame: string; opened: Set<string> }> {
  const index = loadRootSync(dir, { cache: contentIndex ? { dir: path.join(tmp, 'cache'), now: later } : false });
  const app = mountApp({ index, contentIndex, size: { columns: 120, rows: 40 } });
  try {
    await app.idle(); // the index brought up to date once the scan is over (a stat per log when warm)
    const opened = new Set<string>();
    const open = fs.openSync;
    const spy = vi.spyOn(fs, 'openSync').mockImplementation((p, ...rest) => {
      if (String(p).startsWith(dir)) opened.add(String(p));
      return open(p, ...(rest as [fs.OpenMode]));
    });
    try {
      // pasted: the whole query at once (typed, each prefix would start a search of its own)
      await app.press('/', `\x1b[200~${query}\x1b[201~`);
      await app.idle();
    } finally {
      spy.mockRestore();
    }
    return { frame: app.frame(), opened };
  } finally {
    app.unmount();
  }
}

describe('the Sessions filter with the content index', () => {
  it('answers as without it, and searches only the logs that may hold the word', async () => {
    const { dir, cache, files } = root();
    // a first run has no index kept: the query asks for a word, which builds the index and saves it
    const first = new ContentIndex(dir, { dir: cache, now: later });
    await filter(dir, 'zqxjrare', first);
    // a warm run: the same answer, a fraction of the work
    const warm = await filter(dir, 'zqxjrare', new ContentIndex(dir, { dir: cache, now: later }));
    const scan = await filter(dir, 'zqxjrare');
    expect(warm.frame).toMatch(/1 of 30 sessions/);
    expect(scan.frame).toMatch(/1 of 30 sessions/);
    expect(warm.frame.split('\n').filter((l) => l.includes('s56'))).toEqual(scan.frame.split('\n').filter((l) => l.includes('s56')));
    expect([...warm.opened]).toEqual([files[11]]);
    expect(scan.opened.size).toBe(30);
    // a word in many logs: the same rows either way
    const common = await filter(dir, 'atch', new ContentIndex(dir, { dir: cache, now: later }));
    const commonScan = await filter(dir, 'atch');
    expect(common.frame.replace(/\d+ms|\d+s ago/g, '')).toEqual(commonScan.frame.replace(/\d+ms|\d+s ago/g, ''));
  });
});

describe('the Turns search of a large log with the content index', () => {
  it('answers a word the log cannot hold at once, without reading it; a word it holds is searched as before', async () => {
    setIndexedMin(0); // every log opens from its index and is searched in the background, as a large one
    const dir = path.join(tmp, 'turns');
    const cache = path.join(tmp, 'turns-cache');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'session.jsonl');
    fs.writeFileSync(file, makeLog(12, 300, { escapes: 0, blocked: false }) + JSON.stringify({ type: 'user/message', seq: 300, time: 5000, data: { message: { role: 'user', content: 'a needleword here' } } }) + '\n');
    /** Opens the log in Turns, searches `word`, and returns the matches and how often the log was opened for the search. */
    const search = async (word: string): Promise<{ seqs?: number[]; opened: number }> => {
      const contentIndex = new ContentIndex(dir, { dir: cache, now: later });
      const index = loadRootSync(dir, { cache: { dir: cache, now: later } });
      const app = mountApp({ index, contentIndex, size: { columns: 120, rows: 30 } });
      let opened = 0;
      const open = fs.openSync;
      try {
        await app.idle();
        await app.press(KEY.enter);
        await app.idle();
        expect(app.state().view).toBe('turns');
        const spy = vi.spyOn(fs, 'openSync').mockImplementation((p, ...rest) => {
          if (String(p) === file) opened++;
          return open(p, ...(rest as [fs.OpenMode]));
        });
        try {
          await app.press('/', `\x1b[200~${word}\x1b[201~`, KEY.enter);
          await app.idle();
        } finally {
          spy.mockRestore();
        }
        expect(app.state().turnSearch?.scanning).toBeUndefined();
        return { seqs: app.state().turnSearch?.seqs, opened };
      } finally {
        app.unmount();
      }
    };
    try {
      // a first run has no index kept: the search reads the log, and asking for a word builds the index
      expect((await search('zqxjabsent')).seqs).toEqual([]);
      expect(await search('zqxjabsent')).toEqual({ seqs: [], opened: 0 });
      const found = await search('needleword');
      expect(found.seqs).toEqual([300]);
      expect(found.opened).toBeGreaterThan(0);
    } finally {
      setIndexedMin(16 * 1024 * 1024);
    }
  });
});
