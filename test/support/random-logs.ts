// Random session logs written the way a prefilter could be fooled: random
// escapes (any character as \uXXXX, / as \/), spacing, number spellings and
// case-folding pairs; and random query terms over the same alphabet. Shared by
// the properties that hold find's prefilters and the content index to a scan.
import fc from 'fast-check';

/** A number as written in the file (JSON.parse reads it to a double whose String() may differ). */
export class RawNum {
  constructor(readonly raw: string) {}
}
const NUMS = ['1E3', '1000', '1.50', '-0', '1e999', '-1e999', '0.0000001', '100000000000000000000000', '7', '2e+1'];

/** Serialises like JSON, with random spaces, \uXXXX and \/ escapes, and raw number spellings. */
export function write(v: unknown, rnd: () => number, escapes = 0.08): string {
  if (v instanceof RawNum) return v.raw;
  if (typeof v === 'string') {
    let s = '"';
    for (const c of v) {
      if (c === '"' || c === '\\' || c < ' ') s += JSON.stringify(c).slice(1, -1);
      else if (rnd() < escapes) s += [...c].map((u) => '\\u' + u.charCodeAt(0).toString(16).padStart(4, '0')).join(''); // escape any character
      else if (c === '/' && rnd() < escapes * 4) s += '\\/';
      else s += c;
    }
    return s + '"';
  }
  const sp = () => (rnd() < 0.2 ? ' ' : '');
  if (Array.isArray(v)) return '[' + v.map((x) => sp() + write(x, rnd, escapes)).join(',') + ']';
  if (typeof v === 'object' && v !== null) return '{' + Object.entries(v).map(([k, x]) => `${write(k, rnd, escapes)}:${sp()}${write(x, rnd, escapes)}`).join(',' + sp()) + '}';
  return JSON.stringify(v);
}

export const UNIT = ['a', 'W', 'w', 'atch', 'er', 'K', 'k', '\u212a', 'ſ', 's', 'S', 'é', 'É', 'İ', 'i', '1', '0', 'e', 'E', '.', '+', '-', ':', ',', '{', '}', '[', ']', '?', ' ', '/', '"', '\\', '\n', 'true', 'null', 'Infinity', 'x', '😀'];

/** A small deterministic generator of logs from a seed (fast-check shrinks the seed and the word). */
export interface LogOptions {
  /** how often a character is escaped (0: never; a log with escapes is a candidate for every query of the content index) */
  escapes?: number;
  /** whether prompt/blocked events occur (they run their text blocks together: such a log is always a candidate too) */
  blocked?: boolean;
}

export function makeLog(seed: number, events: number, { escapes = 0.08, blocked = true }: LogOptions = {}): string {
  let x = seed >>> 0 || 1;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const str = () => Array.from({ length: Math.floor(rnd() * 6) }, () => pick(UNIT)).join('');
  const num = () => new RawNum(pick(NUMS));
  const val = (): unknown => pick([str, num, () => rnd() < 0.5, () => null, () => [num(), str()], () => ({ [str()]: num(), b: str() })])();
  const lines = [JSON.stringify({ type: 'session', version: 0, id: `s${seed}`, createdAt: 1 })];
  let turn = 0;
  for (let seq = 0; seq < events; seq++) {
    const call = `c${Math.floor(rnd() * 3)}`;
    const kind = Math.floor(rnd() * 11);
    let type: string;
    let data: unknown;
    if (kind === 0) [type, data] = ['turn/start', { turn: ++turn }];
    else if (kind === 1) [type, data] = ['turn/end', pick([{ reason: { kind: str(), message: str() } }, { reason: str() }, {}])];
    else if (kind === 2) [type, data] = ['assistant/chunk', { delta: str() }];
    else if (kind === 3) [type, data] = ['assistant/message', { message: { role: 'assistant', content: [{ type: 'text', text: str() }, { type: 'tool-call', name: pick([str(), num()]), arguments: pick([str(), val()]) }] } }];
    else if (kind === 4) [type, data] = ['tool/call', { callId: call, name: pick(['bash', str(), num()]), arguments: pick([str(), { command: str(), n: num(), list: [num(), num()], on: true }]) }];
    else if (kind === 5) [type, data] = ['tool/result', { callId: call, content: [{ type: 'text', text: str() }], ...(rnd() < 0.3 ? { isError: true, error: val() } : {}) }];
    else if (kind === 6 && blocked) [type, data] = ['prompt/blocked', { content: [{ type: 'text', text: str() }, { type: 'text', text: str() }], reason: str() }];
    else if (kind === 7 || kind === 6) [type, data] = ['user/message', { message: { role: 'user', content: str() } }];
    else if (kind === 8) [type, data] = ['context/message', { role: 'user', content: [{ type: 'text', text: str() }] }];
    else [type, data] = ['x/other', { [str()]: val(), leaf: val(), deep: { v: [val(), val()] } }];
    lines.push(write({ type, seq, time: new RawNum(String(1000 + seq)), data }, rnd, escapes));
  }
  return lines.join('\n') + '\n';
}

/** Whole spellings of made-up text too: String(number) of the raw spellings above, compact JSON, the reason "?" */
const TOKENS = ['1000', '1.5', 'Infinity', '-Infinity', '1e-7', '1e+23', '20', 'null', '[7', ':true', ',"', '?', 'a a', 'atch er'];
const word = fc.array(fc.oneof(fc.constantFrom(...UNIT.filter((u) => u !== '"' && u !== '\n')), fc.constantFrom(...TOKENS)), { minLength: 1, maxLength: 3 }).map((a) => a.join('').replace(/"/g, ''));
export const term = fc.oneof(
  { weight: 6, arbitrary: word.filter((w) => w.trim() !== '').map((w) => `"${w}"`) },
  { weight: 1, arbitrary: word.filter((w) => !/\s/.test(w)).map((w) => `tool:"${w}"`) },
  { weight: 1, arbitrary: word.filter((w) => !/\s/.test(w)).map((w) => `reason:"${w}"`) },
  { weight: 1, arbitrary: fc.constantFrom('is:error', 'tool:bash', '-"a"', '-tool:bash') },
);

