/**
 * A seeded organization full of messages for the narrow tests, inserted
 * through the repositories so that every backend built fresh gets the same
 * ids, plus the layers exposing MessageSearch on each backend.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import type { ChannelId, MessageId, RealmId, UserId } from "../../src/domain/Ids.ts"
import type { Reaction } from "../../src/domain/Message.ts"
import { FlagBits } from "../../src/domain/Message.ts"
import * as MemoryMessageSearch from "../../src/memory/MemoryMessageSearch.ts"
import { MessageSearch } from "../../src/ports/MessageSearch.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import * as SqlMessageSearch from "../../src/sql/SqlMessageSearch.ts"
import type { Repos } from "../persistence/MessagesFixtures.ts"
import { channelMessage, directMessage, memoryLayer, seedOrganization, sqlLayer } from "../persistence/MessagesFixtures.ts"

/** Repositories and MessageSearch over one fresh memory database. */
export const memorySearchLayer = (): Layer.Layer<Repos | MessageSearch> =>
  MemoryMessageSearch.layer.pipe(Layer.provideMerge(memoryLayer()))

/** Repositories and MessageSearch over a fresh, migrated SQL database. */
export const sqlSearchLayer = <E>(client: Layer.Layer<SqlClient.SqlClient, E>): Layer.Layer<Repos | MessageSearch, unknown> =>
  SqlMessageSearch.layer.pipe(Layer.provideMerge(sqlLayer(client)))

/** A small deterministic PRNG (mulberry32), so the world is the same on every backend. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(values: ReadonlyArray<A>): A => values[int(values.length)]!
  const chance = (p: number) => next() < p
  return { next, int, pick, chance }
}

/** Words the generated content and searches share; compounds and signed numbers exercise the parser rules. */
export const Vocabulary = [
  "alpha",
  "Beta",
  "gamma",
  "delta42",
  "café",
  "ÉTÉ",
  "well-known",
  "v2-beta",
  "lunch",
  "x",
  "don't",
  "-42",
  "42",
  "Über-cool"
] as const

/** Separators that keep PostgreSQL's parser on plain words. */
export const Separators = [" ", ", ", ". ", "! ", "? ", " (", ") ", "; ", "\n", " - ", ": ", " _ ", " \"", "\" "] as const

export const Topics = ["lunch", "Lunch", "dinner", "", "✔ done", "✔ lunch"] as const

/** Every flag bit a row may carry in the world. */
const RandomBits = [
  FlagBits.read,
  FlagBits.starred,
  FlagBits.mentioned,
  FlagBits.stream_wildcard_mentioned,
  FlagBits.group_mentioned,
  FlagBits.has_alert_word
]

export interface World {
  readonly realmId: RealmId
  readonly viewer: UserId
  readonly users: ReadonlyArray<UserId>
  readonly channels: ReadonlyArray<ChannelId>
  readonly maxId: number
  /** The messages with at least one reaction, ascending. */
  readonly reacted: ReadonlyArray<number>
}

/**
 * Inserts `size` random messages: channel messages in three channels (the
 * viewer has rows for about 70%), direct messages of 1-3 participants (rows
 * for every participant), random content, attachments, flags and reactions
 * (some added and taken back again); then one message of another
 * organization.
 */
export const seedWorld = (seed: number, size: number) =>
  Effect.gen(function*() {
    const random = prng(seed)
    const org = yield* seedOrganization({ users: 4, channels: [{}, {}, { invite_only: true }] })
    const other = yield* seedOrganization({ users: 1, channels: [{}] })
    const repo = yield* MessageStore
    const users = org.users.map((u) => u.id)
    const channels = org.channels.map((c) => c.id)
    const viewer = users[0]!
    const flags = () => RandomBits.reduce((acc, bit) => random.chance(0.35) ? acc | bit : acc, 0)
    const content = () => {
      let text = ""
      const words = 1 + random.int(6)
      for (let i = 0; i < words; i++) text += (i === 0 ? "" : random.pick(Separators)) + random.pick(Vocabulary)
      return text
    }
    const extras = () => ({
      has_attachment: random.chance(0.3),
      has_image: random.chance(0.3),
      has_link: random.chance(0.3)
    })
    let maxId = 0
    const reacted: Array<number> = []
    const react = (message_id: MessageId) =>
      Effect.gen(function*() {
        const reaction = (user_id: UserId, emoji_code: string): Reaction => ({
          message_id,
          user_id,
          emoji_name: `e${emoji_code}`,
          emoji_code,
          reaction_type: "unicode_emoji"
        })
        if (random.chance(0.25)) {
          yield* repo.addReaction(reaction(random.pick(users), "1f44d"))
          if (random.chance(0.5)) yield* repo.addReaction(reaction(random.pick(users), "1f389"))
          reacted.push(message_id)
        } else if (random.chance(0.1)) {
          // Reacted and taken back: no reaction left.
          const user = random.pick(users)
          yield* repo.addReaction(reaction(user, "1f44d"))
          yield* repo.removeReaction({ message_id, user_id: user, emoji_code: "1f44d", reaction_type: "unicode_emoji" })
        }
      })
    for (let i = 0; i < size; i++) {
      const sender = random.pick(users)
      if (random.chance(0.7)) {
        const rows = users
          .filter((u) => u === sender || (u === viewer ? random.chance(0.7) : random.chance(0.5)))
          .map((user_id) => ({ user_id, flags: flags() }))
        const m = yield* repo.insert(
          channelMessage(org.realm.id, sender, random.pick(channels), random.pick(Topics), content(), extras()),
          rows
        )
        maxId = m.id
        yield* react(m.id)
      } else {
        const others = users.filter((u) => u !== sender && random.chance(0.4)).slice(0, 2)
        const m = yield* repo.insert(
          directMessage(org.realm.id, sender, others, content(), extras()),
          [sender, ...others].map((user_id) => ({ user_id, flags: flags() }))
        )
        maxId = m.id
        yield* react(m.id)
      }
    }
    const foreign = yield* repo.insert(
      channelMessage(other.realm.id, other.users[0]!.id, other.channels[0]!.id, "lunch", "alpha lunch"),
      [{ user_id: other.users[0]!.id, flags: 0 }]
    )
    maxId = foreign.id
    const world: World = { realmId: org.realm.id, viewer, users, channels, maxId, reacted }
    return world
  })

/** A backend's MessageSearch and the world seeded into it. */
export interface Backend {
  readonly name: string
  readonly search: MessageSearch["Service"]
  readonly world: World
}

/** Builds `layer` in the current scope, seeds the world into it, returns its MessageSearch. */
export const openBackend = <E>(
  name: string,
  layer: Layer.Layer<Repos | MessageSearch, E>,
  seed: number,
  size: number
) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(layer)
    const world = yield* seedWorld(seed, size).pipe(Effect.provide(context))
    const backend: Backend = { name, search: Context.get(context, MessageSearch), world }
    return backend
  })
