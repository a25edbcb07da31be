// A map that keeps what was used most recently within a budget: a number of entries, or their total size.

/** Past the budget, entries are forgotten least recently used first (`get` and `set` count as use). */
export class Lru<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private used = 0;

  /** `budget`: the most entries kept when each has the default size 1, else the most total size. */
  constructor(private readonly budget: number) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value, without counting this as a use. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: K, value: V, size = 1): void {
    this.delete(key);
    this.entries.set(key, { value, size });
    this.used += size;
    this.trim(key);
  }

  /** Changes the size of an entry (once it is known), forgetting others when that passes the budget. */
  resize(key: K, size: number): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.used += size - entry.size;
    entry.size = size;
    this.trim(key);
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.used -= entry.size;
  }

  /** Forgets the oldest entries other than `kept` until the budget holds. */
  private trim(kept: K): void {
    for (const key of this.entries.keys()) {
      if (this.used <= this.budget) return;
      if (key !== kept) this.delete(key);
    }
  }
}
