// The layers of docs/architecture.md, "What may import what", checked on the
// import lines: the model knows nothing of the disk or the views, the disk
// nothing of the views, the view-model nothing of Ink, and only src/tui.ts
// starts the components. The known exceptions are listed by file, so a new
// one fails here and is either removed or added to the guide.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/fixtures.js';

function files(dir: string): string[] {
  return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(`${dir}/${e.name}`) : /\.tsx?$/.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
}

/** What a file imports: repository paths for relative imports (no extension), package names otherwise. */
function imports(file: string): string[] {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => {
    const spec = m[1] ?? m[2];
    return spec.startsWith('.') ? path.posix.join(path.posix.dirname(file), spec).replace(/\.(js|tsx?)$/, '') : spec;
  });
}

/** Imports of `dir`'s files that match `banned`, except the listed file -> import pairs. */
function breaches(dir: string, banned: RegExp, allowed: ReadonlyArray<[string, string]> = []): string[] {
  return files(dir).flatMap((f) =>
    imports(f)
      .filter((i) => banned.test(i) && !allowed.some(([af, ai]) => af === f && ai === i))
      .map((i) => `${f} -> ${i}`),
  );
}

const UI = /^(ink|react|ink-select-input)(\/|$)/;

describe('what may import what (docs/architecture.md)', () => {
  it('src/session: the model imports no disk, view, export, command or UI code', () => {
    expect(breaches('src/session', /^(src\/(storage|view|export|cli)|components)\/|^src\/(cli|tui)$|^node:fs$/, [['src/session/upgrade.ts', 'src/storage/layout']])).toEqual([]);
    expect(breaches('src/session', UI)).toEqual([]);
  });

  it('src/storage: the disk imports no view, export, command or UI code', () => {
    expect(breaches('src/storage', /^(src\/(view|export|cli)|components)\/|^src\/(cli|tui)$/)).toEqual([]);
    expect(breaches('src/storage', UI)).toEqual([]);
  });

  it('src/view: the view-model imports no Ink, no components and no commands', () => {
    expect(breaches('src/view', /^(src\/(cli|export)|components)\/|^src\/(cli|tui)$/)).toEqual([]);
    expect(breaches('src/view', UI)).toEqual([]);
  });

  it('components/: the Ink views touch no file themselves (src/storage does)', () => {
    expect(breaches('components', /^node:fs(\/promises)?$|^fs$/)).toEqual([]);
  });

  it('only src/tui.ts starts the components', () => {
    const src = files('src').filter((f) => f !== 'src/tui.ts');
    const starts = src.flatMap((f) => imports(f).filter((i) => i.startsWith('components/')).map((i) => `${f} -> ${i}`));
    expect(starts).toEqual([]);
  });

  it('the checks see the imports they check (a file that imports nothing would pass anything)', () => {
    expect(imports('src/storage/load-root.ts').some((i) => i.startsWith('src/session/'))).toBe(true);
    expect(imports('src/tui.ts').some((i) => i.startsWith('components/'))).toBe(true);
    expect(imports('src/session/upgrade.ts')).toContain('src/storage/layout');
  });
});
