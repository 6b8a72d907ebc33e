// One large log must not hold the list back: the scan lists it at once from
// its head and tail (id, title, cwd, state, last activity), reads every other
// file, and reads it whole last; the whole read then replaces the partial
// session. What the partial row shows equals what the whole read finds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stateOf } from '../../src/session/log-facts.js';
import { FactCache } from '../../src/storage/fact-cache.js';
import { attachCache, newRootIndex } from '../../src/storage/load-root.js';
import { scanRoot } from '../../src/storage/scan.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'partial-listing-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const line = (o: object): string => JSON.stringify(o) + '\n';

/** A log of `turns` turns, each with tool results of `pad` bytes; the last turn left open when asked. */
function log(id: string, turns: number, pad: number, open = false): string {
  let seq = 0;
  let t = 1000;
  let out = line({ type: 'session', version: 0, id, createdAt: 500, cwd: `/work/${id}` });
  for (let n = 1; n <= turns; n++) {
    out += line({ type: 'turn/start', seq: seq++, time: t++, data: { turn: n } });
    out += line({ type: 'user/message', seq: seq++, time: t++, data: { message: { role: 'user', content: n === 1 ? `Fix the flaky test in ${id}` : `and then step ${n}` } } });
    out += line({ type: 'tool/call', seq: seq++, time: t++, data: { callId: `c${n}`, name: 'bash', arguments: { command: 'npm test' } } });
    out += line({ type: 'tool/result', seq: seq++, time: t++, data: { callId: `c${n}`, content: [{ type: 'text', text: 'x'.repeat(pad) }] } });
    if (!(open && n === turns)) out += line({ type: 'turn/end', seq: seq++, time: t++, data: { reason: { kind: 'completed' } } });
  }
  return out;
}

function root(name: string, open: boolean): { dir: string; big: string; small: string[] } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const small: string[] = [];
  for (let i = 0; i < 5; i++) {
    const f = path.join(dir, `s${i}.jsonl`);
    fs.writeFileSync(f, log(`small-${i}`, 2, 100));
    small.push(f);
  }
  // "a" sorts first: the scan meets it before every small log
  const big = path.join(dir, 'a-big.jsonl');
  fs.writeFileSync(big, log('big', 400, 16 * 1024, open));
  return { dir, big, small };
}

describe('a large log in the first scan', () => {
  for (const open of [false, true]) {
    it(`is listed from its head and tail at once, read last, and then replaced whole (${open ? 'a turn open' : 'between turns'})`, async () => {
      const { dir, big, small } = root(`r-${open}`, open);
      const index = newRootIndex(dir);
      let seen: { smallListed: boolean; partial?: ReturnType<typeof index.store.byFile> } | undefined;
      // budget 1 ms: the 6.5 MB log cannot be read in one batch
      await scanRoot(index, {
        budgetMs: 1,
        onProgress: (p) => {
          if (seen === undefined && p.reading?.file === big) seen = { smallListed: small.every((f) => index.store.byFile(f) !== undefined), partial: index.store.byFile(big) };
        },
      });
      expect(seen, 'the large log was read after the others, in slices').toBeDefined();
      expect(seen!.smallListed).toBe(true);
      const partial = seen!.partial!;
      expect(partial.partial).toBe(true);
      const whole = index.store.byFile(big)!;
      expect(whole.partial).toBeUndefined();
      expect(whole.facts.turns).toBe(400);
      // what the partial row showed is what the whole read found
      expect([partial.id, partial.facts.title, partial.cwd, stateOf(partial.facts), partial.facts.lastEventTime, partial.facts.lastEventType]).toEqual([whole.id, whole.facts.title, whole.cwd, stateOf(whole.facts), whole.facts.lastEventTime, whole.facts.lastEventType]);
      expect(stateOf(whole.facts)).toBe(open ? 'open-turn' : 'at-boundary');
    });
  }

  it('a scan stopped while the large log is read keeps no partial facts in the fact cache', async () => {
    const { dir, big } = root('aborted', false);
    const cache = path.join(tmp, 'cache');
    const index = newRootIndex(dir);
    attachCache(index, { dir: cache, now: () => Date.now() + 60_000 });
    const stop = new AbortController();
    await scanRoot(index, {
      budgetMs: 1,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.reading?.file === big) stop.abort();
      },
    });
    const again = new FactCache(dir, { dir: cache, now: () => Date.now() + 60_000 });
    expect(again.lookup(big)).toBeUndefined();
    expect(again.lookup(path.join(dir, 's0.jsonl'))).toBeDefined();
  });
});
