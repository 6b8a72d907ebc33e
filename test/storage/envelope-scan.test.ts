// The index's envelope scan (envelope-scan.ts) on real logs: every harness log
// the repository carries, the sample sessions, and the shared corpora of real
// sessions when they are beside the repository, read facts-only (most lines
// scanned) and in full (every line parsed), end in the same reader state.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanEnvelope } from '../../src/storage/envelope-scan.js';
import { auditStructure } from '../../src/session/event-audit.js';
import { readLog } from '../../src/storage/session-file.js';
import { REAL_DIR, REPO, SAMPLE_DIR } from '../support/fixtures.js';

function* logsUnder(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* logsUnder(p);
    else if (e.isFile() && e.name.endsWith('.jsonl')) yield p;
  }
}

const SHARED = path.join(REPO, '..', 'shared');
const roots = [
  REAL_DIR,
  path.join(REPO, 'test', 'fixtures', 'real-sessions-v2v4'),
  SAMPLE_DIR,
  ...(fs.existsSync(SHARED) ? fs.readdirSync(SHARED).filter((n) => n.startsWith('dsh-real-sessions')).map((n) => path.join(SHARED, n)) : []),
].filter((d) => fs.existsSync(d));

describe('envelope scan on real logs', () => {
  it.each(roots.map((r) => [path.relative(path.dirname(REPO), r), r]))('%s: facts-only read equals the full parse, file by file', (_name, root) => {
    let files = 0;
    let scanned = 0;
    for (const file of logsUnder(root)) {
      files++;
      const fast = readLog(file, false).reader;
      const full = readLog(file, true).reader;
      expect({ file, ...fast.snapshot() }).toStrictEqual({ file, ...full.snapshot() });
      // the audit's structure, folded as each was read, is the audit of the events
      expect({ file, structure: fast.structure() }).toStrictEqual({ file, structure: auditStructure(full.events) });
      expect({ file, structure: full.structure() }).toStrictEqual({ file, structure: auditStructure(full.events) });
      const bytes = fs.readFileSync(file);
      for (let pos = bytes.indexOf(10) + 1, nl = bytes.indexOf(10, pos); nl >= 0; pos = nl + 1, nl = bytes.indexOf(10, pos)) if (scanEnvelope(bytes, pos, nl)) scanned++;
    }
    expect(files).toBeGreaterThan(0);
    expect(scanned).toBeGreaterThan(0); // the fast path ran on these logs
  });
});

describe('envelope scan', () => {
  it('reads the type from the bytes it is given, when the buffer it last read is reused', () => {
    // the reader reuses its read buffer: a type remembered by reference would be the new bytes
    const buf = Buffer.from('{"type":"tool/call","seq":0,"time":1,"data":{"callId":"c"}}');
    expect(scanEnvelope(buf, 0, buf.length)?.type).toBe('tool/call');
    buf.write('{"type":"step/ends","seq":0,"time":1,"data":{"callId":"c"}}');
    expect(scanEnvelope(buf, 0, buf.length)?.type).toBe('step/ends');
  });

  it('answers for a plain event line, leaves the rest to JSON.parse', () => {
    const scan = (s: string) => scanEnvelope(Buffer.from(s), 0, Buffer.byteLength(s));
    expect(scan('{"type":"tool/result","seq":3,"time":1.5,"data":{"callId":"c\\u00e9","content":"x\\n\\u00e9"},"ignorable":true}')).toEqual({ type: 'tool/result', seq: 3, time: 1.5, data: { callId: 'c\u00e9' }, ignorable: true });
    expect(scan('{"type":"step/start","seq":3,"time":1.5,"data":{"callId":"c"}}')).toEqual({ type: 'step/start', seq: 3, time: 1.5, data: undefined });
    expect(scan(' {"data":null , "time":-0,"seq":1e1,"type":"x/y"}\r')).toEqual({ type: 'x/y', seq: 10, time: -0, data: undefined });
    for (const s of [
      '{"type":"turn/end","seq":3,"time":1,"data":{}}', // its fold reads data
      '{"type":"tool/call","seq":3,"time":1,"data":{"name":"x"}}', // the audit's fold reads a callId: none here
      '{"type":"tool/call","seq":3,"time":1,"data":{"callId":7}}', // not a string
      '{"type":"tool/call","seq":3,"time":1,"data":{"callId":"a","call\\u0049d":"b"}}', // an escaped key that is callId too
      '{"type":"tool/result","seq":3,"time":1,"data":{"message":{"source":{"callId":"a"}}}}', // nested only
      '{"type":"text-chunks","seq0":3,"time0":1,"data":{"texts":["a"]}}', // packed
      '{"ty\\u0070e":"tool/call","seq":3,"time":1,"data":{}}', // escaped key
      '{"type":"tool/call","seq":3,"time":1,"data":{}} x', // trailing bytes
      '{"type":"tool/call","seq":3,"time":1,"data":{"a":"\t"}}', // raw control character
      '{"type":"tool/call","seq":3,"time":1}', // no data
      '{"type":"tool/call","seq":3.5,"time":1,"data":0}', // seq not an integer
    ])
      expect(scan(s)).toBeUndefined();
  });
});
