// Prints the real screens of the browser (bundled bin, real pty, 100x30) on a
// temp copy of sample-sessions: Sessions, a refused fork, Turns of a fork child,
// Lineage. Used for docs/guide.md, "Screenshots": `npm run build && node scripts/screenshots.mjs`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { spawnBenchPty, KEYS } = await import(path.join(root, 'dist/bench/pty.js'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-shots-'));
fs.cpSync(path.join(root, 'sample-sessions'), dir, { recursive: true });
const p = spawnBenchPty(process.execPath, [path.join(root, 'dist/dsh-browse.mjs'), dir], 100, 30);
const settle = () => p.settle(250, 5000);
const shot = (title) => console.log(`--- ${title}\n${p.screen().replaceAll(dir, '~/sessions')}\n`);
try {
  await p.waitFor((s) => / live\b/.test(s), 20_000);
  await settle();
  shot('Sessions');
  for (const k of ['/', 'add-retry', KEYS.enter, 'f']) { p.write(k); await settle(); }
  shot('f inside an open turn');
  for (const k of [KEYS.esc, KEYS.esc, '/', 'spy-random', KEYS.enter, KEYS.enter]) { p.write(k); await settle(); }
  for (let i = 0; i < 3; i++) { p.write(KEYS.down); await settle(); }
  shot('Turns of a fork child');
  for (const k of [KEYS.esc, KEYS.esc, '\t', '\t']) { p.write(k); await settle(); }
  shot('Lineage');
} finally {
  p.write('q');
  await Promise.race([p.exited, new Promise((r) => setTimeout(r, 2000))]);
  p.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}
