// Generation names (the harness's canonical session[.vN].jsonl[.zstd]) and the
// per-folder bookkeeping that keeps one session per folder.
import { describe, expect, it } from 'vitest';
import { generationName, generationOf } from '../../src/session/generation-name.js';
import fc from 'fast-check';
import { compareInFolder, currentGeneration, forgetGeneration, knowsGeneration, registerGeneration, siblingGenerations, sortInFolder, type GenerationMap } from '../../src/storage/generations.js';

describe('generation names', () => {
  it.each([
    ['session.jsonl', 0],
    ['session.jsonl.zstd', 0],
    ['session.v1.jsonl', 1],
    ['session.v4.jsonl.zstd', 4],
    ['session.v12.jsonl', 12],
  ])('%s is generation %d', (name, n) => {
    expect(generationOf(name)).toBe(n);
    expect(generationName(n, name.endsWith('.zstd'))).toBe(name);
  });
  it.each(['session.v0.jsonl', 'session.V4.jsonl', 'session.v04.jsonl', 'session.1.v4.jsonl', 'session.1.jsonl', 'Session.jsonl', 'session.v4.jsonl.tmp', 'x.jsonl', 'session.v4.json'])(
    '%s is not a generation name',
    (name) => expect(generationOf(name)).toBeUndefined(),
  );
});

describe('per-folder generations', () => {
  const d = '/r/--p--/s';
  it('the highest generation is current whatever the order they arrive in; forgetting it brings the next back', () => {
    for (const order of [
      ['session.jsonl', 'session.v3.jsonl', 'session.v4.jsonl'],
      ['session.v4.jsonl', 'session.jsonl', 'session.v3.jsonl'],
      ['session.v3.jsonl', 'session.v4.jsonl', 'session.jsonl'],
    ]) {
      const g: GenerationMap = new Map();
      for (const n of order) registerGeneration(g, `${d}/${n}`);
      expect(currentGeneration(g, d)).toBe(`${d}/session.v4.jsonl`);
      expect(siblingGenerations(g, `${d}/session.v4.jsonl`)).toEqual([`${d}/session.v3.jsonl`, `${d}/session.jsonl`]);
      expect(forgetGeneration(g, `${d}/session.v4.jsonl`)).toBe(`${d}/session.v3.jsonl`);
      expect(knowsGeneration(g, `${d}/session.v4.jsonl`)).toBe(false);
      expect(forgetGeneration(g, `${d}/session.v3.jsonl`)).toBe(`${d}/session.jsonl`);
      expect(siblingGenerations(g, `${d}/session.jsonl`)).toEqual([]);
      expect(forgetGeneration(g, `${d}/session.jsonl`)).toBeUndefined();
      expect(g.size).toBe(0);
    }
  });
  it('a name that is no generation is not registered; a folder is sorted with its highest generation first', () => {
    const g: GenerationMap = new Map();
    expect(registerGeneration(g, `${d}/session.1.jsonl`)).toBeUndefined();
    expect(g.size).toBe(0);
    const names = ['a.jsonl', 'session.jsonl', 'session.v10.jsonl', 'session.v2.jsonl', 'session.1.jsonl'].map((n) => `${d}/${n}`);
    expect(names.sort(compareInFolder).map((f) => f.slice(d.length + 1))).toEqual(['session.v10.jsonl', 'session.v2.jsonl', 'session.jsonl', 'a.jsonl', 'session.1.jsonl']);
  });
  it('sortInFolder orders any folder as compareInFolder does', () => {
    const name = fc.oneof(
      fc.constantFrom('session.jsonl', 'session.jsonl.zstd', 'session.v0.jsonl', 'session.v03.jsonl', 'Session.jsonl', 'a.jsonl', 'session.jsonl.tmp'),
      fc.integer({ min: 1, max: 20 }).chain((v) => fc.constantFrom(`session.v${v}.jsonl`, `session.v${v}.jsonl.zstd`)),
      fc.string({ minLength: 1, maxLength: 6 }).map((s) => s.replaceAll('/', '_') + '.jsonl'),
    );
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), (names) => {
        const files = names.map((n) => `${d}/${n}`);
        expect(sortInFolder([...files])).toEqual([...files].sort(compareInFolder));
      }),
    );
  });
});
