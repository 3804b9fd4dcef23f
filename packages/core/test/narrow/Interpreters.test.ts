/**
 * The two interpreters of a narrow agree: for random narrows, history modes
 * and anchors over the same seeded messages, the memory MessageSearch and
 * the SQL one (PGlite, and one run on PostgreSQL) return the same messages,
 * flags, anchor and found_* flags. Also checks the in-memory text search
 * against PostgreSQL's own `to_tsvector` on the generated vocabulary.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { dmParticipants } from "../../src/domain/Message.ts"
import type { Anchor, FetchedRange, RangeOptions, SearchQuery } from "../../src/ports/MessageSearch.ts"
import type { HasOperand, IsOperand, Narrow, Term } from "../../src/narrow/Narrow.ts"
import { lexemes } from "../../src/narrow/NarrowPredicate.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import type { Backend, World } from "./NarrowWorld.ts"
import { memorySearchLayer, openBackend, prng, Separators, sqlSearchLayer, Topics, Vocabulary } from "./NarrowWorld.ts"
import { propertySeed } from "../support/Properties.ts"

const SEED = propertySeed
const SIZE = 80

const intBetween = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
const bool = Arbitrary.schema(Schema.Boolean)
const oneOf = <A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  intBetween(0, values.length - 1).pipe(Arbitrary.map((i) => values[i]!))
const subsetOf = <A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<Array<A>> =>
  Arbitrary.array(bool, { minLength: values.length, maxLength: values.length }).pipe(
    Arbitrary.map((keep) => values.filter((_, i) => keep[i]))
  )

const IsOperands: ReadonlyArray<IsOperand> = ["dm", "starred", "unread", "mentioned", "alerted", "resolved", "followed"]
const HasOperands: ReadonlyArray<HasOperand> = ["attachment", "image", "link", "reaction"]
const SearchWords = [...Vocabulary, "LUNCH", "done", "dinner", "missing", "!!!", "v2", "beta", "well", "ete", "été"]

/** Every kind of resolved term over the world's ids. */
const termArb = (world: World): Arbitrary.Arbitrary<Term> => {
  const { users, channels, viewer } = world
  const user = oneOf(users)
  const channel = oneOf(channels)
  return Arbitrary.all({ kind: intBetween(0, 11), negated: bool, seed: intBetween(0, 1_000_000) }).pipe(
    Arbitrary.flatMap(({ kind, negated, seed }): Arbitrary.Arbitrary<Term> => {
      switch (kind) {
        case 0:
          return channel.pipe(Arbitrary.map((channelId): Term => ({ _tag: "Channel", channelId, negated })))
        case 1:
          return subsetOf(channels).pipe(
            Arbitrary.map((channelIds): Term => ({ _tag: "ChannelSet", channelIds, negated }))
          )
        case 2:
          return oneOf([...Topics, "LUNCH", "✔ DONE"]).pipe(
            Arbitrary.map((topic): Term => ({ _tag: "Topic", topic, negated }))
          )
        case 3:
          return user.pipe(Arbitrary.map((userId): Term => ({ _tag: "Sender", userId, negated })))
        case 4:
          return subsetOf(users).pipe(Arbitrary.map((others): Term => ({
            _tag: "Dm",
            participants: seed % 7 === 0 ? [] : dmParticipants([...others, viewer]),
            negated
          })))
        case 5:
          return user.pipe(Arbitrary.map((u): Term => ({
            _tag: "DmIncluding",
            userIds: dmParticipants([u, viewer]),
            negated
          })))
        case 6:
          return user.pipe(Arbitrary.map((u): Term => ({ _tag: "GroupDm", userIds: dmParticipants([u, viewer]), negated })))
        case 7:
          return oneOf(IsOperands).pipe(Arbitrary.map((flag): Term => ({ _tag: "Is", flag, negated })))
        case 8:
          return oneOf(HasOperands).pipe(Arbitrary.map((what): Term => ({ _tag: "Has", what, negated })))
        case 9:
          return intBetween(0, world.maxId + 2).pipe(
            Arbitrary.map((messageId): Term => ({ _tag: "Id", messageId, negated }))
          )
        default:
          return Arbitrary.all({
            words: Arbitrary.array(oneOf(SearchWords), { minLength: 1, maxLength: 3 }),
            phrase: oneOf([null, ...SearchWords, "alpha, Beta", "a", "%", "_"])
          }).pipe(Arbitrary.map(({ phrase, words }): Term => {
            const query = phrase === null ? words.join(" ") : `${words.join(" ")} "${phrase}"`
            return { _tag: "Search", query, phrases: phrase === null ? [] : [phrase] }
          }))
      }
    })
  )
}

const anchorArb = (world: World): Arbitrary.Arbitrary<Anchor> =>
  intBetween(0, 5).pipe(Arbitrary.flatMap((kind): Arbitrary.Arbitrary<Anchor> => {
    switch (kind) {
      case 0:
        return Arbitrary.Constant({ _tag: "newest" })
      case 1:
        return Arbitrary.Constant({ _tag: "oldest" })
      case 2:
        return Arbitrary.Constant({ _tag: "first_unread" })
      default:
        return intBetween(-1, world.maxId + 3).pipe(Arbitrary.map((id): Anchor => ({ _tag: "id", id })))
    }
  }))

interface Case {
  readonly query: SearchQuery
  readonly options: RangeOptions
  readonly ids: ReadonlyArray<number>
}

const caseArb = (world: World): Arbitrary.Arbitrary<Case> =>
  Arbitrary.all({
    terms: Arbitrary.array(termArb(world), { minLength: 1, maxLength: 3 }),
    history: Arbitrary.all({ on: bool, channels: subsetOf(world.channels) }),
    excluded: subsetOf(world.channels),
    anchor: anchorArb(world),
    numBefore: intBetween(0, 6),
    numAfter: intBetween(0, 6),
    includeAnchor: bool,
    ids: Arbitrary.array(intBetween(0, world.maxId + 1), { maxLength: 12 })
  }).pipe(Arbitrary.map((c): Case => {
    const narrow: Narrow = {
      terms: c.terms,
      near: null,
      historyChannelIds: null,
      firstUnreadExcludedChannelIds: c.excluded
    }
    return {
      query: {
        realmId: world.realmId,
        viewerId: world.viewer,
        narrow,
        historyChannelIds: c.history.on ? c.history.channels : null
      },
      options: { anchor: c.anchor, numBefore: c.numBefore, numAfter: c.numAfter, includeAnchor: c.includeAnchor },
      ids: c.ids
    }
  }))

const summary = (range: FetchedRange) => ({
  ids: range.messages.map((r) => r.message.id),
  flags: range.messages.map((r) => r.flags),
  anchor: range.anchor,
  found_anchor: range.found_anchor,
  found_oldest: range.found_oldest,
  found_newest: range.found_newest
})

/** Runs `runs` random cases on both backends and asserts identical answers. */
const agree = (left: Backend, right: Backend, runs: number) =>
  Effect.gen(function*() {
    assert.deepStrictEqual(left.world, right.world)
    let nonEmpty = 0
    const result = yield* Arbitrary.checkEffect(
      caseArb(left.world),
      (c) =>
        Effect.gen(function*() {
          const a = summary(yield* left.search.fetchRange(c.query, c.options))
          const b = summary(yield* right.search.fetchRange(c.query, c.options))
          const idsA = (yield* left.search.fetchIds(c.query, c.ids)).map((r) => [r.message.id, r.flags])
          const idsB = (yield* right.search.fetchIds(c.query, c.ids)).map((r) => [r.message.id, r.flags])
          if (a.ids.length > 0) nonEmpty++
          if (JSON.stringify(a) !== JSON.stringify(b) || JSON.stringify(idsA) !== JSON.stringify(idsB)) {
            return yield* Effect.fail({ [left.name]: { range: a, ids: idsA }, [right.name]: { range: b, ids: idsB } })
          }
          return true
        }),
      { runs, seed: SEED }
    )
    const failure = Arbitrary.formatCheckFailure(result)
    if (failure !== undefined) assert.fail(failure)
    // The generator must not only produce empty answers.
    assert.isAbove(nonEmpty, runs / 10)
  })

/** Each narrow term kind alone also matches something in the world (the generator is not vacuous). */
const everyKindMatches = (backend: Backend) =>
  Effect.gen(function*() {
    const { world } = backend
    const base = { realmId: world.realmId, viewerId: world.viewer, historyChannelIds: null }
    const terms: ReadonlyArray<Term> = [
      { _tag: "Channel", channelId: world.channels[0]!, negated: false },
      { _tag: "Topic", topic: "LUNCH", negated: false },
      { _tag: "Is", flag: "dm", negated: false },
      { _tag: "Is", flag: "resolved", negated: false },
      { _tag: "Is", flag: "mentioned", negated: false },
      { _tag: "GroupDm", userIds: [world.viewer], negated: false },
      { _tag: "Has", what: "reaction", negated: false },
      { _tag: "Search", query: "well-known", phrases: [] },
      { _tag: "Search", query: "été", phrases: [] },
      { _tag: "Search", query: "-42", phrases: [] }
    ]
    for (const term of terms) {
      const range = yield* backend.search.fetchRange(
        { ...base, narrow: { terms: [term], near: null, historyChannelIds: null, firstUnreadExcludedChannelIds: [] } },
        { anchor: { _tag: "newest" }, numBefore: 1000, numAfter: 0, includeAnchor: true }
      )
      assert.isAbove(range.messages.length, 0, JSON.stringify(term))
    }
  })

/** `has:reaction` splits the viewer's messages exactly into those with a reaction left and the rest. */
const reactionSplits = (backend: Backend) =>
  Effect.gen(function*() {
    const { world } = backend
    const ids = (terms: ReadonlyArray<Term>) =>
      backend.search.fetchRange(
        {
          realmId: world.realmId,
          viewerId: world.viewer,
          historyChannelIds: null,
          narrow: { terms, near: null, historyChannelIds: null, firstUnreadExcludedChannelIds: [] }
        },
        { anchor: { _tag: "newest" }, numBefore: 1000, numAfter: 0, includeAnchor: true }
      ).pipe(Effect.map((range) => range.messages.map((row) => row.message.id)))
    const all = yield* ids([])
    const reacted = new Set(world.reacted)
    assert.deepStrictEqual(yield* ids([{ _tag: "Has", what: "reaction", negated: false }]), all.filter((id) => reacted.has(id)))
    assert.deepStrictEqual(yield* ids([{ _tag: "Has", what: "reaction", negated: true }]), all.filter((id) => !reacted.has(id)))
  })

describe("memory and SQL interpreters agree", () => {
  it.effect("memory vs PGlite", () =>
    Effect.gen(function*() {
      const memory = yield* openBackend("memory", memorySearchLayer(), SEED, SIZE)
      const pglite = yield* openBackend("PGlite", sqlSearchLayer(TestDatabase.pgliteMigratedLayer()), SEED, SIZE)
      yield* everyKindMatches(memory)
      yield* reactionSplits(memory)
      yield* reactionSplits(pglite)
      yield* agree(memory, pglite, 300)
    }), 240_000)

  it.effect("memory vs PostgreSQL", () =>
    Effect.gen(function*() {
      const memory = yield* openBackend("memory", memorySearchLayer(), SEED + 1, SIZE)
      const postgres = yield* openBackend("PostgreSQL", sqlSearchLayer(TestDatabase.postgresLayer()), SEED + 1, SIZE)
      yield* reactionSplits(postgres)
      yield* agree(memory, postgres, 150)
    }), 240_000)
})

describe("in-memory text search", () => {
  it.effect("lexemes equal PostgreSQL's to_tsvector('simple', …) on generated text", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const random = prng(SEED)
      const texts: Array<string> = [
        ...Vocabulary,
        ...Topics,
        ...["foo-2", "2-foo", "a- -b", "foo--bar", "x_y", "İstanbul ǅ", "42-beta", "x-42-y", "a-b-42", "über-42", "ab-c_d"]
      ]
      for (let i = 0; i < 80; i++) {
        let text = ""
        const words = 1 + random.int(8)
        for (let w = 0; w < words; w++) text += (w === 0 ? "" : random.pick(Separators)) + random.pick(Vocabulary)
        texts.push(text)
      }
      for (const text of texts) {
        const rows = yield* sql<{ lexemes: Array<string> | string }>`
          SELECT array(SELECT unnest(lexemes) FROM ts_debug('simple', ${text}::text) WHERE lexemes IS NOT NULL) AS lexemes`
        const raw = rows[0]!.lexemes
        const expected = typeof raw === "string" ? parsePgArray(raw) : raw
        assert.deepStrictEqual(lexemes(text), expected, text)
      }
    }).pipe(Effect.provide(TestDatabase.pgliteLayer().pipe(Layer.orDie))), 120_000)
})

/** A text[] literal `{a,"b c"}` (some drivers return arrays as text). */
const parsePgArray = (text: string): Array<string> => {
  const inner = text.slice(1, -1)
  if (inner === "") return []
  const out: Array<string> = []
  for (const match of inner.matchAll(/"((?:[^"\\]|\\.)*)"|([^,]+)/g)) {
    out.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2]!)
  }
  return out
}


