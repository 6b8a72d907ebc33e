// A turn of any size in `tree` and `export`: a turn cut in pieces
// (turn-pieces.ts) is written as it is read, its summary read ahead, and the
// text is the same, byte for byte, as with the turn read whole: for random
// logs (turns open or closed, steps, calls answered late or never, damaged
// lines), every format, and exports that stop mid-log.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cmdTree, type Out } from '../../src/cli/commands.js';
import { exportText } from '../../src/export/export.js';
import { setPieceBytes } from '../../src/session/turn-pieces.js';
import { openSessionFile } from '../../src/storage/session-file.js';
import { cleanupTmp, hdr, tmpDir } from '../support/fixtures.js';
import { PROPERTY_TIMEOUT, runs } from '../support/property.js';

const TYPES = ['turn/start', 'turn/end', 'step/start', 'step/end', 'assistant/chunk', 'tool/call', 'tool/result', 'user/message', 'assistant/message', 'session/title'] as const;
type Line = { type: (typeof TYPES)[number]; call: number; bad: boolean };
const linesArb = fc.array(fc.record({ type: fc.constantFrom(...TYPES), call: fc.integer({ min: 0, max: 3 }), bad: fc.boolean() }), { maxLength: 200 });

function text(lines: readonly Line[]): string {
  return lines
    .map((r, seq) => {
      const data =
        r.type === 'tool/call' || r.type === 'tool/result'
          ? { callId: `c${r.call}`, name: 'bash', arguments: '{"command":"ls"}', content: [{ type: 'tool-result', content: `out ${seq}` }] }
          : r.type === 'user/message' || r.type === 'assistant/message'
            ? { content: [{ type: 'text', text: `m${seq}` }], source: { kind: 'user' }, usage: { inputTokens: seq, outputTokens: 2 } }
            : r.type === 'assistant/chunk'
              ? { chunk: { type: 'text-delta', text: `c${seq}` } }
              : { turn: r.call + 1, step: seq, reason: { kind: r.call === 0 ? 'error' : 'completed', error: { message: 'boom', code: 'X' } } };
      return JSON.stringify({ type: r.type, seq, time: 1_700_000_000_000 + seq * 1500, data }) + '\n' + (r.bad ? '{"type":"tool/res\n' : '');
    })
    .join('');
}

const dir = tmpDir('turn-pieces-');
afterAll(() => {
  setPieceBytes(4 * 1024 * 1024);
  cleanupTmp();
});
let n = 0;

async function outputs(file: string, upTo: number | undefined): Promise<string[]> {
  const s = openSessionFile(file).session!; // facts only: events read from the file, in batches
  const tree = async (json: boolean) => {
    let t = '';
    const out: Out = { json, color: false, write: (x) => void (t += x) };
    await cmdTree(s, out);
    return t;
  };
  return [await tree(false), await tree(true), ...(['md', 'html', 'json'] as const).map((f) => [...exportText(s, [s], f, upTo)].join(''))];
}

describe('a turn in pieces in tree and export', () => {
  it('writes the same text as the turn read whole', async () => {
    await fc.assert(
      fc.asyncProperty(linesArb, fc.option(fc.nat(), { nil: undefined }), async (lines, at) => {
        const file = path.join(dir, `p${n++}.jsonl`);
        fs.writeFileSync(file, JSON.stringify(hdr(`p${n}`)) + '\n' + text(lines));
        const upTo = at === undefined || lines.length === 0 ? undefined : at % lines.length;
        setPieceBytes(1 << 30);
        const whole = await outputs(file, upTo);
        setPieceBytes(0); // cut at every step/start where no call waits
        expect(await outputs(file, upTo)).toEqual(whole);
      }),
      { numRuns: runs(100) },
    );
  }, PROPERTY_TIMEOUT);
});

describe('a turn of hundreds of items', () => {
  it('is written a few hundred lines at a time, every line in its place (md, html)', () => {
    const lines: Line[] = [{ type: 'turn/start', call: 0, bad: false }];
    for (let k = 0; k < 400; k++) lines.push({ type: 'step/start', call: 0, bad: false }, { type: 'tool/call', call: 1, bad: false }, { type: 'tool/result', call: 1, bad: false }, { type: 'step/end', call: 0, bad: false });
    lines.push({ type: 'turn/end', call: 1, bad: false });
    const file = path.join(dir, 'long.jsonl');
    fs.writeFileSync(file, JSON.stringify(hdr('long')) + '\n' + text(lines));
    const s = openSessionFile(file).session!;
    for (const pieces of [1 << 30, 0]) {
      setPieceBytes(pieces);
      const md = [...exportText(s, [s], 'md')];
      const text = md.join('');
      expect(text.match(/\n\n\*\*tool call bash\*\* \(seq \d+\) → ok\n\n```json\n/g)).toHaveLength(400);
      expect(text.match(/\n\n#### Step \d+\n\n/g)).toHaveLength(400);
      const html = [...exportText(s, [s], 'html')].join('');
      expect(html.match(/\n<details class="tool"><summary><b>bash<\/b> <span class="ok">ok<\/span> <span class="seq">seq \d+<\/span><\/summary>\n<div>arguments<\/div>/g)).toHaveLength(400);
    }
  });
});

