/**
 * Floor process for the bomb figure: `node dist/bench/zstd-decode-child.js FILE`
 * decodes the first GiB of FILE's text with the decoder `list` uses (the same
 * stream, into a sink that keeps nothing) and exits: "the time it takes to
 * decode 1 GiB", process start included as it is in `list`.
 */
import fs from 'node:fs';
import { fdSource, initDecoder } from '../src/storage/zstd-frames.js';
import { ZstdTextStream } from '../src/storage/zstd-stream.js';

const GiB = 1024 * 1024 * 1024;
await initDecoder();
const fd = fs.openSync(process.argv[2], 'r');
let n = 0;
new ZstdTextStream(fdSource(fd, fs.fstatSync(fd).size), (t) => (n += t.length) < GiB).step();
if (n < GiB) throw new Error(`decoded only ${n} bytes`);
