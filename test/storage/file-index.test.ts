// The index's files keep the count of their refusal diagnostics as entries
// come and go (the title bar reads it on every frame): after any sequence of
// sets, replacements and deletes it equals a count over the entries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/session/diagnostics.js';
import { fileDiagnosticCount, fileEntry, FileIndex, newRootIndex } from '../../src/storage/load-root.js';

const diag = (file: string): Diagnostic => ({ file, severity: 'error', code: 'BAD_HEADER', message: 'not a session' });

describe('FileIndex', () => {
  it('counts refusal diagnostics through sets, replacements, deletes and clear', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), file: fc.nat(5), refused: fc.nat(3) }),
      fc.record({ kind: fc.constant('delete' as const), file: fc.nat(5) }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const index = newRootIndex('/r');
        expect(index.files).toBeInstanceOf(FileIndex);
        for (const o of ops) {
          const file = `/r/f${'file' in o ? o.file : 0}.jsonl`;
          if (o.kind === 'set') index.files.set(file, fileEntry({ size: 1, ino: 1, mtimeMs: 1 }, 0, o.refused ? Array.from({ length: o.refused }, () => diag(file)) : undefined));
          else if (o.kind === 'delete') index.files.delete(file);
          else index.files.clear();
          let n = 0;
          for (const e of index.files.values()) n += e.refused?.length ?? 0;
          expect(fileDiagnosticCount(index)).toBe(n);
        }
      }),
      { numRuns: 300 },
    );
  });
});
