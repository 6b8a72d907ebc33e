// rc.8's own session loader as the judge of v0 logs: the harness's
// dsh-session-persistence-jsonl@0.1.0-rc.8 on Node 22 (test/oracle/rc8) lists
// each root and resumes each session (on a copy: its resume repairs files).
// What `dsh-browse list --json` says of every session (resumable, seedLength,
// events) must be what rc.8 does: on the real rc.8 logs, plain and compressed,
// on every child our fork writes from them, and on damaged copies.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeSegment } from '../../src/storage/id-encoding.js';
import { rc8ProjectFolder } from '../../src/storage/layout.js';
import { loadRootSync } from '../../src/storage/load-root.js';
import { cleanupTmp, REPO, tmpDir } from '../support/fixtures.js';
import { judgeRc8, type Rc8Root } from '../support/oracle.js';
import { runs } from '../support/property.js';
import { hasZstd, realRoot } from '../support/real-roots.js';
import { runCli } from '../support/run-cli.js';

afterAll(cleanupTmp);

const LATER_V0 = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'knyazev741-later-v0');

interface Listed {
  file: string;
  resumable: boolean;
  resumeReason?: string;
  seedLength?: number;
  events: number;
}

/** What the product says of each session of `root` (list --json), by file. */
function ours(root: string): { byFile: Map<string, Listed>; listable: boolean } {
  const r = runCli(['list', '--dir', root, '--json']);
  expect(r.code, r.stderr).toBeLessThanOrEqual(1);
  const out = JSON.parse(r.stdout) as { sessions: Listed[]; harness?: { listable?: boolean } };
  return { byFile: new Map(out.sessions.map((s) => [s.file, s])), listable: out.harness?.listable !== false };
}

/** Every session rc.8 judged is ours with the same verdict, cut and stored event count. */
function expectAgreement(root: string, theirs: Rc8Root, what: (file: string) => string = (f) => f): number {
  const { byFile, listable } = ours(root);
  expect(listable, theirs.unlistable).toBe(theirs.unlistable === undefined);
  let refused = 0;
  for (const j of theirs.sessions) {
    const file = path.join(root, j.file);
    const mine = byFile.get(file);
    expect(mine, `${what(file)} is listed`).toBeDefined();
    expect({ file: what(file), resumable: mine!.resumable }, j.reason).toEqual({ file: what(file), resumable: j.ok });
    if (!j.ok) refused++;
    else {
      expect(mine!.seedLength, what(file)).toBe(j.seedLength);
      expect(mine!.events, what(file)).toBe(j.stored ?? j.events);
    }
  }
  return refused;
}

/** The later v0 logs (newer vocabulary), each where rc.8 keeps it. */
function addLaterV0(root: string): void {
  for (const dir of fs.readdirSync(LATER_V0)) {
    const d = path.join(LATER_V0, dir);
    if (!fs.statSync(d).isDirectory()) continue;
    for (const name of fs.readdirSync(d)) {
      const text = fs.readFileSync(path.join(d, name), 'utf8');
      const h = JSON.parse(text.slice(0, text.indexOf('\n')));
      const file = path.join(root, rc8ProjectFolder(h.cwd), encodeSegment(h.id), 'session.jsonl');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
}

describe("rc.8's loader judges the real rc.8 logs and our children of them", () => {
  it('the real logs: every one is listed and resumes for rc.8 as for us, with the same cut and events', () => {
    const { root } = realRoot(tmpDir('rc8-real-'), 'rc8');
    const theirs = judgeRc8(root);
    expect(theirs.sessions.length).toBe(19);
    expect(theirs.sessions.every((j) => j.listed)).toBe(true);
    expectAgreement(root, theirs);
  });

  it('the later v0 logs (newer vocabulary, subagent children): the same', () => {
    const root = tmpDir('rc8-later-');
    addLaterV0(root);
    const theirs = judgeRc8(root);
    expect(theirs.sessions.length).toBe(9);
    expect(theirs.sessions.every((j) => j.listed && j.ok)).toBe(true);
    expectAgreement(root, theirs);
  });

  it('both in one root, where three ids are in two project folders: rc.8 cannot list the root, and resumes all but those', () => {
    const { root } = realRoot(tmpDir('rc8-both-'), 'rc8');
    addLaterV0(root);
    const theirs = judgeRc8(root);
    expect(theirs.unlistable).toMatch(/^duplicate JSONL session id .* appears in multiple project directories$/);
    expect(theirs.sessions.filter((j) => !j.ok).length).toBe(6);
    expectAgreement(root, theirs);
  });

  it('the later v0 logs as they were found (a session.jsonl in each folder): rc.8 cannot list that root, nor resume them', () => {
    const root = tmpDir('rc8-flat-');
    fs.cpSync(LATER_V0, root, { recursive: true });
    const theirs = judgeRc8(root);
    expect(theirs.unlistable).toMatch(/uses the unsupported flat-file layout/);
    expect(theirs.sessions.filter((j) => j.file.endsWith('.jsonl')).length).toBe(9);
    expect(theirs.sessions.some((j) => j.ok)).toBe(false);
    expectAgreement(root, theirs);
  });

  it('a child at every boundary of every real log: rc.8 resumes each with our seedLength', () => {
    const { root } = realRoot(tmpDir('rc8-kids-'), 'rc8');
    const idx = loadRootSync(root);
    let n = 0;
    for (const p of idx.store.list()) {
      const cuts = p.length === 0 ? [undefined] : p.facts.boundaries;
      for (const b of cuts.slice(0, 12)) {
        idx.store.fork({ source: p, boundary: b });
        n++;
      }
    }
    expect(n).toBeGreaterThan(40);
    const theirs = judgeRc8(root);
    expect(theirs.sessions.filter((j) => j.seedLength !== undefined && j.ok).length).toBeGreaterThanOrEqual(n);
    expectAgreement(root, theirs);
  });

  it.skipIf(!hasZstd)('compressed: the real logs in zstd frames and their children, written compressed', () => {
    const { root } = realRoot(tmpDir('rc8-zstd-'), 'rc8', { compressed: true, linesPerFrame: 7 });
    const idx = loadRootSync(root);
    for (const p of idx.store.list()) for (const b of p.facts.boundaries.slice(-2)) idx.store.fork({ source: p, boundary: b });
    const theirs = judgeRc8(root, 'zstd');
    expect(theirs.sessions.every((j) => j.file.endsWith('.zstd'))).toBe(true);
    expectAgreement(root, theirs);
  });
});

// ---- damaged copies ----------------------------------------------------------------------

type Row = Record<string, unknown>;
interface Damage {
  what: string;
  /** the log's lines after its header, changed in place; false: it does not apply */
  apply: (lines: string[]) => boolean;
}
const at = <T>(xs: readonly T[], k: number): number => k % xs.length;

const damage = fc.oneof(
  fc.record({ k: fc.nat(), packed: fc.boolean() }).map(({ k, packed }): Damage => ({
    what: `key "extra" on ${packed ? 'packed ' : ''}row ${k}`,
    apply: (lines) => {
      const idx = lines.map((l, i) => [l, i] as const).filter(([l]) => l.includes('"seq0"') === packed).map(([, i]) => i);
      if (idx.length === 0) return false;
      const i = idx[at(idx, k)];
      lines[i] = JSON.stringify({ ...(JSON.parse(lines[i]) as Row), extra: 1 });
      return true;
    },
  })),
  fc.nat().map((k): Damage => ({
    what: `no "time" on row ${k}`,
    apply: (lines) => {
      const idx = lines.map((l, i) => [l, i] as const).filter(([l]) => !l.includes('"seq0"')).map(([, i]) => i);
      const i = idx[at(idx, k)];
      const { time: _t, ...rest } = JSON.parse(lines[i]) as Row;
      lines[i] = JSON.stringify(rest);
      return true;
    },
  })),
  fc.record({ k: fc.nat(), ignorable: fc.boolean() }).map(({ k, ignorable }): Damage => ({
    what: `row ${k} of an unknown type${ignorable ? ', ignorable' : ''}`,
    apply: (lines) => {
      const i = at(lines, k);
      lines.splice(i, 0, JSON.stringify({ type: 'x/unknown', seq: 0, time: 1, data: {}, ...(ignorable ? { ignorable: true } : {}) }));
      renumber(lines);
      return true;
    },
  })),
  fc.nat().map((k): Damage => ({
    what: `a legacy mode/set before row ${k}`,
    apply: (lines) => {
      lines.splice(at(lines, k), 0, JSON.stringify({ type: 'mode/set', seq: 0, time: 1, data: { mode: 'plan' } }));
      renumber(lines);
      return true;
    },
  })),
  fc.record({ k: fc.nat(), cut: fc.integer({ min: 1, max: 40 }) }).map(({ k, cut }): Damage => ({
    what: `a torn line before row ${k}`,
    apply: (lines) => {
      const i = at(lines, k);
      lines.splice(i, 0, lines[i].slice(0, Math.min(cut, lines[i].length - 1)));
      return true;
    },
  })),
  fc.integer({ min: 1, max: 60 }).map((cut): Damage => ({
    what: `the last line torn after ${cut} characters`,
    apply: (lines) => {
      const last = lines.length - 1;
      lines[last] = lines[last].slice(0, Math.min(cut, lines[last].length - 1));
      lines.push('\u0000torn'); // marks "no newline at the end" for the writer
      return true;
    },
  })),
);

/** seq = position again, packed rows spanning their parts (after a row was put in). */
function renumber(lines: string[]): void {
  let seq = 0;
  for (let i = 0; i < lines.length; i++) {
    let r: Row;
    try {
      r = JSON.parse(lines[i]) as Row;
    } catch {
      continue;
    }
    if (r.seq0 !== undefined) {
      r.seq0 = seq;
      const d = r.data as { texts?: unknown[]; args?: unknown[] };
      seq += (d.texts ?? d.args ?? []).length;
    } else {
      r.seq = seq++;
    }
    lines[i] = JSON.stringify(r);
  }
}

describe('damaged copies of the real rc.8 logs (generated): rc.8 and we give the same verdict', () => {
  it('one or two kinds of damage each, in one root', () => {
    const src = realRoot(tmpDir('rc8-src-'), 'rc8');
    const sources = [...src.files.values()];
    const cases = fc.sample(fc.record({ s: fc.nat(sources.length - 1), d: fc.array(damage, { minLength: 1, maxLength: 2 }) }), runs(60));
    const root = tmpDir('rc8-mut-');
    const whatOf = new Map<string, string>();
    for (const [i, { s, d }] of cases.entries()) {
      const text = fs.readFileSync(sources[s], 'utf8');
      const lines = text.trimEnd().split('\n');
      const header = JSON.parse(lines[0]) as Row;
      const body = lines.slice(1);
      if (body.length === 0) continue;
      const applied = d.filter((x) => !body.includes('\u0000torn') && x.apply(body)).map((x) => x.what);
      if (applied.length === 0) continue;
      const torn = body.at(-1) === '\u0000torn';
      if (torn) body.pop();
      header.id = `damaged-${i}`;
      const file = path.join(root, rc8ProjectFolder(header.cwd as string | undefined), encodeSegment(header.id as string), 'session.jsonl');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, [JSON.stringify(header), ...body].join('\n') + (torn ? '' : '\n'));
      whatOf.set(file, `${path.basename(sources[s])}: ${applied.join(', ')}`);
    }
    expect(whatOf.size).toBeGreaterThan(runs(60) / 2);
    const theirs = judgeRc8(root, 'none');
    const refused = expectAgreement(root, theirs, (f) => whatOf.get(f) ?? f);
    expect(refused).toBeGreaterThan(whatOf.size / 4);
  });
});
