/**
 * A set of ids kept in ascending order, the in-memory counterpart of a SQL
 * B-tree index on `(…, id)`: adding, removing and finding where a range
 * starts cost the logarithm of the size plus one chunk, and a range is read
 * from there in either direction, so a page costs its own length whatever
 * the set holds. It records nothing for rollbacks: its owner
 * (`MessageTables`) journals its writes as a whole.
 *
 * The ids are held in chunks of at most `maxChunk` (512): ids mostly arrive in
 * ascending order (a new message has the highest id) and go to the end of
 * the last chunk, and a removal in the middle moves one chunk's entries,
 * not the whole set's.
 *
 * @internal
 */
export class SortedIds {
  /** The most ids a chunk holds before it splits (tests make it small, to split often). */
  private readonly maxChunk: number
  private readonly chunks: Array<Array<number>> = []
  private count = 0

  constructor(maxChunk = 512) {
    this.maxChunk = maxChunk
  }

  get size(): number {
    return this.count
  }

  /** The lowest id, if any. */
  first(): number | undefined {
    return this.chunks[0]?.[0]
  }

  /** The highest id, if any. */
  last(): number | undefined {
    return this.chunks.at(-1)?.at(-1)
  }

  has(id: number): boolean {
    const c = this.chunkAtOrAfter(id)
    if (c === this.chunks.length) return false
    const chunk = this.chunks[c]!
    const i = lowerBound(chunk, id)
    return chunk[i] === id
  }

  /** Adds `id`; whether it was absent. */
  add(id: number): boolean {
    const chunks = this.chunks
    const last = chunks[chunks.length - 1]
    // The common case: a new highest id.
    if (last === undefined || last[last.length - 1]! < id) {
      if (last === undefined || last.length >= this.maxChunk) chunks.push([id])
      else last.push(id)
      this.count++
      return true
    }
    const c = this.chunkAtOrAfter(id)
    const chunk = chunks[c]!
    const i = lowerBound(chunk, id)
    if (chunk[i] === id) return false
    chunk.splice(i, 0, id)
    if (chunk.length > this.maxChunk) chunks.splice(c + 1, 0, chunk.splice(chunk.length >>> 1))
    this.count++
    return true
  }

  /** Removes `id`; whether it was present. */
  delete(id: number): boolean {
    const c = this.chunkAtOrAfter(id)
    if (c === this.chunks.length) return false
    const chunk = this.chunks[c]!
    const i = lowerBound(chunk, id)
    if (chunk[i] !== id) return false
    chunk.splice(i, 1)
    if (chunk.length === 0) this.chunks.splice(c, 1)
    this.count--
    return true
  }

  /** The ids from the first one at or above `from`, ascending. */
  *ascending(from: number = Number.NEGATIVE_INFINITY): Generator<number, void, undefined> {
    const chunks = this.chunks
    let c = this.chunkAtOrAfter(from)
    if (c === chunks.length) return
    let i = lowerBound(chunks[c]!, from)
    for (; c < chunks.length; c++, i = 0) {
      const chunk = chunks[c]!
      for (; i < chunk.length; i++) yield chunk[i]!
    }
  }

  /** The ids from the last one at or below `upTo`, descending. */
  *descending(upTo: number = Number.POSITIVE_INFINITY): Generator<number, void, undefined> {
    const chunks = this.chunks
    // The chunk holding the first id above `upTo`, or the end: start just before it.
    let c = this.chunkAtOrAfter(upTo)
    let i: number
    if (c === chunks.length) {
      c--
      i = c < 0 ? -1 : chunks[c]!.length - 1
    } else {
      i = lowerBound(chunks[c]!, upTo)
      if (chunks[c]![i] !== upTo) i--
    }
    for (; c >= 0; c--, i = c >= 0 ? chunks[c]!.length - 1 : -1) {
      const chunk = chunks[c]!
      for (; i >= 0; i--) yield chunk[i]!
    }
  }

  /** The index of the first chunk whose last id is at or above `id` (the chunk count when none is). */
  private chunkAtOrAfter(id: number): number {
    const chunks = this.chunks
    let low = 0
    let high = chunks.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (chunks[middle]!.at(-1)! < id) low = middle + 1
      else high = middle
    }
    return low
  }
}

/** The index of the first entry at or above `id` in an ascending array. */
const lowerBound = (chunk: ReadonlyArray<number>, id: number): number => {
  let low = 0
  let high = chunk.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (chunk[middle]! < id) low = middle + 1
    else high = middle
  }
  return low
}
