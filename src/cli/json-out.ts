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
