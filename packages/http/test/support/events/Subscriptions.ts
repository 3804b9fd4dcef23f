/** /users/me/subscriptions: responses, events, authorization and parameter errors. */
import { assert } from "@effect/vitest"
import * as Errors from "@teamchat/core/errors/Errors"
import * as Effect from "effect/Effect"
import type { Backend } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { roles, success, error, bare, as, register, drain, channelId } from "./fixtures.ts"
import { demoChannelNames, demoIds, subscribedTo, subscriberIds, subscriptionRow } from "./registerBodies.ts"

export const subscriptionsTests = (it: Vitest.MethodsNonLive<Server>, backend: Backend): void => {
  // -----------------------------------------------------------------------
  // subscriptions

  it.effect("subscriptions: responses, and the add, peer, remove and update events", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const iago = yield* as("admin")
      const cordelia = yield* server.login("cordelia@zulip.com")
      const name = `Subscribed ${backend}`
      const hamletQueue = yield* register(hamlet, { event_types: "[\"subscription\"]" })
      const cordeliaQueue = yield* register(cordelia, { event_types: "[\"subscription\"]" })
      const iagoQueue = yield* register(iago, { event_types: "[\"subscription\",\"stream\"]" })

      // iago creates the channel with hamlet as its only subscriber.
      const subscribed = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: iago,
        form: { subscriptions: JSON.stringify([{ name, description: "Made by a test" }]), principals: JSON.stringify([hamlet.userId]) }
      })
      assert.strictEqual(subscribed.status, 200, subscribed.text)
      assert.deepStrictEqual(subscribed.json, success({ subscribed: { [hamlet.userId]: [name] }, already_subscribed: {} }))
      const streamId = yield* channelId(hamlet, name)
      const listed = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        query: { include_subscribers: "true" }
      })
      const { subscribers, ...hamletSub } = listed.json.subscriptions.find((s: { name: string }) => s.name === name)
      assert.deepStrictEqual(subscribers, [hamlet.userId])
      assert.strictEqual(hamletSub.description, "Made by a test")
      // The queue was registered without include_subscribers: no subscriber lists in its events.
      const hamletEvents = (yield* drain(hamlet, hamletQueue, -1)).json.events
      assert.deepStrictEqual(bare(hamletEvents), [{ type: "subscription", op: "add", subscriptions: [hamletSub] }])
      const peerAdd = { type: "subscription", op: "peer_add", stream_ids: [streamId], user_ids: [hamlet.userId] }
      assert.deepStrictEqual(bare((yield* drain(cordelia, cordeliaQueue, -1)).json.events), [peerAdd])
      const iagoEvents = (yield* drain(iago, iagoQueue, -1)).json.events
      assert.deepStrictEqual(bare(iagoEvents).map((e) => `${e.type} ${e.op}`), ["stream create", "subscription peer_add"])
      assert.deepStrictEqual(bare(iagoEvents)[1], peerAdd)

      // Subscribing again: already subscribed, and no event.
      const again = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        multipart: { subscriptions: JSON.stringify([{ name: name.toUpperCase() }]) }
      })
      assert.deepStrictEqual(again.json, success({ subscribed: {}, already_subscribed: { [hamlet.userId]: [name] } }))
      const hamletLast = hamletEvents[hamletEvents.length - 1].id
      assert.deepStrictEqual((yield* drain(hamlet, hamletQueue, hamletLast)).json.events, [])

      // Personal properties.
      const props = yield* server.fetch("POST", "/api/v1/users/me/subscriptions/properties", {
        as: hamlet,
        form: {
          subscription_data: JSON.stringify([
            { stream_id: streamId, property: "is_muted", value: true },
            { stream_id: streamId, property: "color", value: "#abcdef" }
          ])
        }
      })
      assert.deepStrictEqual(props.json, success())
      const updates = (yield* drain(hamlet, hamletQueue, hamletLast)).json.events
      assert.deepStrictEqual(bare(updates), [
        { type: "subscription", op: "update", property: "in_home_view", value: false, stream_id: streamId },
        { type: "subscription", op: "update", property: "is_muted", value: true, stream_id: streamId },
        { type: "subscription", op: "update", property: "color", value: "#abcdef", stream_id: streamId }
      ])
      const afterUpdates = updates[updates.length - 1].id

      // Unsubscribing.
      const removed = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        form: { subscriptions: JSON.stringify([name]) }
      })
      assert.deepStrictEqual(removed.json, success({ removed: [name], not_removed: [] }))
      assert.deepStrictEqual(bare((yield* drain(hamlet, hamletQueue, afterUpdates)).json.events), [
        { type: "subscription", op: "remove", subscriptions: [{ name, stream_id: streamId }] }
      ])
      const cordeliaEvents = (yield* drain(cordelia, cordeliaQueue, -1)).json.events
      assert.deepStrictEqual(bare(cordeliaEvents), [
        peerAdd,
        { type: "subscription", op: "peer_remove", stream_ids: [streamId], user_ids: [hamlet.userId] }
      ])
      const notRemoved = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        query: { subscriptions: JSON.stringify([name]) }
      })
      assert.deepStrictEqual(notRemoved.json, success({ removed: [], not_removed: [name] }))
      const unknown = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        form: { subscriptions: JSON.stringify(["No such channel"]) }
      })
      assert.strictEqual(unknown.status, 400)
      assert.deepStrictEqual(unknown.json, new Errors.StreamNameDoesNotExist({ stream: "No such channel" }).wire)
    }))

  it.effect("subscriptions: GET as every role, authorization errors, and parameter errors", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const ids = yield* demoIds
      for (const role of roles) {
        const who = yield* as(role)
        for (const include of ["false", "true", "partial"]) {
          const reply = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", {
            as: who,
            query: { include_subscribers: include }
          })
          // Every channel here is small, so "partial" lists every subscriber too.
          const expected = subscribedTo(role).map((name) => ({
            ...subscriptionRow(ids, name),
            ...(include === "false" ? {} : { subscribers: subscriberIds(ids, name) })
          }))
          // Earlier tests on this server add channels of their own (checked there): the demo's are written out here.
          const demo = reply.json.subscriptions.filter((sub: { name: string }) => demoChannelNames.includes(sub.name))
          assert.deepStrictEqual({ ...reply.json, subscriptions: demo }, success({ subscriptions: expected }), `${role} ${include}`)
        }
      }
      const hamlet = yield* as("member")
      const fatal = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        form: { subscriptions: JSON.stringify([{ name: "core team" }]) }
      })
      assert.deepStrictEqual(fatal.json, error("Unable to access channel (core team)."))
      const lenient = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        form: { subscriptions: JSON.stringify([{ name: "core team" }, { name: "Verona" }]), authorization_errors_fatal: "false" }
      })
      assert.deepStrictEqual(
        lenient.json,
        success({ subscribed: {}, already_subscribed: { [hamlet.userId]: ["Verona"] }, unauthorized: ["core team"] })
      )
      const cases: ReadonlyArray<readonly [string, string, Record<string, string>, object]> = [
        ["POST", "/api/v1/users/me/subscriptions", {}, {
          result: "error",
          msg: "Missing 'subscriptions' argument",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: "subscriptions"
        }],
        ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[\"Verona\"]" }, error("subscriptions[0] is not a dict")],
        ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"x\",\"colour\":1}]" }, error("Argument \"colour\" at subscriptions[0] is unexpected")],
        ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":5}]" }, error("subscriptions[0][\"name\"] is not a string")],
        ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"x\"}]", principals: "[1,\"a\"]" }, error("Invalid principals")],
        ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"x\"}]", principals: "[999999]" }, new Errors.NoSuchUser().wire],
        ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"  \"}]" }, error("Channel name can't be empty.")],
        ["DELETE", "/api/v1/users/me/subscriptions", { subscriptions: "Verona" }, error("subscriptions is not valid JSON")],
        ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":\"1\",\"property\":\"color\",\"value\":\"#000000\"}]" }, error("subscription_data[0][\"stream_id\"] is not an integer")],
        ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":1,\"property\":\"color\"}]" }, {
          result: "error",
          msg: "Missing 'subscription_data[0][\"value\"]' argument",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: "subscription_data[0][\"value\"]"
        }],
        ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":999999,\"property\":\"color\",\"value\":\"#000000\"}]" }, error("Invalid channel ID")],
        ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":1,\"property\":\"volume\",\"value\":true}]" }, error("Unknown subscription property: volume")]
      ]
      for (const [method, path, form, expected] of cases) {
        const reply = yield* server.fetch(method, path, { as: hamlet, form })
        assert.strictEqual(reply.status, 400, `${method} ${JSON.stringify(form)}`)
        assert.deepStrictEqual(reply.json, expected, `${method} ${JSON.stringify(form)}`)
      }
    }))
}
