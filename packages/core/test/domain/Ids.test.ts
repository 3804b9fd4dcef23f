import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Ids from "../../src/domain/Ids.ts"
import * as ScheduledMessage from "../../src/domain/ScheduledMessage.ts"

/** Every id: its schema and its checked constructor. */
const ids = [
  { name: "RealmId", schema: Ids.RealmId, make: Ids.realmId },
  { name: "UserId", schema: Ids.UserId, make: Ids.userId },
  { name: "GroupId", schema: Ids.GroupId, make: Ids.groupId },
  { name: "ChannelId", schema: Ids.ChannelId, make: Ids.channelId },
  { name: "MessageId", schema: Ids.MessageId, make: Ids.messageId },
  { name: "FolderId", schema: Ids.FolderId, make: Ids.folderId },
  { name: "ScheduledMessageId", schema: ScheduledMessage.ScheduledMessageId, make: ScheduledMessage.scheduledMessageId }
] as const

const valid = [1, 2, 1000, Number.MAX_SAFE_INTEGER]
const invalid = [0, -1, -0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]

describe("Ids", () => {
  for (const { make, name, schema } of ids) {
    describe(name, () => {
      it("the constructor keeps a positive safe integer as it is", () => {
        for (const n of valid) assert.strictEqual(make(n), n)
      })

      it("the constructor throws on anything else (a defect where the id is made)", () => {
        for (const n of invalid) assert.throws(() => make(n), `Not a ${name}: ${n}`)
      })

      it("makeOption: Some for an id, None for anything else (input from outside)", () => {
        for (const n of valid) assert.deepStrictEqual(schema.makeOption(n), Option.some(n))
        for (const n of invalid) assert.deepStrictEqual(schema.makeOption(n), Option.none(), `${name} ${n}`)
      })

      it("decoding from the edge accepts ids only: no strings, no fractions, no zero", () => {
        const decode = Schema.decodeUnknownOption(schema)
        assert.deepStrictEqual(decode(7), Option.some(7))
        for (const input of [...invalid, "7", null, undefined, {}, [7], 7n]) {
          assert.deepStrictEqual(decode(input), Option.none(), `${name} ${String(input)}`)
        }
      })
    })
  }

  it("brands keep one kind of id from standing in for another", () => {
    const takesUser = (id: Ids.UserId) => id
    // @ts-expect-error a channel id is not a user id
    takesUser(Ids.channelId(1))
    // @ts-expect-error a plain number is not a user id
    takesUser(1)
    assert.strictEqual(takesUser(Ids.userId(1)), 1)
  })
})
