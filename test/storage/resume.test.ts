// What dsh --resume would refuse (resumeVerdict), the command that continues a
// session (resumeCommand), and what rc.8 shows (title, origin, depth, preset).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSessionFiles, loadRootSync } from '../../src/storage/load-root.js';
import { cwdFolder } from '../../src/storage/layout.js';
import { rc8RootRefusalsOf } from '../../src/storage/root-refusals.js';

import { resumeCommand } from '../../src/session/resume-command.js';
import { resumeVerdict } from '../../src/storage/resume.js';
import { cleanupTmp, evs, hdr, REAL_DIR, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { realRoot } from '../support/real-roots.js';

/** rc.8's refusal of a whole root, from the files a walk finds (as the browser and the CLI judge it) */
const rc8RootRefusal = (root: string) => rc8RootRefusalsOf(listSessionFiles(root)).get(root);

afterEach(cleanupTmp);
const CLI = path.join(REPO, 'dist', 'dsh-browse.mjs');
const T = evs(...turnRows(1), ...turnRows(2));
const RC8 = (id: string, extra = {}) => hdr(id, { cwd: '/a', delegationDepth: 0, ...extra });

function verdictOf(file: string, text?: string) {
  if (text !== undefined) fs.writeFileSync(file, text);
  const idx = loadRootSync(path.dirname(path.dirname(path.dirname(file))));
  const s = idx.store.get(file)!;
  return resumeVerdict(s, idx.store.getAll(s.id));
}

const lines = (header: object, events: object[]) => [header, ...events].map((x) => JSON.stringify(x)).join('\n') + '\n';

describe('resumeVerdict', () => {
  it('rc.8: a well-placed session is resumable', () => {
    const f = writeLog(path.join(tmpDir(), 'root', '--a--', 's', 'session.jsonl'), RC8('s'), T);
    expect(verdictOf(f)).toEqual({ resumable: true });
  });

  it('RFC era: <root>/cwd-<hash>/<id>.jsonl is resumable; a flat folder is not (dsh cannot find it)', () => {
    const root = tmpDir();
    const f = writeLog(path.join(root, cwdFolder('/a'), 's.jsonl'), hdr('s', { cwd: '/a' }), T);
    const flat = writeLog(path.join(root, 'flat', 'f.jsonl'), hdr('f', { cwd: '/a' }), T);
    const idx = loadRootSync(root);
    expect(resumeVerdict(idx.store.get(f)!)).toEqual({ resumable: true });
    expect(resumeVerdict(idx.store.get(flat)!)).toMatchObject({ resumable: false, reason: expect.stringMatching(/not in a harness root/) });
  });

  it('a relative cwd', () => {
    const f = writeLog(path.join(tmpDir(), 'root', '--rel--', 's', 'session.jsonl'), RC8('s', { cwd: 'rel' }), T);
    expect(verdictOf(f)).toEqual({ resumable: false, reason: 'cwd "rel" is not an absolute path' });
  });

  it('an rc.8 header whose cwd does not match its project folder', () => {
    const f = writeLog(path.join(tmpDir(), 'root', '--b--', 's', 'session.jsonl'), RC8('s'), T);
    expect(verdictOf(f).reason).toMatch(/^header id and cwd identify .*--a--\/s\/session\.jsonl, not this file/);
  });

  it('an rc.8 folder whose header has no delegationDepth', () => {
    const f = writeLog(path.join(tmpDir(), 'root', '--a--', 's', 'session.jsonl'), hdr('s', { cwd: '/a' }), T);
    expect(verdictOf(f).reason).toMatch(/no delegationDepth/);
  });

  it('a bad line or seq gap before a committed turn/end; the same damage after the last turn/end is a torn tail (resumable)', () => {
    const f = path.join(tmpDir(), 'root', '--a--', 's', 'session.jsonl');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    const good = lines(RC8('s'), T).split('\n');
    const bad = [...good.slice(0, 4), '{not json', ...good.slice(4)].join('\n');
    expect(verdictOf(f, bad).reason).toMatch(/damaged line or seq gap precedes the turn\/end at line 9/);
    const gap = lines(RC8('s'), [...T.slice(0, 3), ...T.slice(4)]);
    expect(verdictOf(f, gap)).toMatchObject({ resumable: false });
    const tail = lines(RC8('s'), [...T.slice(0, 7), { ...T[8], seq: 9 }]);
    expect(verdictOf(f, tail)).toEqual({ resumable: true });
  });

  it('an id held twice in an rc.8 root (rc.8 refuses the root)', () => {
    const root = path.join(tmpDir(), 'root');
    writeLog(path.join(root, '--a--', 's', 'session.jsonl'), RC8('s'), T);
    const f = writeLog(path.join(root, '--b--', 's', 'session.jsonl'), RC8('s', { cwd: '/b' }), T);
    expect(verdictOf(f).reason).toMatch(/id also used by/);
  });

  it('a root rc.8 refuses whole (mixed encodings, a flat file in a project folder): no session in it resumes', () => {
    const root = path.join(tmpDir(), 'root');
    const f = writeLog(path.join(root, '--a--', 's', 'session.jsonl'), RC8('s'), T);
    expect(rc8RootRefusal(root)).toBeUndefined();
    fs.writeFileSync(path.join(root, '--a--', 'old.jsonl'), '');
    const flat = rc8RootRefusal(root)!;
    expect(flat).toMatch(/old flat layout inside a project folder/);
    const idx = loadRootSync(root);
    expect(resumeVerdict(idx.store.get(f)!, [], flat)).toEqual({ resumable: false, reason: flat });
    fs.rmSync(path.join(root, '--a--', 'old.jsonl'));
    fs.mkdirSync(path.join(root, '--a--', 'z'));
    fs.writeFileSync(path.join(root, '--a--', 'z', 'session.jsonl.zstd'), '');
    expect(rc8RootRefusal(root)).toMatch(/mixed encodings/);
  });

  it.skipIf(!fs.existsSync(CLI))('list --json reports a whole-root refusal on each session of that root', () => {
    const root = path.join(tmpDir(), 'root');
    writeLog(path.join(root, '--a--', 's', 'session.jsonl'), RC8('s'), T);
    fs.mkdirSync(path.join(root, '--a--', 'z'));
    fs.writeFileSync(path.join(root, '--a--', 'z', 'session.jsonl.zstd'), '');
    const body = JSON.parse(spawnSync(process.execPath, [CLI, 'list', '--dir', root, '--json'], { encoding: 'utf8' }).stdout);
    expect(body.sessions[0]).toMatchObject({ id: 's', resumable: false, resumeReason: expect.stringMatching(/mixed encodings/) });
  });

  it('the real logs in their roots are resumable, placeholders made concrete', () => {
    for (const era of ['rc8', 'rfc0706'] as const) {
      const { root } = realRoot(tmpDir(), era);
      const idx = loadRootSync(root);
      for (const s of idx.store.list()) expect(resumeVerdict(s, idx.store.getAll(s.id)), s.file).toEqual({ resumable: true });
    }
  });

  it('the real logs as shipped ({{cwd}}, a flat folder) are not, each with a reason', () => {
    const idx = loadRootSync(REAL_DIR);
    for (const s of idx.store.list()) expect(resumeVerdict(s).resumable).toBe(false);
  });
});

describe('resumeCommand (src/session/resume-command.ts)', () => {
  it('dsh --resume=<id>, run in the session cwd; quoted for a shell when needed', () => {
    expect(resumeCommand({ id: 'abc-1', cwd: '/w/p' })).toMatchObject({ command: 'dsh --resume=abc-1', argv: ['--resume=abc-1'], cwd: '/w/p' });
    expect(resumeCommand({ id: "it's a b" })).toMatchObject({ command: `dsh '--resume=it'\\''s a b'`, argv: ["--resume=it's a b"] });
  });
});

describe('what rc.8 shows', () => {
  it('the title is the latest session/title (a rename sticks); a fork child keeps its parent\'s', () => {
    const root = tmpDir();
    const events = evs(
      ...turnRows(1, { kind: 'completed' }, 'first prompt'),
      ['session/title', { title: 'Named by the model', messageSeqs: [1] }],
      ...turnRows(2, { kind: 'completed' }, 'second prompt'),
      ['session/title', { title: 'Renamed', source: { kind: 'user' } }],
    ).map((e, i) => ({ ...e, seq: i }));
    const f = writeLog(path.join(root, '--a--', 's', 'session.jsonl'), RC8('s'), events);
    const idx = loadRootSync(root);
    const s = idx.store.get(f)!;
    expect(s.facts.title).toBe('Renamed');
    const atFirst = idx.store.fork({ source: s, boundary: 7, sessionId: 'c1' });
    expect(atFirst.facts.title).toBe('Named by the model');
    expect(loadRootSync(root).store.get('c1')!.facts.title).toBe('Named by the model');
  });

  it.skipIf(!fs.existsSync(CLI))('list --json: era, origin, delegationDepth, resumable; a subagent fork is labelled apart from a plain fork', () => {
    const r = spawnSync(process.execPath, [CLI, 'list', '--dir', REAL_DIR, '--json'], { encoding: 'utf8' });
    const body = JSON.parse(r.stdout);
    const sub = body.sessions.find((s: any) => s.file.endsWith('rc8__subagent-fork-in-process__session.1.jsonl'));
    expect(sub).toMatchObject({ kind: 'fork', era: 'rc8', origin: 'subagent', delegationDepth: 1, resumable: false });
    expect(typeof sub.resumeReason).toBe('string');
    const rfc = body.sessions.find((s: any) => s.file.endsWith('rfc0706__subagent-fork__session.1.jsonl'));
    expect(rfc).toMatchObject({ kind: 'fork', era: 'rfc' });
    expect(rfc).not.toHaveProperty('origin');
    const text = spawnSync(process.execPath, [CLI, 'list', '--dir', REAL_DIR], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } }).stdout;
    expect(text).toMatch(/subagent-fork@42/);
    expect(text).toMatch(/ fork@38/);
  });
});
