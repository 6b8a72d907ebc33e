// The layers of docs/architecture.md ("What may import what"), as
// dependency-cruiser rules; test/docs/layers.test.ts cruises src/ and
// components/ with them and fails on any violation. A known exception is
// listed here by file, so a new one fails until it is removed or documented.
const UI = '^node_modules/(ink|react|ink-select-input)/';
const FS = '^(node:)?fs(/promises)?$';

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'no module reaches itself through value imports (a cycle reads a binding before its module ran)',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'session-is-the-model',
      comment: 'src/session knows no disk, view, world, export, command or UI (upgrade.ts reads the layout of a path: a pure function)',
      severity: 'error',
      from: { path: '^src/session/', pathNot: '^src/session/upgrade\\.ts$' },
      to: { path: ['^src/(storage|view|world|export|cli)/', '^components/', '^src/(cli|tui)\\.ts$', UI, FS] },
    },
    {
      name: 'session-upgrade-reads-a-layout',
      severity: 'error',
      from: { path: '^src/session/upgrade\\.ts$' },
      to: { path: ['^src/storage/', '^src/(view|world|export|cli)/', '^components/', UI, FS], pathNot: '^src/storage/layout\\.ts$' },
    },
    {
      name: 'storage-knows-no-view',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: ['^src/(view|world|export|cli)/', '^components/', '^src/(cli|tui)\\.ts$', UI] },
    },
    {
      name: 'view-is-pure',
      comment: 'src/view decides, it never reads: no disk, no world implementation, no Node module, no Ink',
      severity: 'error',
      from: { path: '^src/view/' },
      to: { path: ['^src/(storage|world|export|cli)/', '^components/', '^src/(cli|tui)\\.ts$', UI] },
    },
    {
      name: 'view-uses-no-node-module',
      severity: 'error',
      from: { path: '^src/view/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'world-below-the-components',
      severity: 'error',
      from: { path: '^src/world/' },
      to: { path: ['^src/(cli|export)/', '^components/', '^src/(cli|tui)\\.ts$', UI] },
    },
    {
      name: 'components-touch-no-file',
      comment: 'every file the browser touches goes through src/storage',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: FS },
    },
    {
      name: 'only-tui-starts-the-components',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/tui\\.ts$' },
      to: { path: '^components/' },
    },
    {
      name: 'a-surface-is-reached-through-the-registry',
      comment: 'a surface module (src/view/<surface>/surface.ts) is imported by the registry only; the others reach it through the App they are handed',
      severity: 'error',
      from: { pathNot: '^src/view/app/surfaces\\.ts$' },
      to: { path: '^src/view/[^/]+/surface\\.ts$', pathNot: '^src/view/app/surface\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // ESM-only packages (ink) resolve through their exports' import condition
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
    exclude: { path: '^(test|bench|dist)/' },
  },
};
