/** GET /get_stream_id and POST /messages/render. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { as, badRequest, channels, expectReply, list, narrowOf, ownChannel, person, success } from "./fixtures.ts"

const streamId = (who: Credentials, query: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/get_stream_id", { as: who, query }))

const renderPreview = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages/render", { as: who, form }))

export const lookupsTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("get_stream_id: the id by name in any case; unknown and private channels alike refused", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const polonius = yield* as("guest")
      const { Verona: verona } = yield* channels
      for (const name of ["Verona", "verona", "VERONA"]) {
        expectReply(yield* streamId(hamlet, { stream: name }), 200, success({ stream_id: verona!.id }))
      }
      const { channel, members: [a] } = yield* ownChannel(
        iago,
        [["stream-id-a@zulip.com", "Stream Id A"], ["stream-id-b@zulip.com", "Stream Id B"]],
        { name: "Hidden Place", invite_only: true }
      )
      expectReply(yield* streamId(a.as, { stream: "hidden place" }), 200, success({ stream_id: channel }))
      expectReply(yield* streamId(hamlet, { stream: "Hidden Place" }), 400, badRequest("Invalid channel name 'Hidden Place'"))
      expectReply(yield* streamId(hamlet, { stream: "Nowhere" }), 400, badRequest("Invalid channel name 'Nowhere'"))
      // Knowing a private channel is enough for administrators; guests know only their own channels.
      expectReply(yield* streamId(iago, { stream: "HIDDEN PLACE" }), 200, success({ stream_id: channel }))
      const open = yield* ownChannel(
        iago,
        [["stream-id-c@zulip.com", "Stream Id C"], ["stream-id-d@zulip.com", "Stream Id D"]],
        { name: "Open Place" }
      )
      expectReply(yield* streamId(hamlet, { stream: "open place" }), 200, success({ stream_id: open.channel }))
      expectReply(yield* streamId(polonius, { stream: "Open Place" }), 400, badRequest("Invalid channel name 'Open Place'"))
      expectReply(yield* streamId(hamlet, {}), 400, {
        result: "error",
        msg: "Missing 'stream' argument",
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "stream"
      })
    }))

  it.effect("messages/render: the HTML as the user's message, nothing sent or stored", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const before = yield* list(othello, { anchor: "newest", num_before: "1", num_after: "0", narrow: narrowOf([]) })
      expectReply(yield* renderPreview(othello, { content: "**foo**" }), 200, success({ rendered: "<p><strong>foo</strong></p>" }))
      expectReply(
        yield* renderPreview(othello, { content: "hi @**King Hamlet**" }),
        200,
        success({ rendered: `<p>hi <span class="user-mention" data-user-id="${hamlet.userId}">@King Hamlet</span></p>` })
      )
      expectReply(yield* renderPreview(othello, { content: "" }), 200, success({ rendered: "" }))
      expectReply(yield* renderPreview(othello, {}), 400, {
        result: "error",
        msg: "Missing 'content' argument",
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "content"
      })
      const after = yield* list(othello, { anchor: "newest", num_before: "1", num_after: "0", narrow: narrowOf([]) })
      assert.deepStrictEqual(after.json.messages, before.json.messages)
    }))
}
