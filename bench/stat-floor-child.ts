// The floor of any warm search of a root kept current by stats: a node
// process that walks the root as `find` does (the folder listings the fact
// cache keeps) and stats every log, and does nothing else (no index, no
// read). `node stat-floor-child.js ROOT`; prints how many logs it stat'ed.
import fs from 'node:fs';
import path from 'node:path';
import { keptListings } from '../src/storage/fact-cache.js';
import { iterateSessionFiles } from '../src/storage/walk.js';

const root = path.resolve(process.argv[2]);
let n = 0;
for (const file of iterateSessionFiles(root, undefined, undefined, keptListings(root))) if (fs.statSync(file, { throwIfNoEntry: false })) n++;
process.stdout.write(`${n}\n`);
