/**
 * A map that holds at most `capacity` entries, dropping the least recently
 * used one when a new key would go past it: the bound of every in-process
 * cache whose keys come from clients or data (credentials, hosts, dates,
 * organizations). A cache built on it recomputes an evicted value when its
 * key comes back, so eviction costs time, never correctness. The bounds in
 * use are listed in docs/memory.md.
 *
 * A JavaScript `Map` iterates in insertion order, so the first key is the
 * least recently used once a hit moves its key to the end.
 *
 * @since 0.1.0
 */

/** @category models */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>()
  /** The most entries kept; at least 1. */
  readonly capacity: number
  /** Called with each entry dropped to make room (not on `delete` or `clear`). */
  private readonly onEvict: ((key: K, value: V) => void) | undefined

  constructor(capacity: number, onEvict?: (key: K, value: V) => void) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruMap capacity must be a positive integer, not ${capacity}`)
    this.capacity = capacity
    this.onEvict = onEvict
  }

  get size(): number {
    return this.map.size
  }

  has(key: K): boolean {
    return this.map.has(key)
  }

  /** The value, marked as the most recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key)
    if (value === undefined) return undefined
    this.map.delete(key)
    this.map.set(key, value)
    return value
  }

  set(key: K, value: V): this {
    if (this.map.has(key)) this.map.delete(key)
    else if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next()
      if (!oldest.done) {
        const evicted = this.map.get(oldest.value) as V
        this.map.delete(oldest.value)
        this.onEvict?.(oldest.value, evicted)
      }
    }
    this.map.set(key, value)
    return this
  }

  delete(key: K): boolean {
    return this.map.delete(key)
  }

  clear(): void {
    this.map.clear()
  }

  /** The kept value of `key`, else `compute(key)`, kept (undefined is never kept). */
  getOrCompute(key: K, compute: (key: K) => V): V {
    const kept = this.get(key)
    if (kept !== undefined) return kept
    const value = compute(key)
    if (value !== undefined) this.set(key, value)
    return value
  }

  /** Keys from the least to the most recently used. */
  keys(): IterableIterator<K> {
    return this.map.keys()
  }

  /** Values from the least to the most recently used (reading them marks none as used). */
  values(): IterableIterator<V> {
    return this.map.values()
  }
}

/** @category constructors */
export const make = <K, V>(capacity: number, onEvict?: (key: K, value: V) => void): LruMap<K, V> => new LruMap(capacity, onEvict)
