// The timed process of compact-floor.ts: node compact-floor-child.js COLUMNS ROOT
import { compactStart } from './compact-floor.js';

const [cols, root] = process.argv.slice(2);
process.stdout.write(JSON.stringify(compactStart(cols, root)) + '\n');
