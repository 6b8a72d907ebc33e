import { defineConfig } from 'vitest/config';

// Three tiers (CONTRIBUTING.md):
// - unit: the pure model and view-model, in-process, no built bin;
// - app: everything else but the huge tests: components, the disk, the CLI
//   and the browser in a real terminal, fuzzing, the harness's own code;
// - huge: the multi-hundred-MB logs, run on their own (npm run test:huge).
// `npm test` runs unit and app. The app and huge tiers spawn dist/, so they
// build it once before their first file (build-once.ts); run-cli.ts refuses
// to spawn it from the unit tier, so a test in the wrong tier fails.
const UNIT = ['test/session/**/*.test.ts', 'test/view/**/*.test.ts', 'test/world/**/*.test.ts', 'test/export/**/*.test.ts', 'test/docs/**/*.test.ts'];
const HUGE = ['test/huge/**/*.test.ts'];

export default defineConfig({
  test: {
    // XDG_CACHE_HOME points at a temp folder for the whole run (cache-home.ts)
    globalSetup: ['test/support/cache-home.ts'],
    // every fast-check property runs from one fixed seed (FC_SEED overrides it)
    setupFiles: ['test/support/property-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two workers on this 2-core machine: most files wait on a child process
    // or a terminal, so one worker per core keeps both cores busy.
    maxWorkers: 2,
    // Under CI a JSON report is written too, so .ci/run can print "N passed, N failed"
    // (the huge tier's run names its own file with --outputFile.json).
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.ci/test-results.json' },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT, env: { DSH_TEST_TIER: 'unit' }, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'app',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...UNIT, ...HUGE, 'test/oracle/**', '**/node_modules/**'],
          globalSetup: ['test/support/build-once.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'huge', include: HUGE, globalSetup: ['test/support/build-once.ts'] },
      },
    ],
  },
});
