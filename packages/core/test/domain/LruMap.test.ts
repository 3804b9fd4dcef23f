/**
 * The bounded map every in-process cache is kept in: it never holds more
 * than its capacity, drops the least recently used entry first, and a
 * cache built on it recomputes an evicted value, equal to the first.
 */
import { assert, describe, it } from "@effect/vitest"
import { LruMap } from "../../src/domain/LruMap.ts"
import { isoDate, keptFormats } from "../../src/views/UserView.ts"

describe("LruMap", () => {
  it("holds at most its capacity, whatever is inserted", () => {
    const evicted: Array<number> = []
    const map = new LruMap<number, string>(3, (key) => evicted.push(key))
    for (let i = 0; i < 1000; i++) {
      map.set(i, `v${i}`)
      assert.isAtMost(map.size, 3)
    }
    assert.deepStrictEqual([...map.keys()], [997, 998, 999])
    assert.deepStrictEqual(evicted, Array.from({ length: 997 }, (_, i) => i))
  })

  it("drops the least recently used: a read or a rewrite keeps an entry", () => {
    const map = new LruMap<string, number>(2)
    map.set("a", 1).set("b", 2)
    assert.strictEqual(map.get("a"), 1) // a is now the most recently used
    map.set("c", 3)
    assert.deepStrictEqual([...map.keys()], ["a", "c"])
    assert.isFalse(map.has("b"))
    map.set("a", 10) // rewriting marks it used too
    map.set("d", 4)
    assert.deepStrictEqual([...map.keys()], ["a", "d"])
    assert.strictEqual(map.get("a"), 10)
    // `has` and `values` mark nothing.
    assert.isTrue(map.has("d"))
    assert.deepStrictEqual([...map.values()], [4, 10])
  })

  it("getOrCompute computes once per stay, and again, equal, after an eviction", () => {
    const computed: Array<number> = []
    const map = new LruMap<number, string>(2)
    const square = (n: number) => map.getOrCompute(n, (k) => (computed.push(k), String(k * k)))
    assert.strictEqual(square(3), "9")
    assert.strictEqual(square(3), "9")
    assert.deepStrictEqual(computed, [3])
    square(4)
    square(5) // evicts 3
    assert.isFalse(map.has(3))
    assert.strictEqual(square(3), "9")
    assert.deepStrictEqual(computed, [3, 4, 5, 3])
  })

  it("refuses a capacity below one", () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) assert.throws(() => new LruMap(capacity), RangeError)
  })
})

describe("caches on LruMap", () => {
  it("a formatted date evicted by keptFormats others is formatted again, the same", () => {
    const first = isoDate(1_700_000_000_123)
    assert.strictEqual(first, "2023-11-14T22:13:20.123000+00:00")
    for (let i = 1; i <= keptFormats + 1; i++) isoDate(i * 1000)
    assert.strictEqual(isoDate(1_700_000_000_123), first)
  })
})
