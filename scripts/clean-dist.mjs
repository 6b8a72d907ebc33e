// Empties dist/ before a build: tsc writes the modules it compiles but never
// removes those of deleted sources, and a stale module would still load
// (the built-module tests import every file under dist/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
