/**
 * Sending and reading messages with `@teamchat/core` alone (the walk-through
 * is docs/embedding.md). It creates an organization in memory with two
 * members and a channel, lets Bob listen for messages, has Ann send a channel
 * message and a direct message, then reads them back as Bob: the topic from
 * the newest message back, the direct messages around an anchor, and the
 * events his queue received.
 *
 *   . scripts/env.sh     # once per shell, from the repository root: Node 22 on PATH
 *   node examples/send-and-read.ts
 *
 * The output is the same on every run (examples/embed.test.ts checks it):
 * the in-memory backend numbers everything from 1, and nothing printed
 * depends on the time or on random keys.
 */
import { Channels, EventQueues, Messages, Organizations, Teamchat, Users } from "@teamchat/core"
import type { Principal } from "@teamchat/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"

/** GET /messages' defaults for the parts this example does not vary. */
const read = (anchor: Messages.Anchor, narrow: unknown) => ({
  anchor,
  include_anchor: true,
  num_before: 10,
  num_after: 10,
  narrow,
  apply_markdown: true,
  client_gravatar: false,
  allow_empty_topic_name: true
})

export const program = Effect.gen(function*() {
  const organizations = yield* Organizations.Organizations
  const users = yield* Users.Users
  const channels = yield* Channels.Channels
  const messages = yield* Messages.Messages
  const queues = yield* EventQueues.EventQueues

  // An organization, its owner, two members and a channel they are in.
  const { owner, realm } = yield* organizations.create({
    string_id: "acme",
    name: "Acme",
    url: "https://chat.acme.test",
    owner: { email: "boss@acme.test", full_name: "The Boss" }
  })
  const ann = yield* users.create(realm.id, { email: "ann@acme.test", full_name: "Ann", role: 400 })
  const bob = yield* users.create(realm.id, { email: "bob@acme.test", full_name: "Bob", role: 400 })
  const general = yield* channels.create(realm.id, { name: "general", description: "Everything", creator_id: owner!.id })
  yield* channels.subscribe(general.id, [ann.id, bob.id])

  // Who acts: an authenticated caller. A server gets it from `Authentication.basic(email, apiKey)`.
  const asAnn: Principal.Principal = { user: ann, realm }
  const asBob: Principal.Principal = { user: bob, realm }

  // Bob listens for messages before anything is sent (POST /register).
  const queue = yield* queues.register(asBob, { event_types: ["message"] })

  // Ann writes to the channel's topic "lunch", then to Bob directly (POST /messages).
  const lunch = yield* messages.send(asAnn, {
    type: "channel",
    to: "general",
    topic: "lunch",
    content: "Pizza at **noon**?"
  })
  const direct = yield* messages.send(asAnn, { type: "direct", to: [bob.id], content: "Bring the menu, please." })
  yield* Console.log(`sent #${lunch.id} to #general > lunch and #${direct.id} to Bob`)

  // Bob reads the topic from its newest message back (GET /messages).
  const topic = yield* messages.fetch(
    asBob,
    read({ _tag: "newest" }, [{ operator: "channel", operand: "general" }, { operator: "topic", operand: "lunch" }])
  )
  for (const m of topic.messages) {
    yield* Console.log(`#general > ${m.subject} #${m.id} ${m.sender_full_name}: ${m.content}`)
  }

  // ... and his direct messages with Ann around the one he was told about.
  const dms = yield* messages.fetch(asBob, read({ _tag: "id", id: direct.id }, [{ operator: "dm", operand: [ann.id] }]))
  yield* Console.log(`anchor #${dms.anchor} found: ${dms.found_anchor}`)
  for (const m of dms.messages) {
    const unread = !(m.flags ?? []).includes("read")
    yield* Console.log(`direct #${m.id} ${m.sender_full_name}: ${m.content}${unread ? " (unread)" : ""}`)
  }

  // What Bob's queue received (GET /events without waiting).
  const { events } = yield* queues.getEvents(asBob, { queue_id: queue.id, last_event_id: -1, dont_block: true })
  for (const event of events) {
    // The events are a tagged union: `type` says which fields an event has.
    if (event.type !== "message") continue
    yield* Console.log(`event ${event.id}: ${event.type} #${event.message.id} from ${event.message.sender_full_name}`)
  }
}).pipe(Effect.provide(Teamchat.layerMemory()))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(program).catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
