// A session whose every string tries to break out of its export format.
import path from 'node:path';
import { turnRows, writeLog } from '../support/fixtures.js';

export const PWN = `<script>document.title='PWNED';document.documentElement.setAttribute('data-pwned','1')</script>`;
export const HOSTILE_PROMPT = [
  PWN,
  `<img src=x onerror="document.documentElement.setAttribute('data-pwned','2')">`,
  '</pre></details></section><script>document.title="PWNED2"</script>',
  '```',
  'still inside? ```` ~~~',
  '\x1b[2J\x1b]0;title\x07 bidi \u202eevil\u202c and \u0085 C1',
  '[link](javascript:alert(1)) <!-- comment --> ]]> & &amp; "quotes" \'single\'',
  '# not a heading',
].join('\n');

export const HOSTILE_ID = `evil<script>document.title='PWNED3'</script>&"id"`;

/** A tool name that tries to end an SVG <text>, a <title> and a quoted attribute (the timeline draws tool names in all three). */
export const HOSTILE_TOOL = `sh"></text></title></svg><img src=x onerror="document.documentElement.setAttribute('data-pwned','4')"><script>document.title='PWNED4'</script>`;

/** Writes the hostile session into dir (file hostile.jsonl) and returns its path. */
export function writeHostile(dir: string): string {
  const rows = turnRows(1, { kind: 'completed' }, HOSTILE_PROMPT);
  // an assistant message full of markup, and a tool call with a hostile name and result
  rows.splice(4, 1, ['assistant/message', { turn: 1, step: 1, content: [{ type: 'text', text: `answer ${PWN} **bold** <b>b</b>` }, { type: 'tool-call', id: 'c1', name: '<i>tool</i>', arguments: '{}' }] }]);
  rows.splice(5, 0, ['tool/call', { turn: 1, step: 1, callId: 'c1', name: '<i>tool</i>', arguments: JSON.stringify({ command: `echo '${PWN}'` }) }]);
  rows.splice(6, 0, ['tool/result', { turn: 1, step: 1, callId: 'c1', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: `</textarea>${PWN}\n\`\`\`\`\`` }] }], isError: true }]);
  // a write whose path and text try the same: the changes section shows them as text
  const path_ = `src/${PWN}.ts`;
  rows.splice(7, 0, ['tool/call', { turn: 1, step: 1, callId: 'w1', name: 'write', arguments: JSON.stringify({ file_path: path_, content: `${HOSTILE_PROMPT}\n` }) }]);
  rows.splice(8, 0, ['tool/result', { turn: 1, step: 1, callId: 'w1', content: [{ type: 'tool-result', toolCallId: 'w1', content: [{ type: 'text', text: 'ok' }] }], meta: { operation: 'create', diffs: [{ path: path_, oldText: null, newText: HOSTILE_PROMPT }] } }]);
  // a call with a hostile name and command, open (no result) so it is drawn to the turn's end
  rows.splice(9, 0, ['tool/call', { turn: 1, step: 1, callId: 'h1', name: HOSTILE_TOOL, arguments: JSON.stringify({ command: `"'><svg onload=alert(1)>${PWN}` }) }]);
  const events = rows.map(([type, data], i) => ({ type, seq: i, time: 1_700_000_000_000 + i * 10, data: data ?? {} }));
  return writeLog(path.join(dir, 'hostile.jsonl'), { type: 'session', version: 0, id: HOSTILE_ID, createdAt: 1_700_000_000_000, cwd: '/tmp/<b>cwd</b>' }, events);
}
