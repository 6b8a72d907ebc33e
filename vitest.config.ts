import { defineConfig } from 'vitest/config';

// Under CI a JSON report is written too, so .ci/run can print "N passed, N failed".
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // dist/ is built once per run, before any file (tests spawn the built bin)
    // ...and XDG_CACHE_HOME points at a temp folder for the whole run (cache-home.ts)
    globalSetup: ['test/support/build-once.ts', 'test/support/cache-home.ts'],
    // every fast-check property runs from one fixed seed (FC_SEED overrides it)
    setupFiles: ['test/support/property-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/test-results.json' }]] : ['default'],
  },
});
