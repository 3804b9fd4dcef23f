/**
 * GET /messages/matches_narrow: of the ids given, those the user received
 * that match the narrow, each with its rendered content and escaped topic
 * (a search's words highlighted); Zulip's refusals.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { as, badRequest, expectReply, ownChannel, sent, success } from "./fixtures.ts"

const matches = (who: Credentials, query: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/messages/matches_narrow", { as: who, query }))

const highlight = (word: string) => `<span class="highlight">${word}</span>`

export const matchesNarrowTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("matches_narrow: the received messages among the ids that match, with content and escaped topic; search highlights", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const own = yield* ownChannel(iago, [["mn-1@zulip.com", "Matcher One"], ["mn-2@zulip.com", "Matcher Two"]], {
        name: "matches narrow"
      })
      const [one, two] = own.members
      const topic = "Wombat <b> & co"
      const wombat = yield* sent(one.as, { type: "stream", to: String(own.channel), topic, content: "a *Wombat* here" })
      const other = yield* sent(one.as, { type: "stream", to: String(own.channel), topic: "elsewhere", content: "nothing" })
      const direct = yield* sent(iago, { type: "private", to: JSON.stringify([two.id]), content: "wombat in private" })
      // A message of a public channel two never received: history, but no row.
      const history = yield* sent(iago, { type: "stream", to: "Denmark", topic: "matches narrow", content: "wombat" })
      const escaped = "Wombat &lt;b&gt; &amp; co"
      const ids = JSON.stringify([wombat, other, direct, history, 999_999_999])

      expectReply(
        yield* matches(two.as, { msg_ids: ids, narrow: JSON.stringify([{ operator: "channel", operand: own.channel }]) }),
        200,
        success({
          messages: {
            [wombat]: { match_content: "<p>a <em>Wombat</em> here</p>", match_subject: escaped },
            [other]: { match_content: "<p>nothing</p>", match_subject: "elsewhere" }
          }
        })
      )
      expectReply(
        yield* matches(two.as, { msg_ids: ids, narrow: JSON.stringify([{ operator: "topic", operand: topic }]) }),
        200,
        success({ messages: { [wombat]: { match_content: "<p>a <em>Wombat</em> here</p>", match_subject: escaped } } })
      )
      expectReply(
        yield* matches(two.as, { msg_ids: ids, narrow: JSON.stringify([["search", "wombat"]]) }),
        200,
        success({
          messages: {
            [wombat]: {
              match_content: `<p>a <em>${highlight("Wombat")}</em> here</p>`,
              match_subject: `${highlight("Wombat")} &lt;b&gt; &amp; co`
            },
            [direct]: { match_content: `<p>${highlight("wombat")} in private</p>`, match_subject: "" }
          }
        })
      )
      // Every message the user received, for an empty narrow; none they did not.
      const all = yield* matches(two.as, { msg_ids: ids, narrow: "[]" })
      assert.strictEqual(all.status, 200, all.text)
      assert.deepStrictEqual(Object.keys(all.json.messages).map(Number).sort((a, b) => a - b), [wombat, other, direct])
      // Someone outside the channel, subscribed to Denmark: only the Denmark message.
      const hamlet = yield* as("member")
      expectReply(
        yield* matches(hamlet, { msg_ids: ids, narrow: "[]" }),
        200,
        success({ messages: { [history]: { match_content: "<p>wombat</p>", match_subject: "matches narrow" } } })
      )
      expectReply(yield* matches(two.as, { msg_ids: "[]", narrow: "[]" }), 200, success({ messages: {} }))
    }))

  it.effect("matches_narrow: Zulip's refusals", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const missing = (name: string) => ({
        result: "error",
        msg: `Missing '${name}' argument`,
        code: "REQUEST_VARIABLE_MISSING",
        var_name: name
      })
      expectReply(yield* matches(hamlet, { narrow: "[]" }), 400, missing("msg_ids"))
      expectReply(yield* matches(hamlet, { msg_ids: "[1]" }), 400, missing("narrow"))
      expectReply(yield* matches(hamlet, { msg_ids: "[1e20]", narrow: "[]" }), 400, badRequest("msg_ids[0] is too large"))
      expectReply(yield* matches(hamlet, { msg_ids: "[1", narrow: "[]" }), 400, badRequest("msg_ids is not valid JSON"))
      expectReply(yield* matches(hamlet, { msg_ids: "[1]", narrow: "{" }), 400, badRequest("narrow is not valid JSON"))
      const badNarrow = (desc: string) => ({
        result: "error",
        msg: `Invalid narrow operator: ${desc}`,
        code: "BAD_NARROW",
        desc
      })
      expectReply(
        yield* matches(hamlet, { msg_ids: "[1]", narrow: JSON.stringify([["bogus", "x"]]) }),
        400,
        badNarrow("unknown operator bogus")
      )
      expectReply(
        yield* matches(hamlet, { msg_ids: "[1]", narrow: JSON.stringify([["channel", "No such channel"]]) }),
        400,
        badNarrow("unknown channel No such channel")
      )
    }))
}
