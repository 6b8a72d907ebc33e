// The harness's own format code as the judge of its v2/v3 logs: its published
// packages (test/oracle/format: the v0-v3 codecs and edges, assembled as its
// catalog is, strict) say whether each file opens, where its inherited cut is,
// and whether it encodes back to the same bytes. Our verdict (resumeVerdict)
// and cut (seedLength) must be the same, on the real logs, on every child our
// fork writes from them, and on mutations the harness refuses.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownType } from '../../src/session/formats.js';
import { surfaceTypes } from '../../src/session/row-rules.js';
import { loadRootSync, type RootIndex } from '../../src/storage/load-root.js';
import { resumeVerdict } from '../../src/storage/resume.js';
import type { Session } from '../../src/session/session.js';
import { cleanupTmp, REAL_DIR, REPO, tmpDir } from '../support/fixtures.js';
import { judgeFormat, type FormatVerdict } from '../support/oracle.js';
import { runs } from '../support/property.js';

const WS = path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4', 'zdsh-vfs-workspace', '--dsh-workspace--');
const IDS = ['preview-showcase', 'preview-architecture-review', 'preview-follow-up-builder'];
/** A real v3 test snapshot: its rows have neither seq nor time. */
const REC_CHILD = path.join(REAL_DIR, 'zsagi1368-deepseek-harness-zDSH__v3fixture__rec-child__session.1.v3.jsonl');

afterAll(cleanupTmp);

/** A harness root of the real workspace's logs of format `v` (2 or 3), one generation per folder. */
function realRoot(v: 2 | 3): string {
  const root = tmpDir('oracle-v' + v + '-');
  for (const id of IDS) {
    const dir = path.join(root, '--dsh-workspace--', id);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(WS, id, `session.v${v}.jsonl`), path.join(dir, `session.v${v}.jsonl`));
  }
  return root;
}

const sessionsOf = (idx: RootIndex): Session[] => idx.store.list().filter((s) => s.file !== undefined);

/** Our verdict and cut against the harness's, file by file. */
function expectAgreement(idx: RootIndex, verdicts: readonly FormatVerdict[], what: (file: string) => string = (f) => f): void {
  const byFile = new Map(verdicts.map((v) => [v.file, v]));
  for (const s of sessionsOf(idx)) {
    const theirs = byFile.get(s.file!);
    expect(theirs, `${what(s.file!)} was judged`).toBeDefined();
    const ours = resumeVerdict(s, idx.store.getAll(s.id));
    expect({ file: what(s.file!), resumable: ours.resumable }).toEqual({ file: what(s.file!), resumable: theirs!.ok });
    if (!theirs!.ok) expect(ours.reason, what(s.file!)).toContain(`"${theirs!.reason}"`);
    if (theirs!.ok && s.header.isSeeded) expect(s.seedLength).toBe(theirs!.inherited);
    if (theirs!.ok) expect(s.length).toBe(theirs!.events);
  }
}

describe('the harness format packages judge the real v2/v3 logs', () => {
  for (const v of [2, 3] as const) {
    it(`v${v}: each opens for the harness as for us, at the same cut, and encodes back to its own bytes`, () => {
      const root = realRoot(v);
      const idx = loadRootSync(root);
      const files = sessionsOf(idx).map((s) => s.file!);
      expect(files.length).toBe(3);
      const verdicts = judgeFormat(files);
      for (const j of verdicts) expect(j, j.file).toMatchObject({ version: v, ok: true, reencodeEqual: true });
      expectAgreement(idx, verdicts);
      // the seeded subagent fork's cut, as the harness decodes it
      expect(verdicts.find((j) => j.file.includes('preview-architecture-review'))!.inherited).toBe(169);
    });
  }

  it('a v3 test snapshot (rows without seq or time): the harness refuses it, and we list no session for it', () => {
    const root = tmpDir('oracle-snap-');
    const dir = path.join(root, '--work-proj--', 'rec-child');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'session.v3.jsonl');
    fs.writeFileSync(file, fs.readFileSync(REC_CHILD, 'utf8').replaceAll('{{cwd}}', '/work/proj').replace('{{session:2}}', 'rec-child'));
    const [j] = judgeFormat([file]);
    expect(j).toMatchObject({ ok: false, reason: 'released v2 row 0 lacks required field seq' });
    const idx = loadRootSync(root);
    expect(idx.store.size).toBe(0);
    expect(idx.files.get(file)?.refused?.map((d) => d.code)).toEqual(['NOT_A_STORED_LOG']);
  });

  it("our vocabularies are the harness's: v2's as its package exports it", async () => {
    const pkg = path.join(REPO, 'test', 'oracle', 'format', 'node_modules', '@deepseek-ai', 'dsh-session-format-v1-to-v2', 'lib', 'index.js');
    const { RELEASED_V2_EVENT_TYPES } = (await import(pkg)) as { RELEASED_V2_EVENT_TYPES: readonly string[] };
    const candidates = new Set([...RELEASED_V2_EVENT_TYPES, 'system/message', 'developer/message', 'tool/ptc-dispatch', 'workspace/changes', 'subagent/catalog', 'slots/dispatch', 'assistant/chunk']);
    for (const t of candidates) expect({ t, known: knownType(2, t) }).toEqual({ t, known: RELEASED_V2_EVENT_TYPES.includes(t) });
  });
});

describe('every child our fork writes from a v2 or v3 parent, at every boundary', () => {
  for (const v of [2, 3] as const) {
    it(`v${v}: the harness opens each, its cut is our seedLength, its prefix the parent's, and it encodes back byte for byte`, () => {
      const idx = loadRootSync(realRoot(v));
      const children: { child: Session; parent: Session; n: number }[] = [];
      for (const p of sessionsOf(idx)) {
        for (const b of p.facts.boundaries) {
          const child = idx.store.fork({ source: p, boundary: b });
          children.push({ child, parent: p, n: b + 1 });
        }
      }
      expect(children.length).toBeGreaterThan(20);
      const verdicts = judgeFormat(children.map((c) => c.child.file!));
      for (const [i, j] of verdicts.entries()) {
        const { child, parent, n } = children[i];
        expect(j, j.file).toMatchObject({ version: v, ok: true, reencodeEqual: true, inherited: n });
        expect(child.seedLength).toBe(n);
        expect(child.header.version).toBe(parent.header.version);
        // the inherited rows are the parent's own lines, byte for byte
        const lines = (f: string) => fs.readFileSync(f, 'utf8').split('\n').slice(1, n + 1);
        expect(lines(child.file!)).toEqual(lines(parent.file!));
      }
      expectAgreement(loadRootSync(idx.root), judgeFormat(sessionsOf(loadRootSync(idx.root)).map((s) => s.file!)));
    });
  }
});

// ---- mutations ---------------------------------------------------------------------------

type Row = Record<string, unknown>;
interface Mutation {
  /** what was done, for the failure message */
  what: string;
  apply: (rows: Row[], version: number) => boolean;
}

const pick = <T>(xs: readonly T[], k: number): T | undefined => (xs.length === 0 ? undefined : xs[k % xs.length]);
const rowsWhere = (rows: Row[], f: (r: Row) => boolean): Row[] => rows.filter(f);

/** Mutations the harness refuses by a row rule, each parameterised by which row (k) and a name. */
const mutation = fc.oneof(
  fc.record({ k: fc.nat(), key: fc.constantFrom('extra', 'meta', 'seq0', 'Type', 'surfaceop', 'x y') }).map(({ k, key }): Mutation => ({
    what: `key ${key} on row ${k}`,
    apply: (rows) => {
      const r = pick(rows, k)!;
      r[key] = 1;
      return true;
    },
  })),
  fc.nat().map((k): Mutation => ({
    what: `surfaceOp removed from surface row ${k}`,
    apply: (rows, v) => {
      const r = pick(rowsWhere(rows, (r) => surfaceTypes(v).has(r.type as string)), k);
      if (!r) return false;
      delete r.surfaceOp;
      return true;
    },
  })),
  fc.record({ k: fc.nat(), key: fc.constantFrom('surfaceOp', 'sourceEventSeqs') }).map(({ k, key }): Mutation => ({
    what: `${key} on log-only row ${k}`,
    apply: (rows, v) => {
      const r = pick(rowsWhere(rows, (r) => !surfaceTypes(v).has(r.type as string) && knownType(v, r.type as string) && (r.seq as number) > 0), k);
      if (!r) return false;
      r[key] = key === 'surfaceOp' ? 'append' : [0];
      return true;
    },
  })),
  fc.record({ k: fc.nat(), value: fc.constantFrom<unknown>(false, 'true', 1, null) }).map(({ k, value }): Mutation => ({
    what: `ignorable ${JSON.stringify(value)} on row ${k}`,
    apply: (rows) => {
      pick(rows, k)!.ignorable = value;
      return true;
    },
  })),
  fc.record({ k: fc.nat(), value: fc.constantFrom<unknown>(1.5, '1', 2 ** 60) }).map(({ k, value }): Mutation => ({
    what: `time ${JSON.stringify(value)} on row ${k}`,
    apply: (rows) => {
      pick(rows, k)!.time = value;
      return true;
    },
  })),
  fc.record({ k: fc.nat(), op: fc.constantFrom<unknown>({ op: 'replace', start: 0, end: 0 }, { op: 'replace', startSeq: 0 }, 'prepend', { op: 'replace', startSeq: 0, endSeq: 0, extra: 1 }) }).map(({ k, op }): Mutation => ({
    what: `surfaceOp ${JSON.stringify(op)} on surface row ${k} (v3)`,
    apply: (rows, v) => {
      const r = pick(rowsWhere(rows, (r) => v === 3 && surfaceTypes(v).has(r.type as string) && (r.seq as number) > 0), k);
      if (!r) return false;
      r.surfaceOp = op;
      return true;
    },
  })),
  fc.nat().map((k): Mutation => ({
    what: `sourceEventSeqs on assistant/message ${k} (v3)`,
    apply: (rows, v) => {
      const r = pick(rowsWhere(rows, (r) => v === 3 && r.type === 'assistant/message'), k);
      if (!r) return false;
      r.sourceEventSeqs = [0];
      return true;
    },
  })),
);

describe('mutations the harness refuses by a row rule: refused by us too, in its words', () => {
  it('real v2/v3 logs, one mutation each (generated): same verdict, our reason quotes the harness', () => {
    const sources = [...IDS.map((id) => path.join(WS, id, 'session.v2.jsonl')), ...IDS.map((id) => path.join(WS, id, 'session.v3.jsonl'))];
    const cases = fc.sample(fc.record({ src: fc.nat(sources.length - 1), m: fc.array(mutation, { minLength: 1, maxLength: 2 }) }), runs(80));
    const root = tmpDir('oracle-mut-');
    const made: { file: string; what: string }[] = [];
    for (const [i, { src, m }] of cases.entries()) {
      const lines = fs.readFileSync(sources[src], 'utf8').trimEnd().split('\n');
      const header = JSON.parse(lines[0]);
      const rows = lines.slice(1).map((l) => JSON.parse(l) as Row);
      const applied = m.filter((x) => x.apply(rows, header.version)).map((x) => x.what);
      if (applied.length === 0) continue;
      header.id = `mut-${i}`; // the seeded child keeps its cut: the harness reads a log without its parent
      const dir = path.join(root, '--dsh-workspace--', header.id);
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `session.v${header.version}.jsonl`);
      fs.writeFileSync(file, [header, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n');
      made.push({ file, what: `${path.basename(path.dirname(sources[src]))} v${header.version}: ${applied.join(', ')}` });
    }
    expect(made.length).toBeGreaterThan(runs(80) / 2);
    const idx = loadRootSync(root);
    const verdicts = judgeFormat(made.map((m) => m.file));
    const whatOf = new Map(made.map((m) => [m.file, m.what]));
    expect(verdicts.filter((v) => !v.ok).length).toBeGreaterThan(made.length / 2);
    expectAgreement(idx, verdicts, (f) => whatOf.get(f)!);
  });
});
