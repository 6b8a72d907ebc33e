// One number for each key a root's tables are kept by (a log's path, or
// `mem:<id>`), given the first time the key is seen. The per-log tables
// (the store's sessions, the file index, the audit's results, the root
// model's items) are arrays over these numbers, so they share one hash table
// of the keys: a Map each was ~37 bytes an entry at 100,000 sessions, the
// array's slot is 8. A key keeps its number for the run, also once nothing
// holds a value for it (a deleted log that comes back has it again): the
// table grows with the paths a run has seen, as each Map did while they lived.

export class KeyTable {
  private readonly numbers = new Map<string, number>();
  private readonly keys: string[] = [];

  /** The number of `key`, or undefined when it was never added. */
  numberOf(key: string): number | undefined {
    return this.numbers.get(key);
  }

  /** The number of `key`, given now when it has none. */
  add(key: string): number {
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.keys.length;
      this.numbers.set(key, n);
      this.keys.push(key);
    }
    return n;
  }

  /** The key numbered `n`. */
  keyAt(n: number): string {
    return this.keys[n];
  }

  /** How many keys have a number. */
  get size(): number {
    return this.keys.length;
  }
}

/**
 * A Map from key to value kept as an array over a KeyTable's numbers. It
 * iterates in the order of the numbers (the order the table first saw the
 * keys, whichever map added them), not in the order of its own sets: a key
 * deleted and set again keeps its place. For tables that hold a value for
 * most of the keys (an iteration passes over every number up to the highest
 * one set). `undefined` is no value: set() refuses it.
 */
export class NumberedMap<V> implements Map<string, V> {
  private readonly slots: Array<V | undefined> = [];
  private count = 0;

  constructor(readonly table: KeyTable) {}

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    const n = this.table.numberOf(key);
    return n === undefined ? undefined : this.slots[n];
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): this {
    if (value === undefined) throw new TypeError('NumberedMap: undefined is no value');
    const n = this.table.add(key);
    const slots = this.slots;
    // (filled up to n, so the array stays without holes: V8 keeps it packed)
    while (slots.length < n) slots.push(undefined);
    if (slots[n] === undefined) this.count++;
    slots[n] = value;
    return this;
  }

  delete(key: string): boolean {
    const n = this.table.numberOf(key);
    if (n === undefined || this.slots[n] === undefined) return false;
    this.slots[n] = undefined;
    this.count--;
    return true;
  }

  clear(): void {
    this.slots.length = 0;
    this.count = 0;
  }

  /** The values in number order, as an array (no iterator: a store's list of 100,000 sessions). */
  valueList(): V[] {
    const out: V[] = [];
    for (const v of this.slots) if (v !== undefined) out.push(v);
    return out;
  }

  *entries(): MapIterator<[string, V]> {
    const slots = this.slots;
    for (let n = 0; n < slots.length; n++) {
      const v = slots[n];
      if (v !== undefined) yield [this.table.keyAt(n), v];
    }
  }

  *keys(): MapIterator<string> {
    const slots = this.slots;
    for (let n = 0; n < slots.length; n++) if (slots[n] !== undefined) yield this.table.keyAt(n);
  }

  *values(): MapIterator<V> {
    const slots = this.slots;
    for (let n = 0; n < slots.length; n++) {
      const v = slots[n];
      if (v !== undefined) yield v;
    }
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  get [Symbol.toStringTag](): string {
    return 'NumberedMap';
  }
}
