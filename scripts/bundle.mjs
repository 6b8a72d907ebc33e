// Bundles the built CLI (dist/src/cli.js) into one file, dist/dsh-browse.mjs,
// the package's bin. One file loads about 5x faster than ink, react and their
// ~200 small modules resolved one by one (about 100 ms instead of 550 ms on
// the reference machine), which is most of the browser's first frame.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inkMemoPlugin } from './ink-memo.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

// chunks are named by their hash: the last build's would be left beside this one's
fs.rmSync(path.join(root, 'dist/chunks'), { recursive: true, force: true });

await build({
  entryPoints: { 'dsh-browse': path.join(root, 'dist/src/cli.js') },
  outdir: path.join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  // What only the browser needs (ink, react, the components) is a chunk of its own, loaded
  // by the dynamic import of tui.js: a headless command does not parse it (~60 ms).
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // React's production build: the development one doubles the cost of a frame.
  // and `dsh-browse --version` from package.json, fixed at build time.
  define: { 'process.env.NODE_ENV': '"production"', __VERSION__: JSON.stringify(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version) },
  // Ink loads its devtools only when DEV=true; keep that optional package out.
  alias: { 'react-devtools-core': path.join(root, 'scripts/devtools-stub.mjs') },
  // CommonJS dependencies (react) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __dshCreateRequire } from 'node:module';\nconst require = __dshCreateRequire(import.meta.url);" },
  // Ink's per-line text work, memoised across frames (scripts/ink-memo.mjs)
  plugins: [inkMemoPlugin()],
  // The zstd encoder reads its .wasm file next to its own module (__dirname): loaded from node_modules, not bundled.
  external: ['@bokuweb/zstd-wasm'],
  logLevel: 'warning',
});
