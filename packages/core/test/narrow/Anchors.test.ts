/**
 * Zulip's anchor rules (`limit_query_to_range`, `post_process_limited_query`,
 * `find_first_unread_anchor`) on every backend: which messages come back and
 * the found_* flags.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type { ChannelId } from "../../src/domain/Ids.ts"
import { FlagBits } from "../../src/domain/Message.ts"
import type { Anchor, SearchQuery } from "../../src/ports/MessageSearch.ts"
import { LARGER_THAN_MAX_MESSAGE_ID, MessageSearch } from "../../src/ports/MessageSearch.ts"
import type { Narrow, Term } from "../../src/narrow/Narrow.ts"
import { emptyNarrow } from "../../src/narrow/Narrow.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import type { Repos } from "../persistence/MessagesFixtures.ts"
import { channelMessage, directMessage, seedOrganization } from "../persistence/MessagesFixtures.ts"
import { memorySearchLayer, sqlSearchLayer } from "./NarrowWorld.ts"

const { read } = FlagBits

/**
 * 1: muted channel, unread. 2-11: general, read but 5 and 8. 12: general,
 * no row for the viewer. 13: a direct message to the viewer, unread.
 */
const seed = Effect.gen(function*() {
  const repo = yield* MessageStore
  const { realm, users: [viewer, other], channels: [general, muted] } = yield* seedOrganization({
    users: 2,
    channels: [{}, {}]
  })
  const row = (flags: number) => [{ user_id: viewer!.id, flags }, { user_id: other!.id, flags: read }]
  const first = yield* repo.insert(channelMessage(realm.id, other!.id, muted!.id, "t", "m1"), row(0))
  for (let id = 2; id <= 11; id++) {
    yield* repo.insert(
      channelMessage(realm.id, other!.id, general!.id, "t", `m${id}`),
      row(id === 5 || id === 8 ? 0 : read)
    )
  }
  yield* repo.insert(channelMessage(realm.id, other!.id, general!.id, "t", "m12"), [{ user_id: other!.id, flags: 0 }])
  yield* repo.insert(directMessage(realm.id, other!.id, [viewer!.id], "m13"), row(0))
  // Ids are offsets from the first message, so blocks sharing a database stay independent.
  return { realm, viewer: viewer!, general: general!.id, muted: muted!.id, base: first.id - 1 }
})

const narrowOf = (terms: ReadonlyArray<Term>, excluded: ReadonlyArray<ChannelId> = []): Narrow => ({
  ...emptyNarrow,
  terms,
  firstUnreadExcludedChannelIds: excluded
})

const anchorSuite = (name: string, makeLayer: () => Layer.Layer<Repos | MessageSearch, unknown>) =>
  describe(name, () => {
    layer(makeLayer(), { timeout: "60 seconds" })("anchors", (it) => {
      it.effect("ranges and found_* flags follow Zulip", () =>
        Effect.gen(function*() {
          const search = yield* MessageSearch
          const w = yield* seed
          const id = (n: number) => w.base + n
          const query = (narrow: Narrow = emptyNarrow, history: ReadonlyArray<ChannelId> | null = null): SearchQuery => ({
            realmId: w.realm.id,
            viewerId: w.viewer.id,
            narrow,
            historyChannelIds: history
          })
          const fetch = (
            anchor: Anchor,
            numBefore: number,
            numAfter: number,
            includeAnchor = true,
            q: SearchQuery = query()
          ) =>
            search.fetchRange(q, { anchor, numBefore, numAfter, includeAnchor }).pipe(Effect.map((r) => ({
              ids: r.messages.map((m) => m.message.id - w.base),
              anchor: r.anchor > 0 && r.anchor < LARGER_THAN_MAX_MESSAGE_ID ? r.anchor - w.base : r.anchor,
              found: [r.found_anchor, r.found_oldest, r.found_newest]
            })))
          const at = (n: number): Anchor => ({ _tag: "id", id: id(n) })
          const L = LARGER_THAN_MAX_MESSAGE_ID

          // newest: found_newest, never found_anchor.
          assert.deepStrictEqual(yield* fetch({ _tag: "newest" }, 3, 0), {
            ids: [10, 11, 13],
            anchor: L,
            found: [false, false, true]
          })
          assert.deepStrictEqual(yield* fetch({ _tag: "newest" }, 50, 5), {
            ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13],
            anchor: L,
            found: [false, true, true]
          })
          // oldest: found_oldest.
          assert.deepStrictEqual(yield* fetch({ _tag: "oldest" }, 0, 3), {
            ids: [1, 2, 3],
            anchor: 0,
            found: [false, true, false]
          })
          // Both sides around a matching anchor.
          assert.deepStrictEqual(yield* fetch(at(6), 2, 2), { ids: [4, 5, 6, 7, 8], anchor: 6, found: [true, false, false] })
          // One side, anchor excluded.
          assert.deepStrictEqual(yield* fetch(at(6), 2, 0, false), { ids: [4, 5], anchor: 6, found: [false, false, false] })
          assert.deepStrictEqual(yield* fetch(at(6), 0, 2, false), { ids: [7, 8], anchor: 6, found: [false, false, false] })
          assert.deepStrictEqual(yield* fetch(at(6), 2, 0, true), { ids: [4, 5, 6], anchor: 6, found: [true, false, false] })
          // Neither side: the anchor row alone (Zulip fetches it even when excluded).
          assert.deepStrictEqual(yield* fetch(at(6), 0, 0), { ids: [6], anchor: 6, found: [true, false, false] })
          assert.deepStrictEqual(yield* fetch(at(6), 0, 0, false), { ids: [6], anchor: 6, found: [true, false, false] })
          // Short sides set found_oldest / found_newest.
          assert.deepStrictEqual(yield* fetch(at(2), 5, 20), {
            ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13],
            anchor: 2,
            found: [true, true, true]
          })
          // An anchor past every message.
          assert.deepStrictEqual(yield* fetch({ _tag: "id", id: id(100) }, 2, 2), {
            ids: [11, 13],
            anchor: 100,
            found: [false, false, true]
          })
          // Out-of-range ids are clamped like Zulip's parse_anchor_value.
          assert.deepStrictEqual(yield* fetch({ _tag: "id", id: 1e17 }, 1, 1), { ids: [13], anchor: L, found: [false, false, true] })
          assert.deepStrictEqual(yield* fetch({ _tag: "id", id: -5 }, 2, 2), { ids: [1, 2], anchor: 0, found: [false, true, false] })
          // An anchor the narrow does not match.
          const unread = query(narrowOf([{ _tag: "Is", flag: "unread", negated: false }]))
          assert.deepStrictEqual(yield* fetch(at(6), 1, 1, true, unread), { ids: [5, 8], anchor: 6, found: [false, false, false] })
        }))

      it.effect("first_unread: the oldest unread row of the narrow, muted channels skipped when asked; else newest", () =>
        Effect.gen(function*() {
          const search = yield* MessageSearch
          const w = yield* seed
          const first = (narrow: Narrow, numBefore = 1, numAfter = 1) =>
            search.fetchRange(
              { realmId: w.realm.id, viewerId: w.viewer.id, narrow, historyChannelIds: null },
              { anchor: { _tag: "first_unread" }, numBefore, numAfter, includeAnchor: true }
            )
          const plain = yield* first(emptyNarrow)
          assert.strictEqual(plain.anchor, w.base + 1)
          assert.deepStrictEqual(plain.messages.map((m) => m.message.id - w.base), [1, 2])
          assert.deepStrictEqual([plain.found_anchor, plain.found_oldest, plain.found_newest], [true, true, false])
          const everything: Term = { _tag: "Is", flag: "followed", negated: true }
          assert.strictEqual((yield* first(narrowOf([everything], [w.muted]))).anchor, w.base + 5)
          const none = yield* first(narrowOf([{ _tag: "Id", messageId: w.base + 2, negated: false }]), 5, 5)
          assert.strictEqual(none.anchor, LARGER_THAN_MAX_MESSAGE_ID)
          assert.deepStrictEqual(none.messages.map((m) => m.message.id - w.base), [2])
          assert.deepStrictEqual([none.found_anchor, none.found_oldest, none.found_newest], [false, true, true])
        }))

      it.effect("history: channel messages without a row come back read and historical", () =>
        Effect.gen(function*() {
          const search = yield* MessageSearch
          const w = yield* seed
          const narrow = narrowOf([{ _tag: "Channel", channelId: w.general, negated: false }])
          const q = (history: ReadonlyArray<ChannelId> | null) => ({
            realmId: w.realm.id,
            viewerId: w.viewer.id,
            narrow,
            historyChannelIds: history
          })
          const options = { anchor: { _tag: "newest" } as const, numBefore: 50, numAfter: 0, includeAnchor: true }
          const rows = yield* search.fetchRange(q(null), options)
          assert.deepStrictEqual(rows.messages.map((m) => m.message.id - w.base), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
          const history = yield* search.fetchRange(q([w.general]), options)
          assert.deepStrictEqual(history.messages.map((m) => m.message.id - w.base), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
          assert.deepStrictEqual(history.messages.map((m) => m.flags), [
            ...[2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((n) => n === 5 || n === 8 ? 0 : read),
            read | FlagBits.historical
          ])
          // first_unread reads rows only, even with history.
          const firstUnread = yield* search.fetchRange(q([w.general]), { ...options, anchor: { _tag: "first_unread" } })
          assert.strictEqual(firstUnread.anchor, w.base + 5)
          const byIds = yield* search.fetchIds(q([w.general]), [w.base + 13, w.base + 12, w.base + 3, 99_999])
          assert.deepStrictEqual(byIds.map((m) => [m.message.id - w.base, m.flags]), [
            [3, read],
            [12, read | FlagBits.historical]
          ])
          const rowsOnly = yield* search.fetchIds({ ...q(null), narrow: emptyNarrow }, [
            w.base + 13,
            w.base + 12,
            w.base + 1
          ])
          assert.deepStrictEqual(rowsOnly.map((m) => m.message.id - w.base), [1, 13])
        }))
    })
  })

anchorSuite("memory", memorySearchLayer)
anchorSuite("PGlite", () => sqlSearchLayer(TestDatabase.pgliteMigratedLayer()))
anchorSuite("PostgreSQL", () => sqlSearchLayer(TestDatabase.postgresLayer()))
