// Golden tests of the child files per era, built from the real harness logs:
// the RFC era's children stay exactly as before (key order, byte-identical
// seed, no rc.8 keys); rc.8's carry delegationDepth in rc.8's key order, the
// session/end-seed marker, rc.8's placement (_no-cwd included), 0600/0700.
// (Each was also loaded by the harnesses' own loaders during development:
// see docs/formats.md, "Resuming in the harness".)
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eraOf } from '../../src/session/era.js';
import { encodeSegment } from '../../src/storage/id-encoding.js';
import { cwdFolder, projectKey, rc8ProjectFolder } from '../../src/storage/layout.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, hdr, REAL_DIR, sha256, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { realRoot } from '../support/real-roots.js';

afterEach(cleanupTmp);

const RC8_ORDER = ['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'seedLength', 'origin', 'delegationDepth', 'agentPreset'];
const RFC_ORDER = ['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'seedLength'];

function split(file: string): { header: Record<string, unknown>; keys: string[]; lines: string[]; body: Buffer } {
  const buf = fs.readFileSync(file);
  const nl = buf.indexOf(10);
  const header = JSON.parse(buf.subarray(0, nl).toString('utf8'));
  const text = buf.subarray(nl + 1).toString('utf8');
  return { header, keys: Object.keys(header), lines: text === '' ? [] : text.slice(0, -1).split('\n'), body: buf.subarray(nl + 1) };
}

/** The parent's bytes after its header line, up to the line holding event `n - 1`. */
function parentSeedBytes(file: string, eventEnds: number[], headerEnd: number, n: number): Buffer {
  return n === 0 ? Buffer.alloc(0) : fs.readFileSync(file).subarray(headerEnd, eventEnds[n - 1]);
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('children of the real logs, per era', () => {
  it('RFC era: every boundary of the 14 logs; header keys in RFC order, no rc.8 key, seed byte-identical, no marker, next to the parent', () => {
    const { root, files } = realRoot(tmpDir(), 'rfc0706');
    expect(files.size).toBe(14);
    const idx = loadRootSync(root);
    let n = 0;
    for (const file of files.values()) {
      const p = idx.store.get(file)!;
      const hash = sha256(file);
      expect(eraOf(p)).toBe('rfc');
      const cuts = p.length === 0 ? [undefined] : p.facts.boundaries;
      for (const b of cuts) {
        const c = idx.store.fork({ source: p, boundary: b });
        const seedLength = b === undefined ? p.length : b + 1;
        const { header, keys, body } = split(c.file!);
        expect(keys).toEqual(RFC_ORDER.filter((k) => k in header));
        expect(header).toMatchObject({ type: 'session', version: 0, id: c.id, parentSession: p.id, seedLength });
        expect(header.cwd).toBe(p.cwd);
        const log = p.ensureLoaded();
        expect(body.equals(parentSeedBytes(file, log.eventEnds, log.headerEnd, seedLength))).toBe(true);
        expect(c.file).toBe(path.join(path.dirname(file), encodeSegment(c.id) + '.jsonl'));
        expect(path.basename(path.dirname(file))).toBe(cwdFolder(p.cwd));
        expect(mode(c.file!)).toBe(0o600);
        n++;
      }
      expect(sha256(file)).toBe(hash);
    }
    expect(n).toBe(17);
    // they reload as forks whose seed equals the parent prefix (audit clean)
    const again = loadRootSync(root);
    for (const s of again.store.list().filter((x) => x.kind === 'fork' && x.header.createdAt > 1_800_000_000_000))
      expect(s.events).toEqual(again.store.get(s.parentSession!)!.events.slice(0, s.seedLength));
  });

  it('rc.8: every boundary of the 19 logs; rc.8 key order with delegationDepth 0, origin dropped, session/end-seed at seedLength, own folder under the project of its cwd, 0600/0700', () => {
    const { root, files } = realRoot(tmpDir(), 'rc8');
    expect(files.size).toBe(19);
    const idx = loadRootSync(root);
    let n = 0;
    for (const file of files.values()) {
      const p = idx.store.get(file)!;
      expect(eraOf(p)).toBe('rc8');
      const cuts = p.length === 0 ? [undefined] : p.facts.boundaries;
      for (const b of cuts) {
        const c = idx.store.fork({ source: p, boundary: b });
        const seedLength = b === undefined ? p.length : b + 1;
        const { header, keys, lines } = split(c.file!);
        expect(keys).toEqual(RC8_ORDER.filter((k) => k in header));
        expect(header.delegationDepth).toBe(0);
        expect(header).not.toHaveProperty('origin');
        expect(header).not.toHaveProperty('agentPreset');
        expect(header).toMatchObject({ parentSession: p.id, seedLength });
        expect(header.cwd).toBe(p.cwd);
        const endsWithMarker = seedLength > 0 && p.events[seedLength - 1].type === 'session/end-seed';
        const last = JSON.parse(lines[lines.length - 1] ?? 'null');
        if (endsWithMarker) expect(last?.type === 'session/end-seed' && last.seq === seedLength - 1).toBe(true);
        else expect(last).toMatchObject({ type: 'session/end-seed', seq: seedLength, data: {} });
        expect(c.events.slice(0, seedLength)).toEqual(p.events.slice(0, seedLength));
        expect(c.length).toBe(seedLength + (endsWithMarker ? 0 : 1));
        expect(c.file).toBe(path.join(root, rc8ProjectFolder(p.cwd), encodeSegment(c.id), 'session.jsonl'));
        expect(mode(c.file!)).toBe(0o600);
        expect(mode(path.dirname(c.file!))).toBe(0o700);
        n++;
      }
    }
    expect(n).toBe(52);
    // every child reloads from disk with the same events as its live object
    const again = loadRootSync(root);
    for (const s of idx.store.list()) expect(again.store.get(s.file!)!.events).toEqual(s.events);
  });

  it('rc.8 _no-cwd: the child of a session without cwd goes to _no-cwd/<encoded child id>/session.jsonl, not next to the parent', () => {
    const { root, files } = realRoot(tmpDir(), 'rc8');
    const replay = files.get('toninfo-deepseek-harness__rc8__tool-outcome-unknown__replay.jsonl')!;
    expect(replay).toBe(path.join(root, '_no-cwd', 'semantic-checkpoint-replay', 'session.jsonl'));
    const idx = loadRootSync(root);
    const c = idx.store.fork({ source: idx.store.get(replay)!, sessionId: 'kid/1' });
    expect(c.file).toBe(path.join(root, '_no-cwd', 'kid~002F1', 'session.jsonl'));
    expect(split(c.file!).header).toEqual({ type: 'session', version: 0, id: 'kid/1', createdAt: c.header.createdAt, parentSession: 'semantic-checkpoint-replay', seedLength: 0, delegationDepth: 0 });
  });
});

describe('placement for every layout', () => {
  const EVENTS = evs(...turnRows(1), ...turnRows(2));
  const cases: Array<[string, (root: string) => string, (root: string, id: string) => string, 'rfc' | 'rc8']> = [
    ['flat, RFC header', (r) => writeLog(path.join(r, 'p.jsonl'), hdr('p', { cwd: '/a' }), EVENTS), (r, id) => path.join(r, `${id}.jsonl`), 'rfc'],
    ['flat, rc.8 header', (r) => writeLog(path.join(r, 'p.jsonl'), hdr('p', { cwd: '/a', delegationDepth: 0 }), EVENTS), (r, id) => path.join(r, `${id}.jsonl`), 'rc8'],
    ['v0 cwd bucket', (r) => writeLog(path.join(r, cwdFolder('/a'), 'p.jsonl'), hdr('p', { cwd: '/a' }), EVENTS), (r, id) => path.join(r, cwdFolder('/a'), `${id}.jsonl`), 'rfc'],
    ['v0 _no-cwd', (r) => writeLog(path.join(r, '_no-cwd', 'p.jsonl'), hdr('p'), EVENTS), (r, id) => path.join(r, '_no-cwd', `${id}.jsonl`), 'rfc'],
    ['rc.8 project', (r) => writeLog(path.join(r, projectKey('/a'), 'p', 'session.jsonl'), hdr('p', { cwd: '/a', delegationDepth: 0 }), EVENTS), (r, id) => path.join(r, '--a--', id, 'session.jsonl'), 'rc8'],
    ['rc.8 _no-cwd', (r) => writeLog(path.join(r, '_no-cwd', 'p', 'session.jsonl'), hdr('p', { delegationDepth: 0 }), EVENTS), (r, id) => path.join(r, '_no-cwd', id, 'session.jsonl'), 'rc8'],
    ['rc.8 layout, header without cwd in a project folder: to _no-cwd (where rc.8 looks)', (r) => writeLog(path.join(r, '--a--', 'p', 'session.jsonl'), hdr('p', { delegationDepth: 0 }), EVENTS), (r, id) => path.join(r, '_no-cwd', id, 'session.jsonl'), 'rc8'],
    ['rc.8 layout, RFC header (era by layout)', (r) => writeLog(path.join(r, '--a--', 'p', 'session.jsonl'), hdr('p', { cwd: '/a' }), EVENTS), (r, id) => path.join(r, '--a--', id, 'session.jsonl'), 'rc8'],
  ];
  it.each(cases)('%s', (_name, make, expected, era) => {
    const root = tmpDir();
    const parent = make(root);
    const idx = loadRootSync(root);
    const c = idx.store.fork({ source: idx.store.get(parent)!, sessionId: 'kid', boundary: 6 });
    expect(c.file).toBe(expected(root, 'kid'));
    expect(mode(c.file!)).toBe(0o600);
    const { header, lines } = split(c.file!);
    expect('delegationDepth' in header).toBe(era === 'rc8');
    expect(lines.length).toBe(era === 'rc8' ? 8 : 7);
    // new folders are private; the parent folder is left as it was
    if (path.dirname(c.file!) !== path.dirname(parent)) expect(mode(path.dirname(c.file!))).toBe(0o700);
  });

  it('a subagent child forked again: rc.8 keeps neither origin nor agentPreset, and resets delegationDepth to 0', () => {
    const root = tmpDir();
    const file = writeLog(path.join(root, '--a--', 'sub', 'session.jsonl'), hdr('sub', { cwd: '/a', parentSession: 'top', origin: 'subagent', delegationDepth: 2, agentPreset: 'reviewer' }), EVENTS);
    const idx = loadRootSync(root);
    const c = idx.store.fork({ source: idx.store.get(file)!, sessionId: 'kid' });
    const { header, keys } = split(c.file!);
    expect(keys).toEqual(['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'seedLength', 'delegationDepth']);
    expect(header).toMatchObject({ parentSession: 'sub', seedLength: EVENTS.length, delegationDepth: 0 });
  });
});
