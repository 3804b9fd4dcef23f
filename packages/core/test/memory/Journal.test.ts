import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { Journal, JournaledMap, JournaledSet } from "../../src/memory/internal/Journal.ts"
import { propertyOptions } from "../support/Properties.ts"

// A few keys, so that writes meet the same entries again.
const Key = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5 }))
const Step = Schema.Union([
  Schema.Struct({ op: Schema.Literal("set"), key: Key, value: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3 })) }),
  Schema.Struct({ op: Schema.Literal("delete"), key: Key }),
  Schema.Struct({ op: Schema.Literal("clear") }),
  Schema.Struct({ op: Schema.Literal("begin") }),
  Schema.Struct({ op: Schema.Literal("end"), ok: Schema.Boolean })
])
const script = Arbitrary.schema(Schema.Array(Step).check(Schema.isMinLength(6)))

/**
 * Runs `steps` on journaled containers and on plain ones, where a
 * transaction or savepoint that fails goes back to a copy taken when it
 * began; after every step both hold the same entries in the same order.
 */
const replay = (steps: ReadonlyArray<typeof Step.Type>) => {
  const journal = new Journal()
  const map = new JournaledMap<number, number>(journal)
  const set = new JournaledSet<number>(journal)
  let model = { map: new Map<number, number>(), set: new Set<number>() }
  const copies: Array<{ readonly mark: number; readonly model: typeof model }> = []
  const copy = () => ({ map: new Map(model.map), set: new Set(model.set) })
  const end = (ok: boolean) => {
    const { mark, model: before } = copies.pop()!
    if (ok) journal.commit()
    else {
      journal.rollback(mark)
      model = before
    }
  }
  // Writes outside a transaction too: recorded by none.
  for (const step of steps) {
    switch (step.op) {
      case "set":
        map.set(step.key, step.value)
        set.add(step.key)
        model.map.set(step.key, step.value)
        model.set.add(step.key)
        break
      case "delete":
        map.delete(step.key)
        set.delete(step.key)
        model.map.delete(step.key)
        model.set.delete(step.key)
        break
      case "clear":
        map.clear()
        set.clear()
        model.map.clear()
        model.set.clear()
        break
      case "begin":
        copies.push({ mark: journal.begin(), model: copy() })
        break
      case "end":
        if (copies.length > 0) end(step.ok)
        break
    }
    assert.deepStrictEqual(Array.from(map), Array.from(model.map))
    assert.deepStrictEqual(Array.from(set), Array.from(model.set))
    assert.strictEqual(journal.recording, copies.length > 0)
  }
  while (copies.length > 0) end(false)
  assert.deepStrictEqual(Array.from(map), Array.from(model.map))
  assert.deepStrictEqual(Array.from(set), Array.from(model.set))
}

describe("Journal", () => {
  it("a rollback undoes a transaction's writes and puts removed entries back in their place", () => {
    const journal = new Journal()
    const map = new JournaledMap<string, number>(journal)
    for (const [key, value] of [["a", 1], ["b", 2], ["c", 3]] as const) map.set(key, value)
    const mark = journal.begin()
    map.delete("a")
    map.set("b", 20)
    map.set("d", 4)
    const inner = journal.begin()
    map.clear()
    map.set("e", 5)
    journal.rollback(inner)
    assert.deepStrictEqual(Array.from(map), [["b", 20], ["c", 3], ["d", 4]])
    journal.rollback(mark)
    assert.deepStrictEqual(Array.from(map), [["a", 1], ["b", 2], ["c", 3]])
    assert.isFalse(journal.recording)
    // A savepoint that succeeded is undone with its transaction, order and all.
    const outer = journal.begin()
    journal.begin()
    map.delete("a")
    journal.commit()
    journal.rollback(outer)
    assert.deepStrictEqual(Array.from(map), [["a", 1], ["b", 2], ["c", 3]])
    // Outside a transaction nothing is recorded: a later rollback does not reach it.
    map.delete("c")
    journal.rollback(journal.begin())
    assert.deepStrictEqual(Array.from(map), [["a", 1], ["b", 2]])
  })

  it.prop("any script of writes, transactions and savepoints: a failed one leaves what was there when it began", {
    steps: script
  }, ({ steps }) => replay(steps), propertyOptions(500))
})
