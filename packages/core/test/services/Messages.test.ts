/**
 * The send rules that the wire suite cannot reach without channel settings
 * endpoints: topics policies (the channel's and the organization's),
 * topic and content normalisation, and posting permissions from
 * `can_send_message_group`, on memory and PGlite.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { ChannelRepo, RealmRepo } from "../../src/ports/Repositories.ts"
import { Channels } from "../../src/services/Channels.ts"
import { Messages } from "../../src/services/Messages.ts"
import { Users } from "../../src/services/Users.ts"
import type { SendRequest } from "../../src/services/Messages.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import type { TopicsPolicy } from "../../src/domain/Realm.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"
import type { Org } from "../events/fixtures.ts"

const failure = (effect: Effect.Effect<unknown, { readonly msg: string }, Messages>) =>
  Effect.map(Effect.flip(effect), (e) => e.msg)

const send = (principal: Principal, request: SendRequest) => Effect.flatMap(Messages, (m) => m.send(principal, request))

for (const backend of ["memory", "PGlite"] as const) {
  describe(`Messages.send rules on ${backend}`, () => {
    layer(backends[backend](), { timeout: "60 seconds" })((it) => {
      const channel = (org: Org, topicsPolicy: TopicsPolicy) =>
        Effect.gen(function*() {
          const channels = yield* Channels
          const created = yield* channels.create(org.realm.id, { name: unique("c"), topics_policy: topicsPolicy })
          yield* channels.subscribe(created.id, [org.owner.user.id, org.member.user.id])
          return created
        })

      it.effect("a sender's next message mentions and links what changed since the last one", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const target = yield* channel(org, "inherit")
          const to = { type: "channel", to: target.id, topic: "t" } as const
          const first = yield* send(org.member, { ...to, content: "@**Newcomer** #**later**" })
          assert.notInclude(first.message.rendered_content, "user-mention")
          const newcomer = yield* (yield* Users).create(org.realm.id, {
            email: `newcomer@${org.realm.string_id}.test`,
            full_name: "Newcomer",
            role: 400
          })
          const later = yield* (yield* Channels).create(org.realm.id, { name: "later" })
          const second = yield* send(org.member, { ...to, content: "@**Newcomer** #**later**" })
          assert.include(second.message.rendered_content, `data-user-id="${newcomer.id}"`)
          assert.include(second.message.rendered_content, `data-stream-id="${later.id}"`)
        }))

      it.effect("topics policies: the channel's, or the organization's when it inherits", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const required = yield* channel(org, "disable_empty_topic")
          const only = yield* channel(org, "empty_topic_only")
          const inherit = yield* channel(org, "inherit")
          const content = "hello"
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: required.id, topic: "(no topic)", content })),
            "Sending messages to the general chat topic is not allowed in this channel."
          )
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: only.id, topic: "plans", content })),
            "Only the general chat topic is allowed in this channel."
          )
          const inOnly = yield* send(org.member, { type: "channel", to: only.id, topic: "general chat", content })
          assert.strictEqual(inOnly.message.topic, "")
          // The organization allows the empty topic until it is changed to require topics.
          const ok = yield* send(org.member, { type: "channel", to: inherit.id, topic: "", content })
          assert.strictEqual(ok.message.topic, "")
          const realms = yield* RealmRepo
          const realm = (yield* realms.findById(org.realm.id))!
          const strict = { ...realm, settings: { ...realm.settings, topics_policy: "disable_empty_topic" as const } }
          yield* realms.update(strict)
          assert.strictEqual(
            yield* failure(send({ ...org.member, realm: strict }, { type: "channel", to: inherit.id, topic: "", content })),
            "Sending messages to the general chat topic is not allowed in this channel."
          )
        }))

      it.effect("topics are stripped and cut to 60 characters; content is cut at 10000 with a notice", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const c = yield* channel(org, "inherit")
          const sent = yield* send(org.member, {
            type: "channel",
            to: c.id,
            topic: `  ${"t".repeat(70)}  `,
            content: `${"x".repeat(10_050)}\n\n`
          })
          assert.strictEqual(sent.message.topic, `${"t".repeat(57)}...`)
          assert.strictEqual(sent.message.content, `${"x".repeat(10_000 - 20)}\n[message truncated]`)
          assert.strictEqual(sent.message.content.length, 10_000)
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: c.id, topic: "a\u0000b", content: "x" })),
            "Topic must not contain null bytes"
          )
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: c.id, topic: "a\u0007b", content: "x" })),
            "Invalid character in topic, at position 2!"
          )
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: c.id, topic: "t", content: "a\u0000" })),
            "Message must not contain null bytes"
          )
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: [c.id, c.id], topic: "t", content: "x" })),
            "Cannot send to multiple channels"
          )
        }))

      it.effect("can_send_message_group: only its members post; archived channels take no messages", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const c = yield* channel(org, "inherit")
          const repo = yield* ChannelRepo
          const stored = (yield* repo.findById(c.id))!
          // An anonymous group with only the owner.
          yield* repo.update({
            ...stored,
            settings: { ...stored.settings, can_send_message_group: { direct_members: [org.owner.user.id], direct_subgroups: [] } }
          })
          assert.strictEqual(
            yield* failure(send(org.member, { type: "channel", to: c.id, topic: "t", content: "x" })),
            "You do not have permission to post in this channel."
          )
          const byOwner = yield* send(org.owner, { type: "channel", to: c.id, topic: "t", content: "x" })
          assert.isAbove(byOwner.id, 0)
          yield* repo.update({ ...(yield* repo.findById(c.id))!, is_archived: true })
          assert.strictEqual(
            yield* failure(send(org.owner, { type: "channel", to: c.id, topic: "t", content: "x" })),
            `Not authorized to send to channel '${c.name}'`
          )
        }))
    })
  })
}
