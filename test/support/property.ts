// Property tests are sized by seed and count, never by the machine: every
// fast-check property runs from one fixed seed (set for all of them in
// property-setup.ts, a vitest setup file), so a run on a loaded CI machine
// checks exactly the cases an idle laptop checks, only slower. A failure
// prints the seed and the shrunk counterexample's path (fast-check's report),
// which reproduce it.
//
//   FC_SEED=123 npx vitest run test/view      another fixed seed
//   FC_SEED=random npx vitest run test/view   a new seed each run (printed)
//   FC_RUNS=10 npx vitest run test/view       ten times the cases (exploration)
//
// Each property's count is chosen so it finishes in a few seconds on an idle
// 2-core machine; its timeout (PROPERTY_TIMEOUT) leaves at least 5x headroom.

/** The seed of every property in this run. */
export const PROPERTY_SEED: number = (() => {
  const v = process.env.FC_SEED;
  if (v === undefined || v === '') return 0x5e551;
  if (v === 'random') return (Math.random() * 0x7fffffff) | 0;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(v)}`);
  return n;
})();

const SCALE = (() => {
  const v = process.env.FC_RUNS;
  if (v === undefined || v === '') return 1;
  const n = Number(v);
  if (!(n > 0)) throw new Error(`FC_RUNS must be a positive number, got ${JSON.stringify(v)}`);
  return n;
})();

/** The number of cases for a property sized `n` at the default scale. */
export const runs = (n: number): number => Math.max(1, Math.round(n * SCALE));

/** Test timeout for a property test: 5x its idle time or more, scaled with FC_RUNS. */
export const PROPERTY_TIMEOUT = Math.round(60_000 * Math.max(1, SCALE));
