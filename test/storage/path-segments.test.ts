// layoutOf, isRc8LayoutPath and encodeSegment find their answer without
// splitting or rebuilding the path (they run for every session the list
// shows); each must answer exactly as its plain form (kept here) does.
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRc8LayoutPath } from '../../src/session/era.js';
import { generationOf } from '../../src/session/generation-name.js';
import { encodeSegment } from '../../src/storage/id-encoding.js';
import { isProjectFolderName, layoutOf } from '../../src/storage/layout.js';

function layoutPlain(file: string): string {
  const base = path.basename(file);
  const dir = path.basename(path.dirname(file));
  const grand = path.basename(path.dirname(path.dirname(file)));
  if (generationOf(base) !== undefined && (/^--.*--$/.test(grand) || grand === '_no-cwd')) return 'rc8-harness';
  if (/^cwd-[0-9a-f]{12}$/.test(dir) || dir === '_no-cwd') return 'v0-harness';
  return 'flat';
}

function rc8PathPlain(file: string | undefined): boolean {
  if (!file) return false;
  const parts = file.split(/[\\/]/);
  const n = parts.length;
  return n >= 3 && generationOf(parts[n - 1]) !== undefined && (/^--.*--$/.test(parts[n - 3]) || parts[n - 3] === '_no-cwd');
}

function encodePlain(id: string): string {
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i];
    out += /^[A-Za-z0-9._-]$/.test(ch) ? ch : '~' + id.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

const segment = fc.constantFrom('', '.', '..', 'x', 'root', '--proj--', '--a-b--', '_no-cwd', 'cwd-0123456789ab', 'cwd-fedcba987654', 'cwd-0123456789AB', 'cwd-0123456789abc', 'cwd-0123456789a', 'cwd-0123456789ag', 'cwd-0123456789a/', 'xwd-0123456789ab', '_no-cwdx', '--\n--', 'cwd-xyz', 'sessions.jsonl', 's1', 'session.jsonl', 'session.v2.jsonl', 'session.v4.jsonl.zstd', 'id.jsonl', 'a b');
const paths = fc.tuple(fc.boolean(), fc.array(fc.tuple(segment, fc.constantFrom('/', '\\', '//')), { maxLength: 6 }), segment, fc.boolean()).map(
  ([lead, parts, last, trail]) => (lead ? '/' : '') + parts.map(([s, sep]) => s + sep).join('') + last + (trail ? '/' : ''),
);

describe('path segments found from the end', () => {
  it('layoutOf and isRc8LayoutPath answer as their plain forms on any path', () => {
    fc.assert(
      fc.property(paths, (p) => {
        expect(layoutOf(p)).toBe(layoutPlain(p));
        expect(isRc8LayoutPath(p)).toBe(rc8PathPlain(p));
      }),
      { numRuns: 3000 },
    );
    for (const p of ['/r/--p--/s/session.jsonl', '/r/cwd-0123456789ab/s.jsonl', 'C:\\r\\--p--\\s\\session.v2.jsonl', 'session.jsonl', '', '/']) {
      expect(layoutOf(p)).toBe(layoutPlain(p));
      expect(isRc8LayoutPath(p)).toBe(rc8PathPlain(p));
    }
  });

  it('isProjectFolderName answers as its plain form on any name', () => {
    fc.assert(
      fc.property(fc.oneof(segment, fc.string({ unit: fc.constantFrom('c', 'w', 'd', '-', '0', 'a', 'f', 'g', 'A', '_', 'n', 'o', '\n') })), (n) => {
        expect(isProjectFolderName(n)).toBe(/^--.*--$/.test(n) || /^cwd-[0-9a-f]{12}$/.test(n) || n === '_no-cwd');
      }),
      { numRuns: 3000 },
    );
  });

  it('encodeSegment answers as its plain form on any id', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: fc.constantFrom('a', 'Z', '0', '.', '_', '-', '/', '~', ' ', 'é', '\u0000') }), fc.string({ unit: 'grapheme' })), (id) => {
        expect(encodeSegment(id)).toBe(encodePlain(id));
      }),
      { numRuns: 3000 },
    );
  });
});
