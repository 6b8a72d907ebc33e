// What dsh --resume would refuse (resumeVerdict), the command that continues a
// session (resumeCommand), and what rc.8 shows (title, origin, depth, preset).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSessionFiles, loadRootSync } from '../../src/storage/load-root.js';
import { cwdFolder } from '../../src/storage/layout.js';
import { rc8RootRefusalsOf, rootRefusalOf } from '../../src/storage/root-refusals.js';

import { resumeCommand } from '../../src/session/resume-command.js';
import { resumeAddsMarker, resumeVerdict } from '../../src/storage/resume.js';
import { cleanupTmp, evs, hdr, REAL_DIR, REPO, tmpDir, turnRows, writeLog } from '../support/fixtures.js';
import { hasZstd, realRoot } from '../support/real-roots.js';

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

describe('the harness\'s own verdicts on mutated real logs (rc.8 reader and coordinator, RFC-era loader)', () => {
  /** The real rc.8 `cancel` log in its root, its event lines changed by `mutate` (seqs kept), and the verdict on it. */
  function mutated(era: 'rc8' | 'rfc0706', mutate: (header: Record<string, unknown>, events: Record<string, unknown>[]) => void) {
    const { root, files } = realRoot(tmpDir(), era);
    const file = files.get(`toninfo-deepseek-harness__${era}__cancel__session.jsonl`)!;
    const [head, ...rows] = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    mutate(head, rows);
    fs.writeFileSync(file, [head, ...rows].map((x) => JSON.stringify(x)).join('\n') + '\n');
    const idx = loadRootSync(root);
    const s = idx.store.get(file)!;
    return { s, verdict: resumeVerdict(s, idx.store.getAll(s.id)), rows };
  }
  const byType = (rows: Record<string, unknown>[], type: string) => rows.find((r) => r.type === type)!;

  it('the unmutated log resumes', () => {
    expect(mutated('rc8', () => {}).verdict).toEqual({ resumable: true });
  });
  it('an event type rc.8 does not know is refused; the same with "ignorable": true resumes', () => {
    const { verdict, s } = mutated('rc8', (_, rows) => (byType(rows, 'session/title').type = 'session/rename'));
    const seq = s.events.find((e) => e.type === 'session/rename')!.seq;
    expect(verdict).toEqual({ resumable: false, reason: `event type "session/rename" (seq ${seq}) is unknown to rc.8 and not marked "ignorable": true: rc.8 refuses to interpret the log` });
    expect(mutated('rc8', (_, rows) => Object.assign(byType(rows, 'session/title'), { type: 'session/rename', ignorable: true })).verdict).toEqual({ resumable: true });
    // a marker inside data does not count
    expect(mutated('rc8', (_, rows) => Object.assign(byType(rows, 'session/title'), { type: 'session/rename', data: { ignorable: true } })).verdict.resumable).toBe(false);
  });
  it('legacy events: mode/set, request/header-delta (named first wherever it is), request/header with reason "fallback"', () => {
    const one = mutated('rc8', (_, rows) => (byType(rows, 'session/title').type = 'mode/set'));
    const modeSeq = one.s.events.find((e) => e.type === 'mode/set')!.seq;
    expect(one.verdict).toEqual({ resumable: false, reason: `rc.8 refuses the log: "contains unsupported legacy mode/set event at seq ${modeSeq}"` });
    const two = mutated('rc8', (_, rows) => {
      byType(rows, 'request/context').type = 'mode/set';
      byType(rows, 'session/title').type = 'request/header-delta';
    });
    const deltaSeq = two.s.events.find((e) => e.type === 'request/header-delta')!.seq;
    expect(two.verdict.reason).toBe(`rc.8 refuses the log: "contains unsupported legacy request/header-delta event at seq ${deltaSeq}"`);
    const three = mutated('rc8', (_, rows) => ((byType(rows, 'request/header').data as Record<string, unknown>).reason = 'fallback'));
    const hSeq = three.s.events.find((e) => e.type === 'request/header')!.seq;
    expect(three.verdict.reason).toBe(`rc.8 refuses the log: "contains unsupported legacy request/header reason "fallback" at seq ${hSeq}"`);
  });
  it('a key outside the event envelope, an event without time, ignorable false: "invalid event envelope"', () => {
    const extra = mutated('rc8', (_, rows) => (byType(rows, 'turn/end').note = 'x'));
    const endSeq = extra.s.events.find((e) => e.type === 'turn/end')!.seq;
    expect(extra.verdict).toEqual({ resumable: false, reason: `the event at seq ${endSeq} has an invalid event envelope for rc.8 (key "note" is not part of the event envelope)` });
    expect(extra.s.diagnostics).toEqual([]); // shown as read: only the verdict differs
    const timeless = mutated('rc8', (_, rows) => delete byType(rows, 'turn/end').time);
    expect(timeless.verdict.reason).toBe(`the event at seq ${endSeq} has an invalid event envelope for rc.8 (it has no "time")`);
    expect(timeless.s.length).toBe(extra.s.length);
    expect(mutated('rc8', (_, rows) => (byType(rows, 'turn/end').ignorable = false)).verdict.reason).toMatch(/"ignorable" is present but not true/);
    // rc.8's envelope keys are fine
    expect(mutated('rc8', (_, rows) => Object.assign(byType(rows, 'turn/end'), { sourceEventSeqs: [0], ignorable: true })).verdict).toEqual({ resumable: true });
  });
  it('a header with a retired field (sandboxMode, approvalPolicy)', () => {
    for (const k of ['sandboxMode', 'approvalPolicy']) {
      const { verdict } = mutated('rc8', (h) => (h[k] = 'x'));
      expect(verdict).toEqual({ resumable: false, reason: `the header has the retired field ${k}: rc.8 says "session header uses retired policy baseline fields"` });
    }
  });
  it('the RFC-era loader resumes an event without time: no BAD_EVENT, no seq gap, every event kept', () => {
    const whole = mutated('rfc0706', () => {});
    const { s, verdict } = mutated('rfc0706', (_, rows) => delete byType(rows, 'turn/end').time);
    expect(verdict).toEqual({ resumable: true });
    expect(s.diagnostics).toEqual([]);
    expect(s.length).toBe(whole.s.length);
    expect(s.facts.validLength).toBeUndefined();
    // the same in an rc.8 log is refused (its envelope check), but read the same way
    expect(mutated('rc8', (_, rows) => delete byType(rows, 'turn/end').time).s.diagnostics).toEqual([]);
  });
});

describe.skipIf(!hasZstd)('a compressed rc.8 log rc.8 reads whole or refuses (readZstdPrefix)', () => {
  const z = (text: string) => execFileSync('zstd', ['-q', '--check', '-c'], { input: text });
  const body = T.map((e) => JSON.stringify(e) + '\n').join('');
  const head = JSON.stringify(RC8('s')) + '\n';
  function verdictOfFrames(frames: Buffer[]) {
    const f = path.join(tmpDir(), 'root', '--a--', 's', 'session.jsonl.zstd');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, Buffer.concat(frames));
    const idx = loadRootSync(path.dirname(path.dirname(path.dirname(f))));
    const s = idx.store.get(f)!;
    return { s, verdict: resumeVerdict(s, idx.store.getAll(s.id)) };
  }
  const REFUSED = { resumable: false, reason: 'a complete zstd frame holds a damaged row or ends inside a line: rc.8 says "corrupt Zstandard session log: complete frame contains a torn JSONL record"' };
  it('whole frames of whole lines resume, a line may cross two frames; a torn last frame is repaired (resumes)', () => {
    expect(verdictOfFrames([z(head), z(body)]).verdict).toEqual({ resumable: true });
    const cut = body.indexOf('\n', 200) - 5;
    expect(verdictOfFrames([z(head), z(body.slice(0, cut)), z(body.slice(cut))]).verdict).toEqual({ resumable: true });
    const whole = body.indexOf('\n', 200) + 1;
    const torn = z(body.slice(whole));
    expect(verdictOfFrames([z(head), z(body.slice(0, whole)), torn.subarray(0, torn.length - 3)]).verdict).toEqual({ resumable: true });
  });
  it('complete frames that end inside a line, before a torn frame or at the end of the file, are refused', () => {
    const cut = body.indexOf('\n', 200) - 5;
    const midLine = verdictOfFrames([z(head), z(body.slice(0, cut))]);
    expect(midLine.verdict).toEqual(REFUSED);
    midLine.s.ensureLoaded(); // its events read again, up to what its facts say: the finding stays
    expect(resumeVerdict(midLine.s)).toEqual(REFUSED);
    const torn = z(body.slice(cut));
    expect(verdictOfFrames([z(head), z(body.slice(0, cut)), torn.subarray(0, 12)]).verdict).toEqual(REFUSED);
  });
  it('a damaged row in a complete frame is refused even after the last turn/end (in a plain log: a torn tail, resumed)', () => {
    const bad = body + '{"type":"session/title","seq":99,"time":1,"data":{"title":"t"}}\n'; // a seq gap
    expect(verdictOfFrames([z(head), z(bad)]).verdict).toEqual(REFUSED);
    const plain = path.join(tmpDir(), 'root', '--a--', 's', 'session.jsonl');
    fs.mkdirSync(path.dirname(plain), { recursive: true });
    expect(verdictOf(plain, head + bad)).toEqual({ resumable: true });
  });
});

describe('whole-root refusals of rc.8\'s session list (listArtifacts): list --json names the file; the others still resume', () => {
  const listJson = (root: string) => JSON.parse(spawnSync(process.execPath, [CLI, 'list', '--dir', root, '--json', '--no-cache'], { encoding: 'utf8' }).stdout);
  /** a root with a well-placed session `ok`, plus what `add` writes */
  function rootWith(add: (root: string) => string) {
    const root = tmpDir();
    writeLog(path.join(root, '--a--', 'ok', 'session.jsonl'), RC8('ok'), T);
    const file = add(root);
    const idx = loadRootSync(root);
    const ok = idx.store.get('ok')!;
    return { root, file, body: listJson(root), okVerdict: resumeVerdict(ok, idx.store.getAll('ok'), rootRefusalOf(rc8RootRefusalsOf(listSessionFiles(root)), ok)) };
  }
  it('a clean root is listable', () => {
    const root = tmpDir();
    writeLog(path.join(root, '--a--', 'ok', 'session.jsonl'), RC8('ok'), T);
    expect(listJson(root).harness).toEqual({ listable: true });
  });
  it('a misplaced session (its id and cwd name another folder)', () => {
    const r = rootWith((root) => writeLog(path.join(root, '--a--', 'stray', 'session.jsonl'), RC8('stray', { cwd: '/elsewhere' }), T));
    const expected = path.join(r.root, '--elsewhere--', 'stray', 'session.jsonl');
    expect(r.body.harness).toEqual({ listable: false, root: r.root, file: r.file, reason: `${r.file}: "header id \"stray\" and cwd identify ${expected}" (rc.8 calls the log corrupt)` });
    expect(r.okVerdict).toEqual({ resumable: true });
  });
  it('an id used in two project folders (both well placed)', () => {
    const r = rootWith((root) => {
      writeLog(path.join(root, '--a--', 'twin', 'session.jsonl'), RC8('twin'), T);
      return writeLog(path.join(root, '--b--', 'twin', 'session.jsonl'), RC8('twin', { cwd: '/b' }), T);
    });
    expect(r.body.harness).toMatchObject({ listable: false, reason: expect.stringContaining('"duplicate JSONL session id \"twin\" appears in multiple project directories"') });
    expect([path.join(r.root, '--a--', 'twin', 'session.jsonl'), r.file]).toContain(r.body.harness.file);
    expect(r.okVerdict).toEqual({ resumable: true });
    expect(r.body.sessions.filter((s: { id: string }) => s.id === 'twin').map((s: { resumable: boolean }) => s.resumable)).toEqual([false, false]);
  });
  it('a header with a retired field', () => {
    const r = rootWith((root) => writeLog(path.join(root, '--a--', 'old', 'session.jsonl'), RC8('old', { approvalPolicy: 'never' }), T));
    expect(r.body.harness).toEqual({ listable: false, root: r.root, file: r.file, reason: `${r.file}: its header has the retired field approvalPolicy ("session header uses retired policy baseline fields")` });
    expect(r.okVerdict).toEqual({ resumable: true });
  });
  it('mixed encodings fail the list and every resume; a header rc.8 skips (no delegationDepth) does not fail the list', () => {
    const mixed = rootWith((root) => {
      const f = path.join(root, '--a--', 'z', 'session.jsonl.zstd');
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, '');
      return f;
    });
    expect(mixed.body.harness).toMatchObject({ listable: false, reason: expect.stringMatching(/mixed encodings/) });
    expect(mixed.okVerdict.resumable).toBe(false);
    const skipped = rootWith((root) => writeLog(path.join(root, '--a--', 'odd', 'session.jsonl'), hdr('odd', { cwd: '/elsewhere' }), T));
    expect(skipped.body.harness).toEqual({ listable: true });
  });
});

describe('what resuming adds (rc.8: a Session rebuilt from a seed ends with session/end-seed)', () => {
  it('a fresh rc.8 fork child ends with its marker: nothing; once it has its own events: a marker at seq = its length; an open turn: after the closers; an RFC-era child: nothing', () => {
    const { root, files } = realRoot(tmpDir(), 'rc8');
    const idx = loadRootSync(root);
    const parent = idx.store.get(files.get('toninfo-deepseek-harness__rc8__cancel__session.jsonl')!)!;
    const child = idx.store.fork({ source: parent, sessionId: 'kid' });
    expect(child.facts.lastEventType).toBe('session/end-seed');
    expect(resumeAddsMarker(child)).toBeUndefined();
    const n = child.length;
    const turn = evs(...turnRows(9)).map((e, i) => ({ ...e, seq: n + i }));
    fs.appendFileSync(child.file!, turn.map((e) => JSON.stringify(e) + '\n').join(''));
    const grown = loadRootSync(root).store.get(child.file!)!;
    expect(resumeAddsMarker(grown)).toBe(`resuming adds a session/end-seed marker at seq ${n + turn.length}`);
    fs.appendFileSync(child.file!, JSON.stringify({ type: 'turn/start', seq: n + turn.length, time: 1, data: { turn: 99 } }) + '\n');
    expect(resumeAddsMarker(loadRootSync(root).store.get(child.file!)!)).toBe('resuming closes the open turn, then adds a session/end-seed marker after its closers');
    expect(resumeAddsMarker(parent)).toBeUndefined(); // not a fork child
    const rfc = realRoot(tmpDir(), 'rfc0706');
    const r = loadRootSync(rfc.root);
    const rfcChild = r.store.fork({ source: r.store.get(rfc.files.get('toninfo-deepseek-harness__rfc0706__cancel__session.jsonl')!)!, sessionId: 'kid' });
    fs.appendFileSync(rfcChild.file!, evs(...turnRows(9)).map((e, i) => JSON.stringify({ ...e, seq: rfcChild.length + i }) + '\n').join(''));
    expect(resumeAddsMarker(loadRootSync(rfc.root).store.get(rfcChild.file!)!)).toBeUndefined();
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
