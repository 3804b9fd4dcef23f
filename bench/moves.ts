/**
 * Moves of a whole topic: PATCH /messages/{message_id} with
 * `propagate_mode=change_all` renaming a 10,000-message topic, resolving one
 * (the "✔ " prefix), and moving one to another channel, each timed beside
 * POST /streams/{stream_id}/delete_topic of an equal 10,000-message topic in
 * the same round. Reported as the ratio move ÷ delete_topic per round
 * (median and spread over the rounds), with each request's milliseconds.
 *
 * Both topics of a pair are filled through the bulk write
 * (`MessageStore.insertMany`, setup only, untimed) with rows for a few
 * subscribers, so the move and the deletion touch the same number of
 * messages and rows. One request at a time, handed to the web handler
 * directly (no sockets), on PGlite (in process). `BENCH_MOVES_SIZE` shrinks
 * the topics for a smoke run.
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import type { Message } from "@teamchat/core/domain/Message"
import { FlagBits } from "@teamchat/core/domain/Message"
import { realmId } from "@teamchat/core/domain/Ids"
import type { ChannelId, UserId } from "@teamchat/core/domain/Ids"
import { MessageStore } from "@teamchat/core/ports/MessageStore"
import type { Insert } from "@teamchat/core/ports/Repositories"
import { Transactor } from "@teamchat/core/ports/Transactor"
import { Channels } from "@teamchat/core/services/Channels"
import { Users } from "@teamchat/core/services/Users"
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { makeWebHandler } from "@teamchat/http/Http"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { basic } from "./people.ts"
import { describeSpread, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const topicSize = Number(process.env.BENCH_MOVES_SIZE ?? 10_000)
/** Subscribers with a row for every message (the mover among them). */
const subscriberCount = 5
const fillBatch = 2_000

type Kind = "topic move" | "resolve" | "channel move"
const kinds: ReadonlyArray<Kind> = ["topic move", "resolve", "channel move"]

export const movesBenchmark: Benchmark = {
  name: "moves",
  description: `moving a ${topicSize}-message topic (rename, resolve, other channel) vs delete_topic of an equal topic (PGlite, in process)`,
  run: async (options: BenchOptions, log) => {
    const core = Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({})))
    const scope = Effect.runSync(Scope.make())
    try {
      const context = (await Effect.runPromise(Layer.buildWithScope(core, scope))) as Context.Context<any>
      const run = <A>(effect: Effect.Effect<A, any, any>) => Effect.runPromise(Effect.provideContext(effect, context) as Effect.Effect<A>)
      log("seeding the demo organization, an administrator, and two channels")
      const setup = await run(Effect.gen(function*() {
        yield* DemoOrganization.seed(origin)
        const users = yield* Users
        const admin = yield* users.create(realmId(1), { email: "mover@zulip.com", full_name: "Mover", role: 200 })
        const others: Array<UserId> = []
        for (let i = 1; i < subscriberCount; i++) {
          others.push((yield* users.create(realmId(1), { email: `reader${i}@zulip.com`, full_name: `Reader ${i}`, role: 400 })).id)
        }
        const channels = yield* Channels
        const from = yield* channels.create(realmId(1), { name: "moves from" })
        const to = yield* channels.create(realmId(1), { name: "moves to" })
        yield* channels.subscribe(from.id, [admin.id, ...others])
        yield* channels.subscribe(to.id, [admin.id, ...others])
        return { auth: basic(admin.delivery_email, admin.api_key), admin: admin.id, subscribers: [admin.id, ...others], from: from.id, to: to.id }
      }))
      const { dispose, handler } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
      try {
        /** Fills a topic of `channel` with `topicSize` messages; returns the first id. */
        const fill = async (channel: ChannelId, topic: string) => {
          const recipients = setup.subscribers.map((user_id) => ({ user_id, flags: user_id === setup.admin ? FlagBits.read : 0 }))
          let first = 0
          for (let start = 0; start < topicSize; start += fillBatch) {
            const batch: Array<{ readonly message: Insert<Message>; readonly recipients: typeof recipients }> = []
            for (let i = start; i < Math.min(topicSize, start + fillBatch); i++) {
              batch.push({
                message: {
                  realm_id: realmId(1),
                  sender_id: setup.admin,
                  type: "stream",
                  channel_id: channel,
                  topic,
                  dm_user_ids: [],
                  content: `message ${i}`,
                  rendered_content: `<p>message ${i}</p>`,
                  // Recent: within every move limit.
                  date_sent: Math.floor(Date.now() / 1000),
                  client: "API",
                  has_attachment: false,
                  has_image: false,
                  has_link: false,
                  last_edit_time: null
                },
                recipients
              })
            }
            const inserted = await run(
              Effect.flatMap(Transactor, (tx) => tx.withTransaction(Effect.flatMap(MessageStore, (store) => store.insertMany(batch))))
            )
            if (start === 0) first = inserted[0]!.id
          }
          return first
        }
        const timed = async (what: string, method: string, path: string, form: Record<string, string>) => {
          const started = performance.now()
          const response = await handler(new Request(`${origin}/api/v1${path}`, {
            method,
            headers: { authorization: setup.auth },
            body: new URLSearchParams(form)
          }))
          const text = await response.text()
          const millis = performance.now() - started
          if (response.status !== 200 || !text.includes("\"success\"")) throw new Error(`${what}: ${response.status} ${text}`)
          return millis
        }
        const moveForm = (kind: Kind, topic: string): Record<string, string> =>
          kind === "topic move"
            ? { topic: `${topic} renamed`, propagate_mode: "change_all" }
            : kind === "resolve"
            ? { topic: `\u2714 ${topic}`, propagate_mode: "change_all" }
            : { stream_id: String(setup.to), propagate_mode: "change_all" }

        const ratios: Record<Kind, Array<number>> = { "topic move": [], resolve: [], "channel move": [] }
        const moveMillis: Record<Kind, Array<number>> = { "topic move": [], resolve: [], "channel move": [] }
        const deleteMillis: Array<number> = []
        for (let round = 0; round < options.rounds; round++) {
          // The order alternates round by round, as the other benchmarks do.
          const order = round % 2 === 0 ? kinds : [...kinds].reverse()
          for (const kind of order) {
            const moved = `move ${round} ${kind}`
            const deleted = `delete ${round} ${kind}`
            const first = await fill(setup.from, moved)
            await fill(setup.from, deleted)
            const deleteFirst = round % 2 === 1
            let deleteTime = 0
            let moveTime = 0
            if (deleteFirst) deleteTime = await timed("delete_topic", "POST", `/streams/${setup.from}/delete_topic`, { topic_name: deleted })
            moveTime = await timed(kind, "PATCH", `/messages/${first}`, moveForm(kind, moved))
            if (!deleteFirst) deleteTime = await timed("delete_topic", "POST", `/streams/${setup.from}/delete_topic`, { topic_name: deleted })
            ratios[kind].push(moveTime / deleteTime)
            moveMillis[kind].push(moveTime)
            deleteMillis.push(deleteTime)
            log(`round ${round + 1} ${kind}: ${moveTime.toFixed(0)} ms; delete_topic ${deleteTime.toFixed(0)} ms`)
          }
        }
        const metrics: Array<Metric> = [
          { name: `delete_topic (${topicSize} messages)`, value: spread(deleteMillis).median, unit: "ms" }
        ]
        for (const kind of kinds) {
          const ratio = spread(ratios[kind])
          log(`${kind} / delete_topic: ${describeSpread(ratio)}`)
          metrics.push(
            { name: `${kind} (${topicSize} messages)`, value: spread(moveMillis[kind]).median, unit: "ms" },
            { name: `ratio ${kind} / delete_topic`, value: ratio.median, unit: "" }
          )
        }
        return metrics
      } finally {
        await dispose()
      }
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}
