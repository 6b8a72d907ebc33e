// The unit tier runs without building dist/ (vitest.config.ts). A test there
// that spawns the built bin or a terminal would test a stale bundle, or none:
// the helpers that do call this first, so such a test fails and says where
// it belongs.
export function needsBuiltTier(what: string): void {
  if (process.env.DSH_TEST_TIER === 'unit')
    throw new Error(`${what}: the unit tier does not build dist/; move this test out of the unit tier's folders (vitest.config.ts)`);
}
