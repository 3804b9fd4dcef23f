/**
 * Rollback for the in-memory tables: while a transaction is open, every
 * write to a journaled map or set records how to undo it, and a rollback
 * undoes the writes made since its mark, newest first. A transaction then
 * costs what it writes, where a copy of every table at its start cost what
 * the whole database holds (a send after 4,000 messages: 5.8 ms, most of it
 * copying).
 *
 * @internal
 */

/** A journaled container that can put its entries back in a given order. */
interface Ordered {
  keysInOrder(): Array<unknown>
  reorder(keys: ReadonlyArray<unknown>): void
}

/**
 * The undo records of the open transactions; nothing is recorded outside
 * them. Undoing a removal puts the entry back last, so each container that
 * loses an entry inside a transaction or savepoint has its order taken
 * first (once per level), and a rollback restores it: iteration order is
 * insertion order, which the repositories' listings follow.
 */
export class Journal {
  private readonly undo: Array<() => void> = []
  /** Per open level (outermost first), the containers' orders taken before their first removal. */
  private readonly orders: Array<Map<Ordered, Array<unknown>>> = []

  /** Whether a transaction is open (writes are recorded). */
  get recording(): boolean {
    return this.orders.length > 0
  }

  /** Opens a transaction or savepoint: the mark to roll back to. */
  begin(): number {
    this.orders.push(new Map())
    return this.undo.length
  }

  /** Closes a transaction or savepoint that succeeded: its writes stay (an outer one may still undo them). */
  commit(): void {
    const orders = this.orders.pop()!
    const outer = this.orders.at(-1)
    if (outer === undefined) {
      this.undo.length = 0
      return
    }
    // An order taken here is the outer level's too when it took none: it had removed nothing before.
    for (const [container, keys] of orders) if (!outer.has(container)) outer.set(container, keys)
  }

  /** Closes a transaction or savepoint that failed: its writes are undone, newest first, and orders restored. */
  rollback(mark: number): void {
    for (let i = this.undo.length - 1; i >= mark; i--) this.undo[i]!()
    this.undo.length = mark
    for (const [container, keys] of this.orders.pop()!) container.reorder(keys)
    if (this.orders.length === 0) this.undo.length = 0
  }

  record(undo: () => void): void {
    this.undo.push(undo)
  }

  /** Called before a container loses an entry. */
  removing(container: Ordered): void {
    const level = this.orders.at(-1)!
    if (!level.has(container)) level.set(container, container.keysInOrder())
  }
}

/** A Map whose writes inside a transaction can be undone. */
export class JournaledMap<K, V> extends Map<K, V> implements Ordered {
  readonly journal: Journal

  constructor(journal: Journal) {
    // Filled after construction: Map's constructor would call `set` before
    // `journal` is assigned.
    super()
    this.journal = journal
  }

  override set(key: K, value: V): this {
    if (this.journal.recording) {
      if (super.has(key)) {
        const previous = super.get(key) as V
        this.journal.record(() => super.set(key, previous))
      } else {
        this.journal.record(() => super.delete(key))
      }
    }
    return super.set(key, value)
  }

  override delete(key: K): boolean {
    if (this.journal.recording && super.has(key)) {
      this.journal.removing(this)
      const previous = super.get(key) as V
      this.journal.record(() => super.set(key, previous))
    }
    return super.delete(key)
  }

  // Inside a transaction a clear is its deletes, each undone as one.
  override clear(): void {
    if (this.journal.recording) for (const key of Array.from(super.keys())) this.delete(key)
    else super.clear()
  }

  keysInOrder(): Array<unknown> {
    return Array.from(super.keys())
  }

  reorder(keys: ReadonlyArray<unknown>): void {
    const entries: Array<[K, V]> = []
    for (const key of keys as ReadonlyArray<K>) if (super.has(key)) entries.push([key, super.get(key) as V])
    // Anything else (none: what the level added is undone) keeps its place after them.
    const listed = new Set(keys)
    for (const [key, value] of super.entries()) if (!listed.has(key)) entries.push([key, value])
    super.clear()
    for (const [key, value] of entries) super.set(key, value)
  }
}

/** A Set whose writes inside a transaction can be undone. */
export class JournaledSet<T> extends Set<T> implements Ordered {
  readonly journal: Journal

  constructor(journal: Journal) {
    super()
    this.journal = journal
  }

  override add(value: T): this {
    if (this.journal.recording && !super.has(value)) this.journal.record(() => super.delete(value))
    return super.add(value)
  }

  override delete(value: T): boolean {
    if (this.journal.recording && super.has(value)) {
      this.journal.removing(this)
      this.journal.record(() => super.add(value))
    }
    return super.delete(value)
  }

  // Inside a transaction a clear is its deletes, each undone as one.
  override clear(): void {
    if (this.journal.recording) for (const value of Array.from(super.values())) this.delete(value)
    else super.clear()
  }

  keysInOrder(): Array<unknown> {
    return Array.from(super.values())
  }

  reorder(values: ReadonlyArray<unknown>): void {
    const ordered = (values as ReadonlyArray<T>).filter((value) => super.has(value))
    const listed = new Set(values)
    for (const value of super.values()) if (!listed.has(value)) ordered.push(value)
    super.clear()
    for (const value of ordered) super.add(value)
  }
}
