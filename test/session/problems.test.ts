// Problems model on fixtures written to disk: a tampered fork child, a seq gap,
// a garbage line, a garbage file, duplicate ids, an unanswered tool call.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditSessions } from '../../src/session/audit.js';
import { compareSeverity, problemRows, seedDivergence, worstBySession } from '../../src/session/problems.js';
import { loadRootSync, type RootIndex } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

let dir = '';
let index: RootIndex;
const f = (name: string) => path.join(dir, name);
const refusedOf = (ix: RootIndex) => [...ix.files.values()].flatMap((e) => e.refused ?? []);

beforeAll(() => {
  dir = tmpDir('dsh-problems-');
  const parent = evs(...turnRows(1), ...turnRows(2));
  writeLog(f('alpha.jsonl'), hdr('alpha'), parent);
  // tampered child: seed of 7 events (turn 1), its user prompt edited
  const seed = parent.slice(0, 7).map((e) => structuredClone(e));
  seed[1].data.content[0].text = 'prompt 1 (edited)';
  writeLog(f('tampered-child.jsonl'), hdr('tampered', { parentSession: 'alpha', seedLength: 7 }), [...seed, ...evs(...turnRows(2)).map((e, i) => ({ ...e, seq: 7 + i }))]);
  // an honest child for contrast
  writeLog(f('good-child.jsonl'), hdr('good', { parentSession: 'alpha', seedLength: 7 }), parent.slice(0, 7));
  // seq gap: 0..6 then 9..
  writeLog(f('gap.jsonl'), hdr('gap'), [...evs(...turnRows(1)), ...evs(...turnRows(2)).map((e, i) => ({ ...e, seq: 9 + i }))]);
  // a garbage line in the middle (line 4 of the file)
  const rows = evs(...turnRows(1));
  const text = logText(hdr('garbled'), rows).split('\n');
  text.splice(3, 0, 'this is {not json');
  fs.writeFileSync(f('garbled.jsonl'), text.join('\n'));
  // not a session at all
  fs.writeFileSync(f('junk.jsonl'), '\u0000\u0000garbage\n');
  // unanswered tool call
  writeLog(f('unanswered.jsonl'), hdr('unanswered'), evs(['turn/start', { turn: 1 }], ['tool/call', { turn: 1, step: 1, callId: 'c9', name: 'bash', arguments: '{}' }], ['turn/end', { turn: 1, reason: { kind: 'aborted' } }]));
  // duplicate ids
  writeLog(f('dup-a.jsonl'), hdr('same'), []);
  writeLog(f('dup-b.jsonl'), hdr('same'), []);
  index = loadRootSync(dir);
});
afterAll(cleanupTmp);

describe('problemRows', () => {
  it('diagnostics alone (before the audit): file, line, session, seq', () => {
    const rows = problemRows({ sessions: index.store.list(), refused: refusedOf(index) });
    const gap = rows.find((r) => r.code === 'SEQ_GAP')!;
    expect(gap).toMatchObject({ severity: 'error', file: f('gap.jsonl'), line: 9, sessionKey: f('gap.jsonl'), sessionId: 'gap', seq: 9 });
    const garbled = rows.find((r) => r.code === 'MALFORMED_LINE')!;
    expect(garbled).toMatchObject({ file: f('garbled.jsonl'), line: 4, sessionKey: f('garbled.jsonl') });
    const junk = rows.find((r) => r.file === f('junk.jsonl'))!;
    expect(junk.severity).toBe('error');
    expect(junk.sessionKey).toBeUndefined();
    expect(rows.some((r) => r.code === 'SEED_MISMATCH')).toBe(false); // the audit has not run
    // sorted worst first
    for (let i = 1; i < rows.length; i++) expect(compareSeverity(rows[i - 1], rows[i])).toBeLessThanOrEqual(0);
  });

  it('with audit findings: every finding, tampered child marked at its first differing seq', () => {
    const refused = refusedOf(index);
    const findings = auditSessions(index.store.list(), refused);
    const rows = problemRows({ sessions: index.store.list(), refused, findings });
    expect(rows).toHaveLength(findings.length + 1); // DUPLICATE_ID becomes one row per session
    const seed = rows.find((r) => r.code === 'SEED_MISMATCH')!;
    expect(seed).toMatchObject({ severity: 'error', file: f('tampered-child.jsonl'), sessionKey: f('tampered-child.jsonl'), seq: 1 });
    expect(rows[0].code).toBe('SEED_MISMATCH');
    const un = rows.find((r) => r.code === 'UNANSWERED_TOOL_CALL')!;
    expect(un).toMatchObject({ sessionKey: f('unanswered.jsonl'), seq: 1 });
    const dups = rows.filter((r) => r.code === 'DUPLICATE_ID').map((r) => r.sessionKey).sort();
    expect(dups).toEqual([f('dup-a.jsonl'), f('dup-b.jsonl')]);
    expect(rows.some((r) => r.code === 'SEQ_GAP' && r.seq === 9)).toBe(true);
    expect(rows.filter((r) => r.sessionKey === f('good-child.jsonl'))).toEqual([]);
  });

  it('badges: the worst code per session, with the count', () => {
    const refused = refusedOf(index);
    const badges = worstBySession(problemRows({ sessions: index.store.list(), refused, findings: auditSessions(index.store.list(), refused) }));
    expect(badges.get(f('tampered-child.jsonl'))).toEqual({ severity: 'error', code: 'SEED_MISMATCH', count: 1 });
    expect(badges.get(f('gap.jsonl'))).toMatchObject({ severity: 'error', code: 'SEQ_GAP' });
    expect(badges.get(f('unanswered.jsonl'))).toMatchObject({ code: 'UNANSWERED_TOOL_CALL' });
    expect(badges.get(f('dup-a.jsonl'))).toMatchObject({ severity: 'warning', code: 'DUPLICATE_ID' });
    expect(badges.has(f('alpha.jsonl'))).toBe(false);
    expect(badges.has(f('good-child.jsonl'))).toBe(false);
  });
});

describe('seedDivergence', () => {
  const get = (name: string) => index.store.list().find((s) => s.file === f(name))!;
  it('finds the first differing event with both versions', () => {
    const d = seedDivergence(get('tampered-child.jsonl'), index.store.list())!;
    expect(d.seq).toBe(1);
    expect(d.parentKey).toBe(f('alpha.jsonl'));
    expect(d.parentEvent!.data.content[0].text).toBe('prompt 1');
    expect(d.childEvent!.data.content[0].text).toBe('prompt 1 (edited)');
  });
  it('null for an honest child, a root, a spawn', () => {
    expect(seedDivergence(get('good-child.jsonl'), index.store.list())).toBeNull();
    expect(seedDivergence(get('alpha.jsonl'), index.store.list())).toBeNull();
  });
  it('a parent shorter than the seed diverges where it ends; with duplicate parents the longest agreement wins', () => {
    const d2 = tmpDir('dsh-problems-dup-');
    const log = evs(...turnRows(1), ...turnRows(2));
    writeLog(path.join(d2, 'p1.jsonl'), hdr('p'), log.slice(0, 3)); // short
    const other = log.map((e) => structuredClone(e));
    other[10].data = { x: 1 };
    writeLog(path.join(d2, 'p2.jsonl'), hdr('p', { createdAt: 1_700_000_000_500 }), other); // differs at 10
    writeLog(path.join(d2, 'c.jsonl'), hdr('c', { parentSession: 'p', seedLength: 14 }), log);
    const ix = loadRootSync(d2);
    const c = ix.store.list().find((s) => s.id === 'c')!;
    const d = seedDivergence(c, ix.store.list())!;
    expect(d).toMatchObject({ seq: 10, parentKey: path.join(d2, 'p2.jsonl') });
    const onlyShort = seedDivergence(c, ix.store.list(), ix.store.list().filter((s) => s.file === path.join(d2, 'p1.jsonl')))!;
    expect(onlyShort.seq).toBe(3);
    expect(onlyShort.parentEvent).toBeUndefined();
    expect(onlyShort.childEvent!.seq).toBe(3);
  });
});
