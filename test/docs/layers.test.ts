// The layers of docs/architecture.md ("What may import what"), checked by
// dependency-cruiser with the rules in .dependency-cruiser.cjs: no import
// cycle, the model knows nothing of the disk or the views, src/view reads
// nothing itself, a surface is reached through the registry, and only
// src/tui.ts starts the components. A known exception is listed in the rules
// by file, so a new one fails here until it is removed or documented.
import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/fixtures.js';

const config = createRequire(import.meta.url)(path.join(REPO, '.dependency-cruiser.cjs')) as { forbidden: IForbiddenRuleType[]; options: Record<string, unknown> };

async function cruiseWith(forbidden: IForbiddenRuleType[]): Promise<ICruiseResult> {
  const cwd = process.cwd();
  process.chdir(REPO); // (the rules' paths are relative to the repository)
  try {
    const tsConfig = extractTSConfig(path.join(REPO, 'tsconfig.json'));
    const { options } = config;
    const out = await cruise(['src', 'components'], { ...options, tsConfig: { fileName: 'tsconfig.json' }, validate: true, ruleSet: { forbidden } } as never, options.enhancedResolveOptions as never, { tsConfig });
    return out.output as ICruiseResult;
  } finally {
    process.chdir(cwd);
  }
}

const violations = (r: ICruiseResult): string[] => r.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`);

describe('what may import what (docs/architecture.md)', () => {
  let result: ICruiseResult;
  beforeAll(async () => {
    result = await cruiseWith(config.forbidden);
  }, 120_000);

  it('no rule of .dependency-cruiser.cjs is broken', () => {
    expect(violations(result)).toEqual([]);
  });

  it('every import of src/ and components/ resolves (an unresolved one would pass any rule)', () => {
    const unresolved = result.modules.flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve).map((d) => `${m.source} -> ${d.module}`));
    expect(unresolved).toEqual([]);
  });

  it('the rules see what they forbid', async () => {
    const rule = (name: string): IForbiddenRuleType => config.forbidden.find((r) => r.name === name)!;
    // the cycles through type-only imports are there, and a rule that counts them finds them
    const typeCycles = { ...rule('no-cycle'), to: { circular: true } };
    // the listed exception, without its exemption
    const upgrade = { ...rule('session-is-the-model'), from: { path: '^src/session/' } };
    // the disk's own imports of fs, Node modules and the UI packages of the components
    const fs = { ...rule('components-touch-no-file'), from: { path: '^src/storage/walk\\.ts$' } };
    const core = { ...rule('view-uses-no-node-module'), from: { path: '^src/storage/walk\\.ts$' } };
    const ui = { ...rule('view-is-pure'), from: { path: '^components/app/app\\.tsx$' } };
    const surfaces = { ...rule('a-surface-is-reached-through-the-registry'), from: {} };
    const seen = violations(await cruiseWith([typeCycles, upgrade, fs, core, ui, surfaces]));
    expect(seen.some((v) => v.startsWith('no-cycle:')), seen.join('\n')).toBe(true);
    expect(seen).toContain('session-is-the-model: src/session/upgrade.ts -> src/storage/layout.ts');
    expect(seen).toContain('components-touch-no-file: src/storage/walk.ts -> fs');
    expect(seen).toContain('view-uses-no-node-module: src/storage/walk.ts -> path');
    expect(seen).toContain('view-is-pure: components/app/app.tsx -> node_modules/ink/build/index.js');
    expect(seen.filter((v) => v.startsWith('a-surface-is-reached-through-the-registry: src/view/app/surfaces.ts')).length).toBeGreaterThan(5);
  }, 120_000);
});
