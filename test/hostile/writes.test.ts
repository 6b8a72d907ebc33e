// Writes that cannot hurt: ids decide file names only through the encoding
// rule, symlinks are never followed, a failing write (disk full, read-only
// folder) is a typed WRITE_FAILED that leaves nothing behind, and leftover
// temp files are ignored by the loader and cleaned up later.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionForkError } from '../../src/session/errors.js';
import { cleanupStaleTemps, TEMP_OPEN_FLAGS, tempPathFor, writeNewSessionFile } from '../../src/storage/atomic-writer.js';
import { encodeId, encodeSegment, MAX_ENCODED_LENGTH } from '../../src/storage/id-encoding.js';
import { listSessionFiles, loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, evs, hashTree, hdr, isRoot, listTree, REPO, sha256, tmpDir, turnRows, writeLog } from '../support/fixtures.js';

const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs'); // the bundled bin users run
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts.splice(0)) {
    spawnSync('umount', ['-l', m]);
    fs.rmSync(m, { recursive: true, force: true }); // the (now empty) mount point
  }
  cleanupTmp();
});

const EVENTS = evs(...turnRows(1), ...turnRows(2));

function forkError(fn: () => unknown): SessionForkError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SessionForkError);
    return e as SessionForkError;
  }
  throw new Error('expected a SessionForkError');
}

const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

describe('ids decide file names only through the encoding rule', () => {
  const long = (c: string) => 'L'.repeat(9_999) + c;
  const IDS = ['../../x', '/etc/passwd', '.', '..', 'a\u0000b', '~', 'a/../../b', '\\..\\x', ' ', 'x'.repeat(10_000), long('1'), long('2'), '日本/語', '\ud800'];

  it('long ids are capped and hashed: a common prefix still gives different names', () => {
    const a = encodeId(long('1'));
    const b = encodeId(long('2'));
    expect(a).not.toBe(b);
    expect(a.length).toBeLessThanOrEqual(MAX_ENCODED_LENGTH);
    expect(b.length).toBeLessThanOrEqual(MAX_ENCODED_LENGTH);
    expect(a).toMatch(/^[A-Za-z0-9._~-]+$/);
  });

  for (const layout of ['flat', 'rc8'] as const)
    it(`every hostile id stays inside the parent's folder (${layout} layout)`, () => {
      const outer = tmpDir('dsh-ids-');
      const root = path.join(outer, 'root');
      const parentFile = layout === 'flat' ? path.join(root, 'parent.jsonl') : path.join(root, '--proj--', 'parent', 'session.jsonl');
      writeLog(parentFile, hdr('parent', { cwd: '/proj' }), EVENTS);
      const sibling = path.join(outer, 'sibling');
      fs.mkdirSync(sibling);
      const index = loadRootSync(root);
      const parent = index.store.get(parentFile)!;
      const made = new Set<string>();
      const ids = layout === 'flat' ? IDS : IDS.filter((id) => encodeSegment(id).length <= 200);
      for (const id of IDS) {
        if (!ids.includes(id)) {
          // rc.8 keeps the whole encoded id as the folder name: longer than a file name can be, so refused
          expect(forkError(() => index.store.fork({ source: parent, sessionId: id })).code).toBe('INVALID_SESSION_ID');
          continue;
        }
        const child = index.store.fork({ source: parent, sessionId: id });
        const file = child.file!;
        made.add(file);
        const expected =
          layout === 'flat' ? path.join(root, encodeId(id) + '.jsonl') : path.join(root, '--proj--', encodeSegment(id), 'session.jsonl');
        expect(file).toBe(expected);
        // one plain name in the folder ('..~002F..~002Fx.jsonl' is a name, not a path)
        expect(path.dirname(file)).toBe(layout === 'flat' ? root : path.join(root, '--proj--', encodeSegment(id)));
        expect(path.basename(file) === '.' || path.basename(file) === '..').toBe(false);
      }
      expect(made.size).toBe(ids.length);
      // nothing anywhere but inside root; nothing in the folder above it
      expect(fs.readdirSync(outer).sort()).toEqual(['root', 'sibling']);
      expect(fs.readdirSync(sibling)).toEqual([]);
      expect(fs.existsSync('/x')).toBe(false);
      // every child loads back with its exact id
      const again = loadRootSync(root);
      for (const id of ids) {
        const all = again.store.getAll(id);
        expect(all.length, JSON.stringify(id.slice(0, 20))).toBe(1);
        expect(all[0].events.length).toBe(EVENTS.length + (layout === 'rc8' ? 1 : 0)); // rc.8: + session/end-seed
      }
    });
});

describe('never follow a symlink when writing', () => {
  function setup() {
    const outer = tmpDir('dsh-link-');
    const root = path.join(outer, 'root');
    const parentFile = writeLog(path.join(root, 'parent.jsonl'), hdr('parent'), EVENTS);
    const outside = path.join(outer, 'outside');
    fs.mkdirSync(outside);
    const victim = path.join(outside, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    return { outer, root, parentFile, outside, victim };
  }

  it('a symlink at the target name -> SESSION_ALREADY_EXISTS, its target untouched (also dangling)', () => {
    const { root, parentFile, outside, victim } = setup();
    fs.symlinkSync(victim, path.join(root, 'child.jsonl'));
    fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling.jsonl'));
    const index = loadRootSync(root);
    const parent = index.store.get(parentFile)!;
    for (const id of ['child', 'dangling']) {
      const e = forkError(() => index.store.fork({ source: parent, sessionId: id }));
      expect(e.code).toBe('SESSION_ALREADY_EXISTS');
    }
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.readdirSync(outside)).toEqual(['victim.txt']);
    // even past the existence check: the writer's hard link refuses the taken name
    const e = forkError(() => writeNewSessionFile(root, path.join(root, 'dangling.jsonl'), 'dangling', { header: '{}', lines: [] }));
    expect(e.code).toBe('SESSION_ALREADY_EXISTS');
    expect(fs.readdirSync(outside)).toEqual(['victim.txt']);
    expect(fs.readdirSync(root).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // the CLI says so and exits 1
    const r = cli('fork', '--dir', root, '--session', 'parent', '--id', 'child');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^SessionForkError SESSION_ALREADY_EXISTS: session "child" already exists/);
  });

  it('rc8 layout: a symlink planted at the child session folder is refused, the outside folder untouched', () => {
    const outer = tmpDir('dsh-link8-');
    const root = path.join(outer, 'root');
    const parentFile = writeLog(path.join(root, '--proj--', 'parent', 'session.jsonl'), hdr('parent', { cwd: '/proj' }), EVENTS);
    const outside = path.join(outer, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(root, '--proj--', 'child'));
    const index = loadRootSync(root);
    const e = forkError(() => index.store.fork({ source: index.store.get(parentFile)!, sessionId: 'child' }));
    expect(e.code).toBe('SESSION_ALREADY_EXISTS');
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('temp names are random and opened O_EXCL|O_NOFOLLOW: a planted symlink cannot redirect the write', () => {
    const { root, parentFile, victim } = setup();
    const target = path.join(root, 'child.jsonl');
    const names = new Set(Array.from({ length: 2000 }, () => tempPathFor(target)));
    expect(names.size).toBe(2000);
    for (const n of names) expect(path.basename(n)).toMatch(new RegExp(`^\\.child\\.jsonl\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
    // An attacker who guessed a temp name: the open fails instead of writing through the link.
    const guess = [...names][0];
    fs.symlinkSync(victim, guess);
    expect(() => fs.openSync(guess, TEMP_OPEN_FLAGS, 0o644)).toThrow(/EEXIST|ELOOP/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    // Predictable names (pid only, or pid and a counter) planted everywhere do not matter either.
    for (const n of [`.child.jsonl.${process.pid}.tmp`, `.child.jsonl.tmp`, `child.jsonl.tmp`]) fs.symlinkSync(victim, path.join(root, n));
    const index = loadRootSync(root);
    const child = index.store.fork({ source: index.store.get(parentFile)!, sessionId: 'child' });
    expect(fs.lstatSync(child.file!).isFile()).toBe(true);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(loadRootSync(root).store.get(child.file!)!.events.length).toBe(EVENTS.length);
  });
});

describe('leftover temp files', () => {
  it('are ignored by the loader and removed (when older than 1 hour) by the next fork into that folder', () => {
    const root = tmpDir('dsh-temp-');
    const parentFile = writeLog(path.join(root, 'parent.jsonl'), hdr('parent'), EVENTS);
    const body = fs.readFileSync(parentFile);
    const old = path.join(root, '.child.jsonl.4242.0123456789ab.tmp');
    const fresh = path.join(root, '.other.jsonl.4243.abcdef012345.tmp');
    const oldLink = path.join(root, '.link.jsonl.4244.0123456789ab.tmp');
    const notOurs = path.join(root, '.notes.tmp');
    fs.writeFileSync(old, body); // a complete copy: still not a session, it is a temp
    fs.writeFileSync(fresh, body);
    fs.writeFileSync(notOurs, 'x');
    fs.symlinkSync(parentFile, oldLink);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
    fs.utimesSync(notOurs, twoHoursAgo, twoHoursAgo);
    fs.lutimesSync(oldLink, twoHoursAgo, twoHoursAgo);

    expect(listSessionFiles(root)).toEqual([parentFile]);
    const index = loadRootSync(root);
    expect(index.store.size).toBe(1);

    index.store.fork({ source: index.store.get(parentFile)!, sessionId: 'child' });
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true); // may belong to a writer at work
    expect(fs.lstatSync(oldLink).isSymbolicLink()).toBe(true); // only regular files are removed
    expect(fs.existsSync(notOurs)).toBe(true); // only our name pattern
    expect(fs.readFileSync(parentFile).equals(body)).toBe(true);
    expect(cleanupStaleTemps(root, 0, Date.now() + 1000)).toEqual([path.basename(fresh)]);
  });
});

// ---- failing writes on a real tmpfs ----------------------------------------

function mountTmpfs(size: string): { dir?: string; why?: string } {
  if (!isRoot) return { why: 'not root: cannot mount a tmpfs' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-mnt-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return { why: `mount -t tmpfs failed: ${(r.stderr || r.error?.message || '').trim()}` };
  mounts.push(dir);
  return { dir };
}

/** A parent with a tiny first turn and a second turn of ~`big` bytes. */
function bigParent(dir: string, big: number): string {
  return writeLog(path.join(dir, 'parent.jsonl'), hdr('parent', { cwd: '/w' }), evs(...turnRows(1), ...turnRows(2, { kind: 'completed' }, 'p'.repeat(big))));
}

describe('a failing write gives WRITE_FAILED, leaves nothing behind, and the store keeps working', () => {
  it('disk full (64 KiB tmpfs, a seed bigger than the free space)', (ctx) => {
    const m = mountTmpfs('64k');
    if (!m.dir) return ctx.skip(m.why);
    const root = m.dir;
    const parentFile = bigParent(root, 36_000);
    const before = hashTree(root);
    const tree = listTree(root);
    const index = loadRootSync(root);
    const parent = index.store.get(parentFile)!;
    const e = forkError(() => index.store.fork({ source: parent, sessionId: 'too-big' }));
    expect(e.code).toBe('WRITE_FAILED');
    expect(e.message).toMatch(/ENOSPC/);
    expect(e.message).not.toMatch(/ENOSPC: ENOSPC/); // the code is said once
    expect(listTree(root)).toEqual(tree); // no temp, no child
    expect(hashTree(root)).toEqual(before);
    expect(index.store.size).toBe(1);
    expect(index.store.get('too-big')).toBeUndefined();
    // the app keeps working: a smaller fork (after turn 1) fits
    const small = index.store.fork({ source: parent, sessionId: 'small', boundary: 6 });
    expect(small.seedLength).toBe(7);
    expect(loadRootSync(root).store.get(small.file!)!.events).toEqual(EVENTS.slice(0, 7));
    expect(sha256(parentFile)).toBe(before.get('parent.jsonl'));
    // the CLI: the typed error, exit 1, nothing left; --json gives the code
    const r = cli('fork', '--dir', root, '--session', 'parent', '--id', 'too-big-cli');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^SessionForkError WRITE_FAILED: could not write session "too-big-cli" .*ENOSPC/);
    const j = cli('fork', '--dir', root, '--session', 'parent', '--id', 'too-big-cli', '--json');
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ error: { name: 'SessionForkError', code: 'WRITE_FAILED' } });
    expect(listTree(root)).toEqual(['parent.jsonl', 'small.jsonl']);
  });

  it('read-only folder (tmpfs remounted ro; root ignores chmod)', (ctx) => {
    const m = mountTmpfs('1m');
    if (!m.dir) return ctx.skip(m.why);
    const root = m.dir;
    const parentFile = bigParent(root, 100);
    const index = loadRootSync(root);
    const ro = spawnSync('mount', ['-o', 'remount,ro', root], { encoding: 'utf8' });
    if (ro.status !== 0) return ctx.skip(`mount -o remount,ro failed: ${ro.stderr.trim()}`);
    try {
      const before = hashTree(root);
      const e = forkError(() => index.store.fork({ source: index.store.get(parentFile)!, sessionId: 'child' }));
      expect(e.code).toBe('WRITE_FAILED');
      expect(e.message).toMatch(/EROFS/);
      expect(hashTree(root)).toEqual(before);
      expect(index.store.size).toBe(1);
      const r = cli('fork', '--dir', root, '--session', 'parent', '--id', 'child');
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^SessionForkError WRITE_FAILED: .*EROFS/);
      // reading still works
      expect(cli('list', '--dir', root).status).toBe(0);
    } finally {
      spawnSync('mount', ['-o', 'remount,rw', root]);
    }
    // writable again: the same store forks fine
    const child = index.store.fork({ source: index.store.get(parentFile)!, sessionId: 'child' });
    expect(fs.existsSync(child.file!)).toBe(true);
  });
});
