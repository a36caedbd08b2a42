// A small least-recently-used cache bounded by total weight (entries count 1 each unless weighed).

export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private totalWeight = 0;

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Re-insert so Map iteration order keeps the most recent use last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.totalWeight -= old.weight;
    }
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return; // too big to keep; callers still get their value
    this.entries.set(key, { value, weight });
    this.totalWeight += weight;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.totalWeight <= this.maxWeight) break;
      this.entries.delete(oldestKey);
      this.totalWeight -= oldest.weight;
    }
  }

  getOrCreate(key: K, create: () => V): V {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = create();
    this.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
