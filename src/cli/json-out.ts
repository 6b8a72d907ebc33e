/** Items per write: a session's summary is ~500 bytes, so ~64 KB. */
const BATCH = 128;

/**
 * Writes `{ [key]: [...items], ...rest }` + "\n" exactly as
 * `JSON.stringify(that, null, 2) + '\n'` would, one item at a time, in writes
 * of BATCH items. Why: at 100,000 sessions `list --json` built one 56 MB string
 * and then a 56 MB buffer of it (~0.5 s here, most of it memory new to the
 * process) and held every summary at once; now only one write's worth is held.
 * `items` may be a generator: each item is made when it is written.
 */
export function writeJsonWithArray(write: (s: string) => void, key: string, items: Iterable<unknown>, rest: Record<string, unknown> = {}): void {
  const k = JSON.stringify(key);
  // A batch of items is laid out by JSON.stringify itself, at the array's depth:
  // stringify({ [key]: batch }) and keep what is between the brackets.
  const open = `{\n  ${k}: [\n`;
  const close = '\n  ]\n}';
  let batch: unknown[] = [];
  let wrote = false;
  const flush = () => {
    const text = JSON.stringify({ [key]: batch }, null, 2);
    write((wrote ? ',\n' : open) + text.slice(open.length, text.length - close.length));
    wrote = true;
    batch = [];
  };
  for (const item of items) {
    if (batch.push(item) === BATCH) flush();
  }
  if (batch.length > 0) flush();
  let tail = wrote ? '\n  ]' : `{\n  ${k}: []`;
  for (const [name, v] of Object.entries(rest)) {
    const text = JSON.stringify(v, null, 2);
    if (text !== undefined) tail += `,\n  ${JSON.stringify(name)}: ${text.replace(/\n/g, '\n  ')}`;
  }
  write(tail + '\n}\n');
}

/**
 * An item of a streamed array that streams an array of its own: `obj` with
 * `key` holding `items`, written as they come; `after`, asked once the items
 * are written, gives keys known only then (a turn's timeline), which follow
 * obj's own.
 */
export class StreamedJson {
  constructor(
    readonly obj: Record<string, unknown>,
    readonly key: string,
    readonly items: Iterable<unknown>,
    readonly after?: () => Record<string, unknown>,
  ) {}
}

/**
 * The text of `stringify(obj)` (a JSON text indented by 2) in pieces, with
 * the value of `key` an array whose items come one at a time from `items`:
 * the same text as stringify of obj with that array in place, but no more
 * than one item is ever held (a 10 GB session's `tree --json` or JSON
 * export). The key keeps its place among obj's keys. `stringify` must indent
 * by 2 (JSON.stringify's layout, or safeStringify's, which is the same).
 */
export function* jsonWithStreamedArray(obj: Record<string, unknown>, key: string, items: Iterable<unknown>, stringify: (v: unknown) => string, after?: () => Record<string, unknown>): Generator<string> {
  // the array's place: a string no log can know in advance (a fresh nonce), laid out by stringify itself
  const mark = JSON.stringify(`\u0000stream-${process.pid}-${Math.random().toString(36).slice(2)}\u0000`);
  const text = stringify({ ...obj, [key]: JSON.parse(mark) });
  const at = text.indexOf(mark);
  if (at < 0) throw new Error(`internal: ${key} not in the object`);
  const before = text.slice(0, at);
  // `before` ends with the key's line `<depth spaces>"key": `; the items go 2 deeper
  const depth = before.length - before.lastIndexOf('\n') - 1 - JSON.stringify(key).length - 2;
  const indent = '\n' + ' '.repeat(depth + 2);
  yield before + '[';
  let first = true;
  for (const item of items) {
    const sep = (first ? '' : ',') + indent;
    if (item instanceof StreamedJson) {
      // an item with an array of its own streamed (a huge turn's children): its pieces, indented to its place
      let head = true;
      for (const piece of jsonWithStreamedArray(item.obj, item.key, item.items, stringify, item.after)) {
        yield (head ? sep : '') + piece.replace(/\n/g, indent);
        head = false;
      }
    } else yield sep + stringify(item).replace(/\n/g, indent);
    first = false;
  }
  let rest = text.slice(at + mark.length);
  if (after) {
    // the text of obj ends with its closing brace on a line of its own: the late keys go before it, laid out as stringify lays out obj's keys
    let keys = '';
    for (const [k, v] of Object.entries(after())) if (v !== undefined) keys += `,\n  ${JSON.stringify(k)}: ${stringify(v).replace(/\n/g, '\n  ')}`;
    rest = rest.slice(0, rest.length - 2) + keys + '\n}';
  }
  yield (first ? ']' : indent.slice(0, -2) + ']') + rest;
}
