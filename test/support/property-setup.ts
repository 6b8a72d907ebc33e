// Vitest setup file: one fixed seed for every fast-check property (see property.ts),
// and the fact cache kept out of the real ~/.cache (cache-home.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { PROPERTY_SEED } from './property.js';
import { initEncoder } from '../../src/storage/zstd-encode.js';

fc.configureGlobal({ seed: PROPERTY_SEED });
if (process.env.FC_SEED === 'random') console.log(`[property tests] FC_SEED=${PROPERTY_SEED}`);

// cache-home.ts set XDG_CACHE_HOME for the run; a worker that did not inherit it gets its own
if (!path.basename(process.env.XDG_CACHE_HOME ?? '').startsWith('dsh-browse-test-cache-'))
  process.env.XDG_CACHE_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-browse-test-cache-'));

// a fork into a compressed root writes compressed frames, as in the app (which loads the encoder first)
await initEncoder();
