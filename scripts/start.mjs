// `npm start`: the browser on a fresh temporary copy of sample-sessions/, run
// from inside that copy. Forks (f) and exports (x) write files; on the copy
// they never land in the checkout, and the folder is named on exit so they
// can be looked at.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-sample-sessions-'));
fs.cpSync(path.join(root, 'sample-sessions'), copy, { recursive: true });
const r = spawnSync(process.execPath, [path.join(root, 'dist/dsh-browse.mjs'), copy, ...process.argv.slice(2)], { stdio: 'inherit', cwd: copy });
process.stderr.write(`npm start browsed a copy of sample-sessions/: ${copy} (forks and exports are there; delete it when done)\n`);
process.exit(r.status ?? 1);
