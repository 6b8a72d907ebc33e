// What changed, in order: a reader keeps the version it last saw and asks for
// the keys changed since, so derived data is updated from what changed
// instead of recomputed from the whole root (which may hold 100,000
// sessions). Bounded: past
// MAX_KEYS the oldest half is dropped, and a reader that far behind is told
// to start over (undefined).
const MAX_KEYS = 1_000_000;

export class Journal {
  private keys: string[] = [];
  /** the version of keys[0] */
  private base = 0;

  get version(): number {
    return this.base + this.keys.length;
  }

  note(key: string): void {
    this.keys.push(key);
    if (this.keys.length > MAX_KEYS) {
      const drop = this.keys.length - MAX_KEYS / 2;
      this.keys.splice(0, drop);
      this.base += drop;
    }
  }

  /** The keys changed since `version` (repeats possible), or undefined when they are no longer known: recompute all. */
  since(version: number): readonly string[] | undefined {
    if (version < this.base || version > this.version) return undefined;
    return this.keys.slice(version - this.base);
  }
}
