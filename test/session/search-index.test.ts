// The Sessions filter: documents built in time-boxed slices, queries answered
// in time-boxed slices (a fake clock makes the slicing exact), answers equal
// to the one-shot matcher, live growth re-indexed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isQueryError, parseQuery, type Query } from '../../src/session/query.js';
import { buildSearchDoc, matchSession, sessionMeta } from '../../src/session/search.js';
import { cancelFilter, indexSome, retryPending, runFilter, SearchIndex, setScanMin, startFilter, type Clock } from '../../src/session/search-index.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, copyDir, evs, hdr, REAL_DIR, SAMPLE_DIR, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterAll(cleanupTmp);
const ok = (s: string): Query => {
  const q = parseQuery(s);
  if (isQueryError(q)) throw new Error(q.message);
  return q;
};
/** A clock that advances `step` ms on every reading. */
const ticking = (step: number): Clock => {
  let t = 0;
  return () => (t += step);
};

describe('search index and filter jobs', () => {
  const dir = tmpDir('dsh-sidx-');
  copyDir(SAMPLE_DIR, path.join(dir, 'sample'));
  copyDir(REAL_DIR, path.join(dir, 'real'));
  const index = loadRootSync(dir);
  const sessions = index.store.list();

  it('indexSome works in slices: at least one session per call, all eventually, nothing left loaded', () => {
    const idx = new SearchIndex();
    const wasLoaded = sessions.filter((s) => s.isLoaded).length;
    let remaining = sessions.length;
    let calls = 0;
    while (remaining > 0) {
      const before = idx.size;
      remaining = indexSome(idx, sessions, 5, ticking(2)); // every session "costs" 2 ms: ~2-3 per slice
      expect(idx.size - before).toBeGreaterThanOrEqual(1);
      expect(idx.size - before).toBeLessThanOrEqual(3);
      calls++;
    }
    expect(calls).toBeGreaterThan(5);
    expect(idx.size).toBe(sessions.length);
    expect(sessions.filter((s) => s.isLoaded).length).toBe(wasLoaded);
  });

  it('answers equal the one-shot matcher for every query, however the work is sliced', () => {
    const idx = new SearchIndex();
    indexSome(idx, sessions, Infinity);
    for (const text of ['the', 'tool:bash', 'is:error', 'reason:aborted', 'is:fork', '-is:root', 'snapshot_ok', '-zzz-nowhere', '-the', 'retry is:open', '"codeword is" is:root', 'zzz-nowhere']) {
      const q = ok(text);
      const job = startFilter(q, sessions);
      let slices = 0;
      while (!runFilter(job, idx, 3, ticking(1))) slices++;
      expect(slices, text).toBeGreaterThan(0);
      for (const s of sessions) {
        const m = matchSession(q, sessionMeta(s), () => buildSearchDoc(s.events));
        const want = m === null ? undefined : m.kind === 'session' ? 'session' : m.matches.length;
        expect(job.results.get(s.file!), `${text} on ${s.file}`).toBe(want);
      }
    }
  });

  it('a large log has no doc: a query reads it in batches, in slices, with the one-shot matcher’s answers', () => {
    setScanMin(0); // every log counts as large here
    try {
      const idx = new SearchIndex();
      expect(indexSome(idx, sessions, Infinity)).toBe(0);
      expect(idx.size).toBe(0); // no doc built, none held
      for (const text of ['the', 'tool:bash', 'is:error', 'reason:aborted', '-zzz-nowhere', '-the', 'retry is:open', 'zzz-nowhere', 'is:fork']) {
        const q = ok(text);
        const job = startFilter(q, sessions);
        while (!runFilter(job, idx, 3, ticking(1))) expect(job.results.size).toBeLessThanOrEqual(sessions.length);
        for (const s of sessions) {
          const m = matchSession(q, sessionMeta(s), () => buildSearchDoc(s.events));
          const want = m === null ? undefined : m.kind === 'session' ? 'session' : m.matches.length;
          expect(job.results.get(s.file!), `${text} on ${s.file}`).toBe(want);
        }
      }
      // a job dropped mid-read closes its file
      const job = startFilter(ok('the'), sessions);
      runFilter(job, idx, 0, ticking(1));
      cancelFilter(job);
      expect(job.scan).toBeUndefined();
    } finally {
      setScanMin(16 * 1024 * 1024);
    }
  });

  it('sessions without a current doc are pending; a grown log is indexed again', () => {
    const live = tmpDir('dsh-sidx-live-');
    const file = writeLog(path.join(live, 'grow.jsonl'), hdr('grow'), evs(...turnRows(1)));
    let ix = loadRootSync(live);
    const idx = new SearchIndex();
    const q = ok('needle');
    let job = startFilter(q, ix.store.list());
    runFilter(job, idx, 10);
    expect([...job.results.values()]).toEqual(['pending']);
    const sessionOnly = startFilter(ok('is:root'), ix.store.list()); // needs no doc
    runFilter(sessionOnly, idx, 10);
    expect([...sessionOnly.results.values()]).toEqual(['session']);
    indexSome(idx, ix.store.list(), 10);
    job = startFilter(q, ix.store.list());
    runFilter(job, idx, 10);
    expect(job.results.size).toBe(0);
    fs.appendFileSync(file, evs(...turnRows(2, { kind: 'completed' }, 'find the needle')).map((e, i) => JSON.stringify({ ...e, seq: 7 + i }) + '\n').join(''));
    ix = loadRootSync(live);
    expect(idx.isCurrent(ix.store.list()[0])).toBe(false);
    expect(indexSome(idx, ix.store.list(), 10)).toBe(0);
    job = startFilter(q, ix.store.list());
    runFilter(job, idx, 10);
    expect([...job.results.values()]).toEqual([1]);
    idx.retain([]);
    expect(idx.size).toBe(0);
  });

  it('a retry answers the pending sessions once their documents are made, and keeps every other answer', () => {
    const q = ok('the');
    const half = sessions.filter((_, i) => i % 2 === 0);
    const idx = new SearchIndex();
    indexSome(idx, half, Infinity);
    const job = startFilter(q, sessions);
    runFilter(job, idx, Infinity);
    const pending = sessions.filter((s) => job.results.get(s.file!) === 'pending');
    expect(pending.length).toBe(sessions.length - half.length);
    indexSome(idx, pending, Infinity);
    const again = retryPending(job, pending);
    runFilter(again, idx, Infinity);
    // the same answers as a job over every session, each document made
    const whole = startFilter(q, sessions);
    runFilter(whole, idx, Infinity);
    expect(new Map([...again.results].sort())).toEqual(new Map([...whole.results].sort()));
    expect([...again.results.values()]).not.toContain('pending');
  });

  it('leaves out, at its start, the sessions the content index rules out, and answers the rest', () => {
    const q = ok('the');
    const idx = new SearchIndex();
    indexSome(idx, sessions, Infinity);
    const ruledOut = new Set(sessions.filter((_, i) => i % 3 === 0));
    let asked = 0;
    const job = startFilter(q, sessions, (s) => (asked++, !ruledOut.has(s)));
    expect(asked).toBe(sessions.length);
    expect(job.todo.length).toBe(sessions.length - ruledOut.size);
    runFilter(job, idx, Infinity);
    const whole = startFilter(q, sessions);
    runFilter(whole, idx, Infinity);
    expect(new Map([...job.results].sort())).toEqual(new Map([...whole.results].filter(([k]) => ![...ruledOut].some((s) => s.file === k)).sort()));
  });
});
