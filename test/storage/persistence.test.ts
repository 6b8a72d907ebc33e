// JSONL persistence of forks (docs/formats.md, "Fork semantics" and "Files
// on disk"): the child file, reload from
// disk, the three layouts, hostile ids, atomicity and refusals. Real files.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeId, encodeSegment } from '../../src/storage/id-encoding.js';
import { cwdFolder, rc8ProjectFolder } from '../../src/storage/layout.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, forkError, hashTree, hdr, isRoot, listTree, REAL_DIR, sha256, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

afterEach(cleanupTmp);

const EVENTS = evs(...turnRows(1), ['todo/write', { todos: [{ content: 'a', status: 'pending' }] }], ...turnRows(2), ...turnRows(3, { kind: 'max-tokens' }));
// boundaries: 6, 7, 14, 21


/** The first line and the rest of a file, as bytes. */
function splitHeader(file: string): { header: string; rest: Buffer } {
  const buf = fs.readFileSync(file);
  const nl = buf.indexOf(10);
  return { header: buf.subarray(0, nl).toString('utf8'), rest: buf.subarray(nl + 1) };
}

/** Bytes of the parent's first `lines` event lines (after the header), verbatim. */
function firstLines(file: string, lines: number): Buffer {
  const buf = fs.readFileSync(file);
  let pos = buf.indexOf(10) + 1;
  const start = pos;
  for (let i = 0; i < lines; i++) pos = buf.indexOf(10, pos) + 1;
  return buf.subarray(start, pos);
}

type LayoutName = 'flat' | 'v0-harness' | 'rc8-harness';
/** Writes a parent session in the given layout under root; returns its file and where a child `id` must land. */
function parentIn(layout: LayoutName, root: string, id: string, cwd?: string): { file: string; childFile: (childId: string) => string } {
  const h = hdr(id, cwd !== undefined ? { cwd } : {});
  if (layout === 'flat') {
    const file = writeLog(path.join(root, `${encodeId(id)}.jsonl`), h, EVENTS);
    return { file, childFile: (c) => path.join(root, `${encodeId(c)}.jsonl`) };
  }
  if (layout === 'v0-harness') {
    const dir = path.join(root, cwdFolder(cwd));
    const file = writeLog(path.join(dir, `${encodeSegment(id)}.jsonl`), h, EVENTS);
    return { file, childFile: (c) => path.join(dir, `${encodeSegment(c)}.jsonl`) };
  }
  // rc.8: the project folder of the cwd (as the harness keys it), the session's own folder under it
  const proj = path.join(root, rc8ProjectFolder(cwd));
  const file = writeLog(path.join(proj, encodeSegment(id), 'session.jsonl'), h, EVENTS);
  return { file, childFile: (c) => path.join(proj, encodeSegment(c), 'session.jsonl') };
}

describe('fork -> child file -> reload', () => {
  it('writes the header {type, version:0, id, createdAt, cwd, parentSession, seedLength} then the seed lines byte-identical', () => {
    const root = tmpDir();
    const parent = writeLog(path.join(root, 'parent.jsonl'), hdr('parent', { cwd: '/home/u/proj' }), EVENTS);
    const parentHash = sha256(parent);
    const mtime = fs.statSync(parent).mtimeMs;
    const index = loadRootSync(root);
    const t0 = Date.now();
    const child = index.store.fork({ source: 'parent', sessionId: 'kid', boundary: 14 });
    expect(child.file).toBe(path.join(root, 'kid.jsonl'));

    const { header, rest } = splitHeader(child.file!);
    const h = JSON.parse(header);
    expect(Object.keys(h)).toEqual(['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'seedLength']);
    expect(h).toMatchObject({ type: 'session', version: 0, id: 'kid', cwd: '/home/u/proj', parentSession: 'parent', seedLength: 15 });
    expect(h.createdAt).toBeGreaterThanOrEqual(t0);
    expect(h.createdAt).toBeLessThanOrEqual(Date.now());
    expect(rest.equals(firstLines(parent, 15))).toBe(true);
    expect(rest.toString('utf8').endsWith('\n')).toBe(true);

    expect(sha256(parent)).toBe(parentHash);
    expect(fs.statSync(parent).mtimeMs).toBe(mtime);
  });

  it('omits cwd from the child header when the parent has none', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'p.jsonl'), hdr('p'), EVENTS);
    const child = loadRootSync(root).store.fork({ source: 'p', sessionId: 'k' });
    const h = JSON.parse(splitHeader(child.file!).header);
    expect(Object.keys(h)).toEqual(['type', 'version', 'id', 'createdAt', 'parentSession', 'seedLength']);
    expect(h.seedLength).toBe(22);
  });

  it('an empty parent forks to a header-only child with seedLength 0', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'e.jsonl'), hdr('e', { cwd: '/c' }), []);
    const child = loadRootSync(root).store.fork({ source: 'e', sessionId: 'e-kid' });
    const text = fs.readFileSync(child.file!, 'utf8');
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text.split('\n')[0])).toMatchObject({ id: 'e-kid', parentSession: 'e', seedLength: 0, cwd: '/c' });
    const again = loadRootSync(root).store.get('e-kid')!;
    expect(again.length).toBe(0);
    expect(again.state).toBe('empty');
  });

  it('reloading the root from disk gives the same seed (events deep-equal) and meta', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'parent.jsonl'), hdr('parent', { cwd: '/w' }), EVENTS);
    const index = loadRootSync(root);
    const snap = index.store.snapshot('parent', { boundary: 7 });
    const child = index.store.fork({ source: 'parent', sessionId: 'kid', boundary: 7 });
    const createdAt = child.header.createdAt;

    const re = loadRootSync(root);
    expect(re.store.size).toBe(2);
    const kid = re.store.get('kid')!;
    expect(kid.file).toBe(child.file);
    expect(kid.parentSession).toBe(snap.meta.parentSession);
    expect(kid.seedLength).toBe(snap.meta.seedLength);
    expect(kid.cwd).toBe(snap.meta.cwd);
    expect(kid.header.createdAt).toBe(createdAt);
    expect(kid.kind).toBe('fork');
    expect(kid.events).toEqual(snap.seed);
    expect(kid.events).toEqual(re.store.get('parent')!.events.slice(0, 8));
    expect(kid.diagnostics).toEqual([]);
    expect(kid.state).toBe('at-boundary');
    expect(kid.facts.turns).toBe(1);
  });

  it('the live child equals the reloaded child', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'parent.jsonl'), hdr('parent'), EVENTS);
    const child = loadRootSync(root).store.fork({ source: 'parent', sessionId: 'kid' });
    const kid = loadRootSync(root).store.get('kid')!;
    expect(child.events).toEqual(kid.events);
    expect(child.facts).toEqual(kid.facts);
    expect(child.header).toEqual(kid.header);
  });

  it('streams the seed: the parent is read once and never loaded, and the child holds no events', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'parent.jsonl'), hdr('parent', { cwd: '/c' }), EVENTS);
    const index = loadRootSync(root, { cache: false });
    const parent = index.store.getAll('parent')[0];
    const child = index.store.fork({ source: parent, sessionId: 'kid', boundary: 14 });
    expect(parent.isLoaded).toBe(false);
    expect(child.isLoaded).toBe(false);
    expect(child.facts).toEqual(loadRootSync(root, { cache: false }).store.getAll('kid')[0].facts);
    expect(firstLines(child.file!, 15)).toEqual(firstLines(parent.file!, 15));
  });

  it('a refusal inside a turn names the event at the cut, read up to it, and loads nothing', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'parent.jsonl'), hdr('parent', { cwd: '/c' }), EVENTS);
    const index = loadRootSync(root, { cache: false });
    const parent = index.store.getAll('parent')[0];
    const err = index.store.boundaryError(parent, 10);
    expect(parent.isLoaded).toBe(false);
    expect(err?.code).toBe('OPEN_TURN');
    expect(err?.message).toContain(`last event: ${parent.events[10].type}`);
    expect(index.store.boundaryError(parent, 10)?.message).toBe(err?.message); // the same once loaded
  });

  it('a seed with a damaged line before the cut is written from its events, read as they are written', () => {
    const root = tmpDir();
    const file = writeLog(path.join(root, 'parent.jsonl'), hdr('parent', { cwd: '/c' }), EVENTS);
    // a line of garbage after the first turn: the parent's bytes up to the cut cannot be copied as they are
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(8, 0, '{"type":"turn/st');
    fs.writeFileSync(file, lines.join('\n'));
    const index = loadRootSync(root, { cache: false });
    const parent = index.store.getAll('parent')[0];
    expect(parent.diagnostics.map((d) => d.code)).toContain('MALFORMED_LINE');
    const child = index.store.fork({ source: parent, sessionId: 'kid', boundary: 14 });
    expect(parent.isLoaded).toBe(false);
    const text = fs.readFileSync(child.file!, 'utf8');
    expect(text).not.toContain('{"type":"turn/st\n');
    const reloaded = loadRootSync(root, { cache: false }).store.getAll('kid')[0];
    expect(reloaded.diagnostics).toEqual([]);
    expect(reloaded.events).toEqual(parent.events.slice(0, 15));
    expect(reloaded.facts).toEqual(child.facts);
  });

  it('a fork of a fork copies the grandparent seed bytes through the child', () => {
    const root = tmpDir();
    const p = writeLog(path.join(root, 'p.jsonl'), hdr('p'), EVENTS);
    const idx = loadRootSync(root);
    idx.store.fork({ source: 'p', sessionId: 'c', boundary: 14 });
    const g = idx.store.fork({ source: 'c', sessionId: 'g', boundary: 6 });
    expect(splitHeader(g.file!).rest.equals(firstLines(p, 7))).toBe(true);
    expect(JSON.parse(splitHeader(g.file!).header)).toMatchObject({ parentSession: 'c', seedLength: 7 });
  });

  it('rc8 packed rows: the seed is copied verbatim (lines != events) and reloads to the same events', () => {
    const root = tmpDir();
    const name = 'toninfo-deepseek-harness__rc8__subagent-fork-in-process__session.jsonl';
    const parent = path.join(root, name);
    fs.copyFileSync(path.join(REAL_DIR, name), parent);
    const hash = sha256(parent);
    const idx = loadRootSync(root);
    const p = idx.store.get(parent)!;
    // seq 0 (agent/inbox/spliced, before any turn) is an rc.8 boundary too; take the first turn/end
    expect(p.facts.boundaries[0]).toBe(0);
    const first = p.facts.boundaries.find((b) => p.events[b].type === 'turn/end')!;
    const child = idx.store.fork({ source: parent, sessionId: 'rc8-kid', boundary: first });
    // the turn/end line is the k-th event line of the parent file
    const lines = fs.readFileSync(parent, 'utf8').split('\n').slice(1);
    const k = lines.findIndex((l) => l.startsWith('{"type":"turn/end"')) + 1;
    expect(k).toBeLessThan(first + 1); // packed rows: fewer lines than events
    // the seed verbatim, then rc.8's session/end-seed marker at seq = seedLength
    const rest = splitHeader(child.file!).rest;
    const seedBytes = firstLines(parent, k);
    expect(rest.subarray(0, seedBytes.length).equals(seedBytes)).toBe(true);
    const marker = JSON.parse(rest.subarray(seedBytes.length).toString('utf8'));
    expect(marker).toMatchObject({ type: 'session/end-seed', seq: first + 1, data: {} });
    const kid = loadRootSync(root).store.get('rc8-kid')!;
    expect(kid.seedLength).toBe(first + 1);
    expect(kid.events.slice(0, first + 1)).toEqual(p.events.slice(0, first + 1));
    expect(kid.events).toHaveLength(first + 2);
    expect(sha256(parent)).toBe(hash);
  });
});

describe('layouts: the child goes in the parent folder', () => {
  it.each(['flat', 'v0-harness', 'rc8-harness'] as const)('%s', (layout) => {
    const container = tmpDir();
    const root = path.join(container, 'root');
    const { file, childFile } = parentIn(layout, root, 'parent/one', '/home/u/proj');
    const hashes = hashTree(container);
    const idx = loadRootSync(root);
    const child = idx.store.fork({ source: 'parent/one', sessionId: 'kid', boundary: 6 });
    expect(child.file).toBe(childFile('kid'));
    if (layout === 'rc8-harness') expect(path.dirname(path.dirname(child.file!))).toBe(path.dirname(path.dirname(file)));
    else expect(path.dirname(child.file!)).toBe(path.dirname(file));
    // nothing else changed
    const after = hashTree(container);
    for (const [k, v] of hashes) expect(after.get(k)).toBe(v);
    expect([...after.keys()].filter((k) => !hashes.has(k))).toEqual([path.relative(container, childFile('kid'))]);
    const re = loadRootSync(root).store.get('kid')!;
    expect(re.seedLength).toBe(7);
    expect(re.file).toBe(childFile('kid'));
  });
});

describe('hostile child ids never write outside the folder', () => {
  const HOSTILE: Array<[string, string]> = [
    ['../../x', '../../x'],
    ['/abs', '/abs'],
    ['dot', '.'],
    ['dotdot', '..'],
    ['NUL', 'a\u0000b'],
    ['1000 chars', 'x/'.repeat(500)],
    ['backslash', '..\\..\\evil'],
    ['unicode', 'zürich ☃ 日本'],
    ['tilde', '~002E~002E'],
  ];
  for (const layout of ['flat', 'v0-harness', 'rc8-harness'] as const) {
    it.each(HOSTILE)(`${layout}: %s`, (_label, id) => {
      const container = tmpDir();
      const root = path.join(container, 'root');
      fs.mkdirSync(root);
      fs.writeFileSync(path.join(container, 'outside.txt'), 'keep');
      const { file, childFile } = parentIn(layout, root, 'p', '/c');
      const before = listTree(container);
      const idx = loadRootSync(root);
      if (layout !== 'flat' && encodeSegment(id).length > 250) {
        // the harness keeps the whole encoded id as the file name: too long for it, refused before writing
        expect(forkError(() => idx.store.fork({ source: 'p', sessionId: id, boundary: 6 })).code).toBe('INVALID_SESSION_ID');
        expect(listTree(container)).toEqual(before);
        return;
      }
      const child = idx.store.fork({ source: 'p', sessionId: id, boundary: 6 });
      expect(child.id).toBe(id);
      expect(child.file).toBe(childFile(id));
      const base = layout === 'rc8-harness' ? path.dirname(path.dirname(file)) : path.dirname(file);
      const rel = path.relative(base, child.file!);
      expect(rel === '..' || rel.startsWith('..' + path.sep)).toBe(false);
      expect(path.isAbsolute(rel)).toBe(false);
      expect(rel.split(path.sep)).toHaveLength(layout === 'rc8-harness' ? 2 : 1);
      expect(path.basename(layout === 'rc8-harness' ? path.dirname(child.file!) : child.file!).length).toBeLessThanOrEqual(255);
      const after = listTree(container);
      const added = after.filter((p) => !before.includes(p));
      expect(added.every((p) => p.startsWith('root' + path.sep)), added.join(', ')).toBe(true);
      expect(added).toHaveLength(layout === 'rc8-harness' ? 2 : 1);
      expect(after.filter((p) => path.basename(p).endsWith('.tmp'))).toEqual([]);
      expect(JSON.parse(splitHeader(child.file!).header).id).toBe(id);
    });
  }

  it.each(HOSTILE)('the child with id %s is found again when the root is reloaded', (_label, id) => {
    const root = tmpDir();
    writeLog(path.join(root, 'p.jsonl'), hdr('p'), EVENTS);
    loadRootSync(root).store.fork({ source: 'p', sessionId: id, boundary: 6 });
    const re = loadRootSync(root);
    const kid = re.store.getAll(id);
    expect(kid, `child ${JSON.stringify(id).slice(0, 40)} not found on reload`).toHaveLength(1);
    expect(kid[0].seedLength).toBe(7);
  });

  it('an id starting with "." is found again when the root is reloaded', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'p.jsonl'), hdr('p'), EVENTS);
    const child = loadRootSync(root).store.fork({ source: 'p', sessionId: '.hidden', boundary: 6 });
    expect(fs.existsSync(child.file!)).toBe(true);
    expect(loadRootSync(root).store.get('.hidden')?.seedLength).toBe(7);
  });
});

describe('atomic writes and refusals', () => {
  it('leaves no temp files behind after forks', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'p.jsonl'), hdr('p'), EVENTS);
    const idx = loadRootSync(root);
    for (let i = 0; i < 5; i++) idx.store.fork({ source: 'p', boundary: [6, 7, 14, 21, 6][i] });
    const names = fs.readdirSync(root);
    expect(names.filter((n) => n.startsWith('.') || n.endsWith('.tmp'))).toEqual([]);
    expect(names).toHaveLength(6);
  });

  it('an existing target file -> SESSION_ALREADY_EXISTS, the existing file untouched', () => {
    const root = tmpDir();
    writeLog(path.join(root, 'p.jsonl'), hdr('p'), EVENTS);
    const idx = loadRootSync(root);
    const target = writeLog(path.join(root, 'taken.jsonl'), hdr('someone-else'), evs(...turnRows(1)));
    const hash = sha256(target);
    const mtime = fs.statSync(target).mtimeMs;
    const e = forkError(() => idx.store.fork({ source: 'p', sessionId: 'taken' }));
    expect(e.code).toBe('SESSION_ALREADY_EXISTS');
    expect(e.message).toBe('session "taken" already exists');
    expect(sha256(target)).toBe(hash);
    expect(fs.statSync(target).mtimeMs).toBe(mtime);
    expect(fs.readdirSync(root).sort()).toEqual(['p.jsonl', 'taken.jsonl']);
  });

  it('an existing rc8 target folder with session.jsonl -> SESSION_ALREADY_EXISTS, untouched', () => {
    const container = tmpDir();
    const root = path.join(container, 'root');
    const { childFile } = parentIn('rc8-harness', root, 'p');
    const idx = loadRootSync(root);
    const target = writeLog(childFile('taken'), { type: 'session', version: 3, id: 'taken', createdAt: 1 }, []);
    const hash = sha256(target);
    expect(forkError(() => idx.store.fork({ source: 'p', sessionId: 'taken' })).code).toBe('SESSION_ALREADY_EXISTS');
    expect(sha256(target)).toBe(hash);
  });

  it('rc8: the child folder path is a FILE -> WRITE_FAILED, nothing left behind', () => {
    const container = tmpDir();
    const root = path.join(container, 'root');
    const { childFile } = parentIn('rc8-harness', root, 'p');
    const idx = loadRootSync(root);
    const blocker = path.dirname(childFile('kid'));
    fs.writeFileSync(blocker, 'i am a file');
    const before = hashTree(container);
    const e = forkError(() => idx.store.fork({ source: 'p', sessionId: 'kid' }));
    expect(e.code).toBe('WRITE_FAILED');
    expect(e.message).toContain('"kid"');
    expect(hashTree(container)).toEqual(before);
    expect(listTree(container).filter((p) => p.endsWith('.tmp'))).toEqual([]);
    expect(idx.store.get('kid')).toBeUndefined();
  });

  it.skipIf(isRoot)('a read-only folder -> WRITE_FAILED, nothing left behind (skipped as root: chmod does not block root)', () => {
    const root = tmpDir();
    const dir = path.join(root, 'ro');
    writeLog(path.join(dir, 'p.jsonl'), hdr('p'), EVENTS);
    const idx = loadRootSync(root);
    const before = listTree(root);
    fs.chmodSync(dir, 0o555);
    try {
      const e = forkError(() => idx.store.fork({ source: 'p', sessionId: 'kid' }));
      expect(e.code).toBe('WRITE_FAILED');
    } finally {
      fs.chmodSync(dir, 0o755);
    }
    expect(listTree(root)).toEqual(before);
  });

  it('a parent file that vanished after loading -> a typed SessionForkError, nothing left behind', () => {
    const container = tmpDir();
    const root = path.join(container, 'root');
    const dir = path.join(root, 'gone');
    const parent = writeLog(path.join(dir, 'p.jsonl'), hdr('p'), EVENTS);
    const idx = loadRootSync(root);
    fs.rmSync(parent);
    fs.rmdirSync(dir);
    const e = forkError(() => idx.store.fork({ source: 'p', sessionId: 'kid' }));
    expect(e.code).toBe('READ_FAILED');
    expect(listTree(container)).toEqual(['root/']);
  });
});
