/** How much text is gathered before a write. */
const WRITE_BYTES = 64 * 1024;

/**
 * Writes `{ [key]: [...items], ...rest }` + "\n" exactly as
 * `JSON.stringify(that, null, 2) + '\n'` would, one item at a time, in writes
 * of ~64 KB. Why: at 100,000 sessions `list --json` built one 56 MB string
 * and then a 56 MB buffer of it (~0.5 s here, most of it memory new to the
 * process) and held every summary at once; now only one write's worth is held.
 * `items` may be a generator: each item is made when it is written.
 */
export function writeJsonWithArray(write: (s: string) => void, key: string, items: Iterable<unknown>, rest: Record<string, unknown> = {}): void {
  // a string from JSON.stringify holds no raw newline: every "\n" is layout, indented one level per nesting
  const nested = (v: unknown, pad: string) => (JSON.stringify(v, null, 2) ?? 'null').replace(/\n/g, '\n' + pad);
  let buf = `{\n  ${JSON.stringify(key)}: [`;
  let first = true;
  for (const item of items) {
    buf += (first ? '\n    ' : ',\n    ') + nested(item, '    ');
    first = false;
    if (buf.length >= WRITE_BYTES) {
      write(buf);
      buf = '';
    }
  }
  buf += first ? ']' : '\n  ]';
  for (const [k, v] of Object.entries(rest)) {
    const text = JSON.stringify(v, null, 2);
    if (text !== undefined) buf += `,\n  ${JSON.stringify(k)}: ${text.replace(/\n/g, '\n  ')}`;
  }
  write(buf + '\n}\n');
}
