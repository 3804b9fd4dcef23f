/**
 * Id lists beyond PostgreSQL's 32767 bind parameters and beyond what PGlite
 * can compile as one `IN (...)` list (80,000 ids overflowed its stack), on
 * every backend: POST /messages/flags. Every id list reaches SQL as one
 * array parameter, so its length costs no parameters.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FlagBits } from "../../src/domain/Message.ts"
import type { MessageId } from "../../src/domain/Ids.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import { MessageRepo } from "../../src/ports/Repositories.ts"
import { Channels } from "../../src/services/Channels.ts"
import { MessageFlags } from "../../src/services/MessageFlags.ts"
import { channelMessage } from "../persistence/MessagesFixtures.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

/** Just past the protocol's bind parameter limit: each message is inserted, so the fewer the faster. */
const Received = 33_000
/** Unknown ids cost nothing to set up. */
const Unknown = 80_000

for (const backend of ["memory", "PGlite", "PostgreSQL"] as const) {
  describe(`large id lists on ${backend}`, () => {
    layer(backends[backend](), { timeout: "120 seconds" })((it) => {
      // Memory and PostgreSQL: on PGlite inserting the messages alone takes
      // half a minute, and its limit is the 80,000 ids below.
      if (backend !== "PGlite") {
        it.effect(`POST /messages/flags: ${Received} received and historical ids`, () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const channels = yield* Channels
          const repo = yield* MessageRepo
          const flags = yield* MessageFlags
          const channel = yield* channels.create(org.realm.id, { name: unique("big") })
          yield* channels.subscribe(channel.id, [org.member.user.id])
          const inserted = yield* (yield* MessageStore).insertMany(Array.from({ length: Received }, (_, i) => ({
            message: channelMessage(org.realm.id, org.owner.user.id, channel.id, "t", `m${i}`),
            recipients: [{ user_id: org.member.user.id, flags: FlagBits.read }]
          })))
          const ids: Array<MessageId> = inserted.map((m) => m.id)
          assert.strictEqual(new Set(ids).size, Received)

          // The member received every message: one update over all their rows.
          assert.deepStrictEqual(
            yield* flags.update(org.member, { messages: ids, op: "add", flag: "starred" }),
            { messages: ids }
          )
          const starred = yield* repo.listByFlags(org.member.user.id, FlagBits.starred, FlagBits.starred)
          assert.strictEqual(starred.length, Received)
          // Marking unread reads every message for the event's details.
          yield* flags.update(org.member, { messages: ids, op: "remove", flag: "read" })
          const unread = yield* repo.listByFlags(org.member.user.id, FlagBits.read, 0)
          assert.strictEqual(unread.length, Received)

          // Another member stars the public channel's history: every message
          // gets a historical row first.
          yield* flags.update(org.other, { messages: ids, op: "add", flag: "starred" })
          const historical = yield* repo.listByFlags(
            org.other.user.id,
            FlagBits.starred | FlagBits.historical,
            FlagBits.starred | FlagBits.historical
          )
          assert.strictEqual(historical.length, Received)
        }))
      }

      it.effect(`POST /messages/flags: ${Unknown} unknown ids are Zulip's "Invalid message(s)"`, () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const flags = yield* MessageFlags
          const unknown = Array.from({ length: Unknown }, (_, i) => 1_000_000_000 + i)
          const error = yield* Effect.flip(flags.update(org.member, { messages: unknown, op: "add", flag: "starred" }))
          assert.strictEqual(error._tag, "InvalidMessages")
          assert.strictEqual(error.msg, "Invalid message(s)")
        }))
    })
  })
}
