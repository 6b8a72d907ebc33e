// The harness's generation file names (session-persistence-jsonl): one
// session folder may hold a file per format generation. v0 is the bare
// `session.jsonl`; every later version is `session.vN.jsonl`; with zstd the
// name ends in `.zstd`. Uppercase, leading-zero (`v03`), `v0`-tagged and
// temporary names are not generations. Pure: names only.

const GENERATION = /^session(?:\.v([1-9][0-9]{0,8}))?\.jsonl(\.zstd)?$/;

/** The format generation a file name stands for, or undefined when it is not a generation name. */
export function generationOf(name: string): number | undefined {
  const m = GENERATION.exec(name);
  if (!m) return undefined;
  return m[1] === undefined ? 0 : Number(m[1]);
}

/** The generation file name of format `version` (`session.jsonl`, `session.v4.jsonl`), zstd or plain. */
export const generationName = (version: number, zstd: boolean): string => `session${version === 0 ? '' : `.v${version}`}.jsonl${zstd ? '.zstd' : ''}`;
