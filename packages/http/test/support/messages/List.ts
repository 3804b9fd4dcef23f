/** GET /messages: anchors, narrows, search highlighting, public history. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials, Reply } from "../Harness.ts"
import { Server } from "../Harness.ts"
import { channelId, userId } from "@teamchat/core/domain/Ids"
import { ChannelRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import type { User } from "@teamchat/core/domain/User"
import type { Vitest } from "@effect/vitest"
import { success, badRequest, badNarrow, invalidMessages, newestAnchor, person, as, channels, sent, getMessage, read, list, flags, expectReply, narrowOf, ownChannel } from "./fixtures.ts"

export const listTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // GET /messages

  it.effect("GET /messages: anchors newest, oldest, an id, first_unread; include_anchor=false; found_* flags", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const ids: Array<number> = []
      for (let i = 1; i <= 5; i++) {
        ids.push(yield* sent(iago, { type: "stream", to: "Scotland", topic: "anchors", content: `message ${i}` }))
      }
      const narrow = narrowOf([["channel", "Scotland"], ["topic", "anchors"]])
      const views: Array<Record<string, unknown>> = []
      for (const id of ids) views.push(yield* read(hamlet, id))
      const page = (
        anchor: number,
        found: { anchor: boolean; oldest: boolean; newest: boolean },
        picked: ReadonlyArray<number>
      ) =>
        success({
          anchor,
          found_anchor: found.anchor,
          found_oldest: found.oldest,
          found_newest: found.newest,
          history_limited: false,
          messages: picked.map((i) => views[i])
        })
      const get = (query: Record<string, string>) => list(hamlet, { narrow, ...query })

      expectReply(
        yield* get({ anchor: "newest", num_before: "3", num_after: "0" }),
        200,
        page(newestAnchor, { anchor: false, oldest: false, newest: true }, [2, 3, 4])
      )
      expectReply(
        yield* get({ anchor: "newest", num_before: "100", num_after: "0" }),
        200,
        page(newestAnchor, { anchor: false, oldest: true, newest: true }, [0, 1, 2, 3, 4])
      )
      expectReply(
        yield* get({ anchor: "oldest", num_before: "0", num_after: "2" }),
        200,
        page(0, { anchor: false, oldest: true, newest: false }, [0, 1])
      )
      expectReply(
        yield* get({ anchor: String(ids[2]), num_before: "1", num_after: "1" }),
        200,
        page(ids[2]!, { anchor: true, oldest: false, newest: false }, [1, 2, 3])
      )
      expectReply(
        yield* get({ anchor: String(ids[2]), num_before: "5", num_after: "5" }),
        200,
        page(ids[2]!, { anchor: true, oldest: true, newest: true }, [0, 1, 2, 3, 4])
      )
      expectReply(
        yield* get({ anchor: String(ids[2]), include_anchor: "false", num_before: "2", num_after: "0" }),
        200,
        page(ids[2]!, { anchor: false, oldest: false, newest: false }, [0, 1])
      )
      expectReply(
        yield* get({ anchor: String(ids[2]), include_anchor: "false", num_before: "0", num_after: "5" }),
        200,
        page(ids[2]!, { anchor: false, oldest: false, newest: true }, [3, 4])
      )
      expectReply(
        yield* get({ anchor: String(ids[2]), include_anchor: "false", num_before: "1", num_after: "1" }),
        400,
        badRequest("The anchor can only be excluded at an end of the range")
      )

      // first_unread: hamlet reads the first two.
      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify([ids[0], ids[1]]), op: "add", flag: "read" }),
        200,
        success({ messages: [ids[0], ids[1]] })
      )
      const read2 = (i: number) => ({ ...views[i], flags: ["read"] })
      const afterRead = (picked: ReadonlyArray<number>) => picked.map((i) => (i < 2 ? read2(i) : views[i]))
      const firstUnread = success({
        anchor: ids[2],
        found_anchor: true,
        found_oldest: false,
        found_newest: true,
        history_limited: false,
        messages: afterRead([1, 2, 3, 4])
      })
      expectReply(yield* get({ anchor: "first_unread", num_before: "1", num_after: "10" }), 200, firstUnread)
      // The legacy spelling, without anchor.
      expectReply(yield* get({ use_first_unread_anchor: "true", num_before: "1", num_after: "10" }), 200, firstUnread)
      // Nothing unread: first_unread is after everything.
      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify(ids.slice(2)), op: "add", flag: "read" }),
        200,
        success({ messages: ids.slice(2) })
      )
      expectReply(
        yield* get({ anchor: "first_unread", num_before: "2", num_after: "2" }),
        200,
        success({
          anchor: newestAnchor,
          found_anchor: false,
          found_oldest: false,
          found_newest: true,
          history_limited: false,
          messages: [3, 4].map(read2)
        })
      )
      // An anchor outside the narrow (just before its first message): nothing before it.
      expectReply(
        yield* get({ anchor: String(ids[0]! - 1), num_before: "1", num_after: "1" }),
        200,
        success({
          anchor: ids[0]! - 1,
          found_anchor: false,
          found_oldest: true,
          found_newest: false,
          history_limited: false,
          messages: [read2(0)]
        })
      )
    }))

  it.effect("GET /messages: anchor=0 with use_first_unread_anchor=true (zulip-terminal) anchors at the first unread", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const ids: Array<number> = []
      for (let i = 1; i <= 3; i++) {
        ids.push(yield* sent(iago, { type: "stream", to: "Scotland", topic: "terminal anchor", content: `terminal ${i}` }))
      }
      const narrow = narrowOf([["channel", "Scotland"], ["topic", "terminal anchor"]])
      const views: Array<Record<string, unknown>> = []
      for (const id of ids) views.push(yield* read(hamlet, id))
      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify([ids[0]]), op: "add", flag: "read" }),
        200,
        success({ messages: [ids[0]] })
      )
      const all = [{ ...views[0], flags: ["read"] }, views[1], views[2]]
      expectReply(
        yield* list(hamlet, { narrow, anchor: "0", use_first_unread_anchor: "true", num_before: "5", num_after: "10" }),
        200,
        success({
          anchor: ids[1],
          found_anchor: true,
          found_oldest: true,
          found_newest: true,
          history_limited: false,
          messages: all
        })
      )
      // anchor=0 alone is the id 0.
      expectReply(
        yield* list(hamlet, { narrow, anchor: "0", num_before: "5", num_after: "10" }),
        200,
        success({
          anchor: 0,
          found_anchor: false,
          found_oldest: true,
          found_newest: true,
          history_limited: false,
          messages: all
        })
      )
    }))

  it.effect("GET /messages: anchor and range errors", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      expectReply(yield* list(hamlet, { num_before: "1", num_after: "0" }), 400, {
        result: "error",
        msg: "Missing 'anchor' argument",
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "anchor"
      })
      expectReply(yield* list(hamlet, { anchor: "latest", num_before: "1", num_after: "0" }), 400, badRequest("Invalid anchor"))
      expectReply(
        yield* list(hamlet, { anchor: "newest", num_before: "5000", num_after: "1" }),
        400,
        badRequest("Too many messages requested (maximum 5000).")
      )
      expectReply(yield* list(hamlet, { anchor: "newest", num_after: "0" }), 400, {
        result: "error",
        msg: "Missing 'num_before' argument",
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "num_before"
      })
    }))

  it.effect("GET /messages: narrows as legacy pairs and as objects (channel+topic, dm, sender, is:starred, search)", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const a = yield* sent(iago, { type: "stream", to: "Denmark", topic: "narrows", content: "alpha" })
      const b = yield* sent(hamlet, { type: "stream", to: "Denmark", topic: "narrows", content: "the zebracorn gallops" })
      const c = yield* sent(iago, { type: "stream", to: "Denmark", topic: "narrows other", content: "gamma" })
      const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "narrow dm zebracorn" })
      const otherDm = yield* sent(othello, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "narrow dm othello" })
      const ids = (reply: Reply) => {
        assert.strictEqual(reply.status, 200, reply.text)
        return reply.json.messages.map((m: { id: number }) => m.id).filter((id: number) => id >= a)
      }
      const find = (terms: ReadonlyArray<unknown>) =>
        Effect.map(list(hamlet, { anchor: "newest", num_before: "100", num_after: "0", narrow: narrowOf(terms) }), ids)
      const obj = (operator: string, operand: unknown, negated?: boolean) =>
        negated === undefined ? { operator, operand } : { operator, operand, negated }

      // channel + topic
      assert.deepStrictEqual(yield* find([["stream", "Denmark"], ["topic", "narrows"]]), [a, b])
      assert.deepStrictEqual(yield* find([obj("channel", "denmark"), obj("topic", "NARROWS")]), [a, b])
      const { Denmark: denmark } = yield* channels
      assert.deepStrictEqual(yield* find([obj("channel", denmark.id), obj("topic", "narrows", true)]).pipe(
        Effect.map((found) => found.filter((id: number) => id === c || id === a || id === b))
      ), [c])
      // The page itself, exactly, for one narrow.
      const page = yield* list(hamlet, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([obj("channel", "Denmark"), obj("topic", "narrows other")])
      })
      expectReply(page, 200, success({
        anchor: newestAnchor,
        found_anchor: false,
        found_oldest: true,
        found_newest: true,
        history_limited: false,
        messages: [yield* read(hamlet, c)]
      }))
      // dm: by API email (pairs) and by id list (objects)
      assert.deepStrictEqual(yield* find([["dm", iago.apiEmail]]), [dm])
      assert.deepStrictEqual(yield* find([obj("dm", [iago.userId])]), [dm])
      assert.deepStrictEqual(yield* find([["pm-with", othello.apiEmail]]), [otherDm])
      assert.deepStrictEqual(yield* find([["is", "dm"]]).pipe(Effect.map((found) => found.filter((id: number) => id >= dm))), [dm, otherDm])
      // sender: by API email and by id
      assert.deepStrictEqual(yield* find([["sender", iago.apiEmail], ["channel", "Denmark"]]).pipe(
        Effect.map((found) => found.filter((id: number) => id <= c))
      ), [a, c])
      assert.deepStrictEqual(yield* find([obj("sender", othello.userId)]).pipe(
        Effect.map((found) => found.filter((id: number) => id >= a))
      ), [otherDm])
      // is:starred
      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify([b, dm]), op: "add", flag: "starred" }),
        200,
        success({ messages: [b, dm] })
      )
      assert.deepStrictEqual(yield* find([["is", "starred"]]), [b, dm])
      assert.deepStrictEqual(yield* find([obj("is", "starred"), obj("channel", "Denmark")]), [b])
      // search: words, combined with other terms
      assert.deepStrictEqual(yield* find([["search", "zebracorn"]]), [b, dm])
      assert.deepStrictEqual(yield* find([obj("channel", "Denmark"), obj("search", "zebracorn")]), [b])
      assert.deepStrictEqual(yield* find([["search", "zebracorn"], ["is", "dm"]]), [dm])
      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify([b, dm]), op: "remove", flag: "starred" }),
        200,
        success({ messages: [b, dm] })
      )
      assert.deepStrictEqual(yield* find([["is", "starred"]]), [])
    }))

  it.effect("GET /messages: search narrows add match_content and match_subject (matches highlighted, never inside tags); other narrows neither", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const topic = "Quokka <b> & co"
      const linked = yield* sent(iago, {
        type: "stream",
        to: "Denmark",
        topic,
        content: "A Quokka met a [quokka](https://quokka.example.com) & its *QUOKKA* friend"
      })
      const inTopic = yield* sent(iago, { type: "stream", to: "Denmark", topic, content: "nothing to see" })
      yield* sent(iago, { type: "stream", to: "Denmark", topic: "match elsewhere", content: "no marsupial" })
      const views = [yield* read(hamlet, linked), yield* read(hamlet, inTopic)]
      assert.strictEqual(
        views[0]!.content,
        "<p>A Quokka met a <a href=\"https://quokka.example.com\">quokka</a> &amp; its <em>QUOKKA</em> friend</p>"
      )
      const highlight = (word: string) => `<span class="highlight">${word}</span>`
      const matchSubject = `${highlight("Quokka")} &lt;b&gt; &amp; co`
      const found = [
        {
          ...views[0],
          match_content: `<p>A ${highlight("Quokka")} met a <a href="https://quokka.example.com">${highlight("quokka")}</a>` +
            ` &amp; its <em>${highlight("QUOKKA")}</em> friend</p>`,
          match_subject: matchSubject
        },
        { ...views[1], match_content: "<p>nothing to see</p>", match_subject: matchSubject }
      ]
      for (
        const narrow of [
          narrowOf([["channel", "Denmark"], ["search", "quokka"]]),
          narrowOf([{ operator: "search", operand: "QUOKKA" }, { operator: "channel", operand: "Denmark" }])
        ]
      ) {
        expectReply(
          yield* list(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow }),
          200,
          success({
            anchor: newestAnchor,
            found_anchor: false,
            found_oldest: true,
            found_newest: true,
            history_limited: false,
            messages: found
          })
        )
      }
      // Without a search term: neither key.
      const plain = yield* list(hamlet, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([["channel", "Denmark"], ["topic", topic]])
      })
      assert.strictEqual(plain.status, 200, plain.text)
      assert.deepStrictEqual(plain.json.messages, views)
      for (const m of plain.json.messages) {
        assert.isFalse("match_content" in m)
        assert.isFalse("match_subject" in m)
      }
    }))

  it.effect("GET /messages: BAD_NARROW and malformed narrows, exactly", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const cases: ReadonlyArray<readonly [string, object]> = [
        [narrowOf([["bogus", "x"]]), badNarrow("unknown operator bogus")],
        [narrowOf([{ operator: "bogus", operand: "x" }]), badNarrow("unknown operator bogus")],
        [narrowOf([["channel", "Nowhere"]]), badNarrow("unknown channel Nowhere")],
        [narrowOf([{ operator: "channel", operand: 999 }]), badNarrow("unknown channel 999")],
        [narrowOf([["is", "bogus"]]), badNarrow("unknown 'is' operand bogus")],
        [narrowOf([["has", "bogus"]]), badNarrow("unknown 'has' operand bogus")],
        [narrowOf([["in", "bogus"]]), badNarrow("unknown 'in' operand bogus")],
        [narrowOf([["sender", "nobody@zulip.com"]]), badNarrow("unknown user nobody@zulip.com")],
        [narrowOf([["dm", "nobody@zulip.com"]]), badNarrow("unknown user in nobody@zulip.com")],
        [narrowOf([["channel", "Verona"], ["dm", "user4@zulipdev.com"]]), badNarrow("No message can be both a channel message and direct message")],
        ["{\"operator\":\"is\"}", badRequest("narrow is not a list")],
        ["channel:Verona", badRequest("narrow is not valid JSON")]
      ]
      for (const [narrow, body] of cases) {
        expectReply(yield* list(hamlet, { anchor: "newest", num_before: "1", num_after: "0", narrow }), 400, body)
      }
    }))

  it.effect("GET /messages: public history through a channel narrow (read, historical); a guest sees only his channels", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const iago = yield* as("admin")
      const shiva = yield* as("moderator")
      const polonius = yield* as("guest")
      const cordelia = yield* person("cordelia@zulip.com")
      const before = yield* sent(iago, { type: "stream", to: "Venice", topic: "history", content: "before cordelia" })
      const narrow = narrowOf([["channel", "Venice"], ["topic", "history"]])
      const get = (who: Credentials) => list(who, { anchor: "newest", num_before: "10", num_after: "0", narrow })
      const original = yield* read(iago, before)

      // Not subscribed: the channel narrow includes the public history.
      const historical = { ...original, flags: ["read", "historical"] }
      expectReply(yield* get(cordelia), 200, success({
        anchor: newestAnchor,
        found_anchor: false,
        found_oldest: true,
        found_newest: true,
        history_limited: false,
        messages: [historical]
      }))
      assert.deepStrictEqual(yield* read(cordelia, before), historical)
      // Without a channel term history is not included.
      const all = yield* list(cordelia, { anchor: "newest", num_before: "20", num_after: "0", narrow: narrowOf([["topic", "history"]]) })
      assert.deepStrictEqual(all.json.messages, [])

      // Subscribed later: the earlier message stays historical, the next one is hers.
      const subscribe = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: cordelia,
        form: { subscriptions: JSON.stringify([{ name: "Venice" }]) }
      })
      assert.strictEqual(subscribe.status, 200, subscribe.text)
      const after = yield* sent(iago, { type: "stream", to: "Venice", topic: "history", content: "after cordelia" })
      const page = yield* get(cordelia)
      assert.strictEqual(page.status, 200, page.text)
      assert.deepStrictEqual(page.json.messages, [historical, { ...(yield* read(iago, after)), flags: [] }])
      const unsubscribe = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
        as: cordelia,
        form: { subscriptions: JSON.stringify(["Venice"]) }
      })
      assert.strictEqual(unsubscribe.status, 200, unsubscribe.text)

      // A guest sees channels he is in only: not sandbox, whose history is public to members.
      const sandboxMessage = yield* sent(shiva, { type: "stream", to: "sandbox", topic: "history", content: "members only" })
      const guestPage = yield* list(polonius, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([["channel", "sandbox"]])
      })
      assert.strictEqual(guestPage.status, 200, guestPage.text)
      assert.deepStrictEqual(guestPage.json.messages, [])
      expectReply(yield* getMessage(polonius, sandboxMessage), 400, invalidMessages)
      // ... but in Venice, where he is subscribed, he got both messages.
      assert.deepStrictEqual((yield* get(polonius)).json.messages.map((m: { id: number }) => m.id), [before, after])
      // A private channel without public history: not even an administrator reads it unsubscribed.
      const secret = yield* sent(shiva, { type: "stream", to: "core team", topic: "history", content: "secret" })
      expectReply(yield* getMessage(iago, secret), 400, invalidMessages)
      const core = yield* list(iago, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([["channel", "core team"]])
      })
      assert.deepStrictEqual(core.json.messages, [])
    }))

  it.effect("GET /messages: the organization as it is at the read, after writes made outside the API (renamed channel, new key, deactivation)", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const iago = yield* as("admin")
      const own = yield* ownChannel(iago, [["fresh-reader@zulip.com", "Fresh Reader"], ["fresh-leaver@zulip.com", "Fresh Leaver"]], {
        name: "fresh access"
      })
      const made = { channel: own.channel, reader: own.members[0].id, leaver: own.members[1].id }
      const [reader, leaver] = [own.members[0].as, own.members[1].as]
      const id = yield* sent(iago, { type: "stream", to: String(made.channel), topic: "fresh", content: "fresh" })
      const narrow = narrowOf([{ operator: "channel", operand: made.channel }, { operator: "topic", operand: "fresh" }])
      const get = (who: Credentials) => list(who, { anchor: "newest", num_before: "10", num_after: "0", narrow })
      const page = yield* get(reader)
      assert.strictEqual(page.status, 200, page.text)
      assert.deepStrictEqual(page.json.messages.map((m: Record<string, unknown>) => [m.id, m.display_recipient]), [[id, "fresh access"]])
      assert.strictEqual((yield* get(leaver)).status, 200)

      // Written through the repositories, as another process would: nothing
      // but the organization's access version tells the server.
      yield* server.core(Effect.gen(function*() {
        const repo = yield* ChannelRepo
        const channel = (yield* repo.findById(channelId(made.channel)))!
        yield* repo.update({ ...channel, name: "fresh access, renamed" })
      }))
      const renamed = yield* get(reader)
      assert.strictEqual(renamed.status, 200, renamed.text)
      assert.deepStrictEqual(
        renamed.json.messages.map((m: Record<string, unknown>) => [m.id, m.display_recipient]),
        [[id, "fresh access, renamed"]]
      )

      const changeUser = (id: number, change: (user: User) => User) =>
        server.core(Effect.gen(function*() {
          const repo = yield* UserRepo
          yield* repo.update(change((yield* repo.findById(userId(id)))!))
        }))
      yield* changeUser(made.reader, (user) => ({ ...user, api_key: "A".repeat(32) }))
      expectReply(yield* get(reader), 401, { result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" })

      yield* changeUser(made.leaver, (user) => ({ ...user, is_active: false }))
      expectReply(yield* get(leaver), 401, { result: "error", msg: "Account is deactivated", code: "USER_DEACTIVATED" })
    }))
}
