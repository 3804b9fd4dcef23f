/**
 * Search highlighting (`match_content`, `match_subject`): words in text are
 * wrapped, tags and HTML entities are left whole.
 */
import { describe, expect, it } from "@effect/vitest"
import { channelId, messageId, realmId, userId } from "../../src/domain/Ids.ts"
import type { Message } from "../../src/domain/Message.ts"
import { searchMatches } from "../../src/views/MessageView.ts"

const message = (content: string, rendered: string, topic: string): Message => ({
  id: messageId(1),
  realm_id: realmId(1),
  sender_id: userId(1),
  type: "stream",
  channel_id: channelId(1),
  topic,
  dm_user_ids: [],
  content,
  rendered_content: rendered,
  date_sent: 0,
  client: "API",
  has_attachment: false,
  has_image: false,
  has_link: false,
  last_edit_time: null
})

describe("searchMatches", () => {
  it("wraps searched words, case-insensitively, outside tags and entities", () => {
    const m = message(
      "amp & lt < stuff [amp](https://amp.example)",
      "<p>amp &amp; lt &lt; Stuff <a href=\"https://amp.example\">amp</a></p>",
      "AMP <b> & co"
    )
    expect(searchMatches(m, ["amp", "lt", "stuff"])).toStrictEqual({
      match_content: "<p><span class=\"highlight\">amp</span> &amp; <span class=\"highlight\">lt</span> &lt; " +
        "<span class=\"highlight\">Stuff</span> <a href=\"https://amp.example\"><span class=\"highlight\">amp</span></a></p>",
      match_subject: "<span class=\"highlight\">AMP</span> &lt;b&gt; &amp; co"
    })
  })

  it("leaves text without matches unchanged", () => {
    const m = message("hello", "<p>hello</p>", "greetings")
    expect(searchMatches(m, ["bye"])).toStrictEqual({ match_content: "<p>hello</p>", match_subject: "greetings" })
  })
})
