// The findings cache (src/storage/findings-cache.ts): a warm audit finds what
// an audit without it finds, after any change between runs to a session or
// to its parents (the seed check reads them); an untrustworthy file is ignored.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditIndex } from '../../src/session/audit-index.js';
import { writeHooks } from '../../src/storage/atomic-lines.js';
import { FindingsCache } from '../../src/storage/findings-cache.js';
import { RACY_MS } from '../../src/storage/fact-cache.js';
import { allDiagnostics, attachCache, loadRootSync, newRootIndex, type RootIndex } from '../../src/storage/load-root.js';
import { scanRoot } from '../../src/storage/scan.js';
import { cleanupTmp, evs, hdr, logText, tmpDir, turnRows } from '../support/fixtures.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

afterAll(cleanupTmp);

const DAY = 86_400_000;
let clock = Date.now() - 30 * DAY;
/** A fresh old mtime: the file looks untouched for days (its entries are trusted). */
function backdate(file: string): void {
  clock += 1000;
  fs.utimesSync(file, new Date(clock), new Date(clock));
}

/** Audits every session of the index to the end; with a memory, waits for its write. */
async function audit(index: RootIndex, memory?: FindingsCache): Promise<unknown> {
  const a = new AuditIndex(memory);
  while (!a.step(() => index.store.list(), 1000).done) {
    /* to the end */
  }
  await memory?.written;
  // what the Problems view shows: every finding, in a stable order (JSON drops undefined fields, as the cache does)
  const all = a.findings(index.store.list(), allDiagnostics(index)).map((f) => JSON.stringify(f));
  return all.sort();
}

/** A warm run: the facts and the findings from the cache folder `dir`. */
async function warmAudit(root: string, dir: string): Promise<{ findings: unknown; memory: FindingsCache }> {
  const index = newRootIndex(root);
  attachCache(index, { dir });
  const memory = new FindingsCache(index, { dir });
  await scanRoot(index);
  return { findings: await audit(index, memory), memory };
}

const SLOTS = ['p.jsonl', 'c.jsonl', 'sub/d.jsonl', 'sub/deeper/e.jsonl'];

/** A parent (x or y), children of x with a right or wrong seed, duplicates, orphans, damage. */
const PARENT = (id: string, turns: number, open: boolean) => {
  const rows: Array<[string, unknown?]> = [];
  for (let t = 1; t <= turns; t++) rows.push(...turnRows(t, { kind: 'completed' }, `prompt ${t}`));
  if (open) rows.push(['turn/start', { turn: turns + 1, trigger: 'user' }], ['tool/call', { callId: 'k' }]);
  return logText(hdr(id), evs(...rows));
};
const contentArb: fc.Arbitrary<string> = fc.oneof(
  fc.record({ id: fc.constantFrom('x', 'y'), turns: fc.integer({ min: 0, max: 3 }), open: fc.boolean() }).map(({ id, turns, open }) => PARENT(id, turns, open)),
  fc.record({ parent: fc.constantFrom('x', 'y', 'gone'), id: fc.constantFrom('c1', 'c2', 'x'), seed: fc.constantFrom(0, 7, 14, 3), extra: fc.boolean(), wrong: fc.boolean() }).map(({ parent, id, seed, extra, wrong }) => {
    const rows: Array<[string, unknown?]> = [...turnRows(1, { kind: 'completed' }, wrong ? 'other' : 'prompt 1'), ...turnRows(2)];
    const own = evs(...rows).slice(0, seed);
    if (extra) own.push(...evs(...rows, ...turnRows(3)).slice(14, 21).map((e, i) => ({ ...e, seq: own.length + i })));
    return logText(hdr(id, { parentSession: parent, seedLength: seed } as never), own);
  }),
  fc.constantFrom('', 'not json\n', PARENT('x', 2, false) + '{"type":"tu'),
);

type Op = { op: 'write' | 'append' | 'same-size' | 'touch' | 'delete' | 'rename'; slot: number; to: number; content: string; fresh: boolean };
const opArb: fc.Arbitrary<Op> = fc.record({
  op: fc.constantFrom('write' as const, 'append' as const, 'same-size' as const, 'touch' as const, 'delete' as const, 'rename' as const),
  slot: fc.nat(SLOTS.length - 1),
  to: fc.nat(SLOTS.length - 1),
  content: contentArb,
  fresh: fc.boolean(),
});

function applyOp(root: string, o: Op): void {
  const file = path.join(root, SLOTS[o.slot]);
  const exists = fs.existsSync(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const settle = (f: string) => (o.fresh ? undefined : backdate(f));
  switch (o.op) {
    case 'write':
      fs.writeFileSync(file, o.content);
      return settle(file);
    case 'append':
      if (!exists) return;
      fs.appendFileSync(file, JSON.stringify({ type: 'turn/end', seq: 40, time: 5, data: { turn: 9 } }) + '\n');
      return settle(file);
    case 'same-size': {
      if (!exists) return;
      const buf = fs.readFileSync(file);
      const i = buf.indexOf('prompt');
      if (i < 0) return;
      buf[i] = 0x50; // "Prompt": the same size, another seed
      fs.writeFileSync(file, buf);
      return settle(file);
    }
    case 'touch':
      if (exists) fs.utimesSync(file, new Date(), new Date());
      return;
    case 'delete':
      if (exists) fs.rmSync(file);
      return;
    case 'rename': {
      if (!exists || o.to === o.slot) return;
      const to = path.join(root, SLOTS[o.to]);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.renameSync(file, to);
      return settle(to);
    }
  }
}

describe('property: after any change between runs, a warm audit finds what an uncached one finds', () => {
  it(
    'random writes, appends, same-size rewrites, touches, deletes and renames of parents and children',
    async () => {
      let hits = 0;
      let lookups = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.nat(SLOTS.length - 1), contentArb), { maxLength: SLOTS.length }), fc.array(opArb, { minLength: 1, maxLength: 6 }), async (initial, ops) => {
          const root = tmpDir('dsh-fprop-');
          const dir = tmpDir('dsh-fprop-cache-');
          for (const [slot, content] of initial) applyOp(root, { op: 'write', slot, to: 0, content, fresh: false });
          const check = async () => {
            const warm = await warmAudit(root, dir);
            expect(warm.findings).toEqual(await audit(loadRootSync(root)));
            hits += warm.memory.hits;
            lookups += warm.memory.lookups;
          };
          await check();
          for (const o of ops) {
            applyOp(root, o);
            await check();
          }
          fs.rmSync(root, { recursive: true, force: true });
          fs.rmSync(dir, { recursive: true, force: true });
        }),
        { numRuns: runs(60) },
      );
      // the cache was really used (it is asked only for seeded children whose parent is there: the
      // folds answer the rest, and a random change often moves a child's parent)
      expect(lookups).toBeGreaterThan(0);
      expect(hits).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT,
  );
});

describe('the findings cache', () => {
  function root(): string {
    const r = tmpDir('dsh-fc-');
    const T = evs(...turnRows(1), ...turnRows(2));
    fs.writeFileSync(path.join(r, 'p.jsonl'), logText(hdr('p'), T));
    fs.writeFileSync(path.join(r, 'c.jsonl'), logText(hdr('c', { parentSession: 'p', seedLength: 7 } as never), T.slice(0, 7)));
    fs.writeFileSync(path.join(r, 'o.jsonl'), logText(hdr('o', { parentSession: 'nobody' } as never), T.slice(0, 3)));
    for (const f of fs.readdirSync(r)) backdate(path.join(r, f));
    return r;
  }

  it('a second run audits nothing again; a changed parent re-audits its child', async () => {
    const r = root();
    const dir = tmpDir('dsh-fc-cache-');
    const first = await warmAudit(r, dir);
    expect(first.memory.hits).toBe(0);
    const second = await warmAudit(r, dir);
    // p and the orphan o are audited by their readers' folds (kept in the fact cache): only the
    // seeded child c is asked of the findings cache (its seed is compared with p's log)
    expect(second.memory.lookups).toBe(1);
    expect(second.memory.hits).toBe(1);
    expect(second.memory.written).toBeUndefined(); // nothing new: not rewritten
    expect(second.findings).toEqual(first.findings);
    // the parent's first event changes, same size: the child's seed no longer matches
    const p = path.join(r, 'p.jsonl');
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace('prompt 1', 'Prompt 1'));
    backdate(p);
    const third = await warmAudit(r, dir);
    expect(third.memory.hits).toBe(0); // c is read again (the orphan is its fold's)
    expect(third.findings).toEqual(await audit(loadRootSync(r)));
    expect(JSON.stringify(third.findings)).toContain('SEED_MISMATCH');
  });

  for (const [what, damage] of [
    ['truncated', (t: string) => t.slice(0, Math.floor(t.length / 2))],
    ['garbage', () => '\u0000\u0001 nothing here\n'],
    ['from a future version', (t: string) => t.replace(/"dshBrowseFindings":"[^"]*"/, '"dshBrowseFindings":"999/9.9.9"')],
    ['an entry that is no JSON', (t: string) => t.replace(/\t\[/, '\t[[')],
    ['an entry with findings of the wrong shape', (t: string) => t.replace(/,\[\]\]\n/, ',[{"code":1}]]\n')],
  ] as const)
    it(`a cache file ${what} is ignored (findings as uncached) and rewritten`, async () => {
      const r = root();
      const dir = tmpDir('dsh-fc-cache-');
      const first = await warmAudit(r, dir);
      const file = first.memory.file!;
      fs.writeFileSync(file, damage(fs.readFileSync(file, 'utf8')));
      const again = await warmAudit(r, dir);
      expect(again.findings).toEqual(first.findings);
      expect(await again.memory.written).toBe(true);
      expect((await warmAudit(r, dir)).memory.hits).toBe(1);
    });

  it('a write cut midway: the old cache file stays whole, no temp file; the next run writes it', async () => {
    const r = root();
    const dir = tmpDir('dsh-fc-cache-');
    const first = await warmAudit(r, dir);
    const file = first.memory.file!;
    const old = fs.readFileSync(file);
    const p = path.join(r, 'p.jsonl');
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace('prompt 1', 'Prompt 1'));
    backdate(p);
    // the write fails at its head (the last write: every entry written before it)
    let writes = 0;
    writeHooks.beforeWrite = (n, f) => {
      if (f !== file) return;
      writes++;
      if (n === 2) throw new Error('disk full');
    };
    try {
      const cut = await warmAudit(r, dir);
      expect(await cut.memory.written).toBe(false);
      expect(cut.memory.note).toMatch(/not written.*disk full/);
      expect(cut.findings).toEqual(await audit(loadRootSync(r)));
    } finally {
      writeHooks.beforeWrite = undefined;
    }
    expect(writes).toBe(3);
    expect(fs.readFileSync(file).equals(old)).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const again = await warmAudit(r, dir);
    expect(await again.memory.written).toBe(true);
    expect((await warmAudit(r, dir)).memory.hits).toBe(1);
  });

  it('a cache folder that cannot be written: the audit still finds everything', async () => {
    const r = root();
    const blocker = path.join(tmpDir('dsh-fc-cache-'), 'file');
    fs.writeFileSync(blocker, '');
    const run = await warmAudit(r, path.join(blocker, 'dsh-browse'));
    expect(run.findings).toEqual(await audit(loadRootSync(r)));
    expect(await run.memory.written).toBe(false);
  });

  it('an entry is not trusted when the run that wrote it started less than RACY_MS after the change (the entry read as text or parsed)', async () => {
    const r = root();
    const dir = tmpDir('dsh-fc-cache-');
    const first = await warmAudit(r, dir);
    const file = first.memory.file!;
    // a stamp within RACY_MS after every session's last change
    const oldest = Math.min(...fs.readdirSync(r).map((f) => fs.statSync(path.join(r, f)).mtimeMs));
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/"stamp":[0-9.]+/, `"stamp":${oldest + RACY_MS / 2}`));
    const again = await warmAudit(r, dir);
    expect(again.memory.hits).toBe(0);
    expect(again.findings).toEqual(first.findings);
  });

  it('a session changed less than RACY_MS before the run is not kept', async () => {
    const r = root();
    const dir = tmpDir('dsh-fc-cache-');
    fs.appendFileSync(path.join(r, 'o.jsonl'), ''); // no change
    fs.utimesSync(path.join(r, 'o.jsonl'), new Date(), new Date());
    await warmAudit(r, dir);
    const second = await warmAudit(r, dir);
    expect(second.memory.hits).toBe(1); // c (p and o are their folds')
  });
});
