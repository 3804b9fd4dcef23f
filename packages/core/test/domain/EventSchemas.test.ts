/**
 * The event schemas refuse what a wrong publisher would send, so the check
 * every test suite runs on published events (`testing/CheckedEvents.ts`) can
 * fail: per area, a well-formed event passes and the same event with a
 * missing, mistyped or extra field is refused. Then the check itself: a
 * malformed event published through the checked `Events` is a defect, and
 * nothing is published.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Audience } from "../../src/domain/Event.ts"
import type { EventPayload } from "../../src/domain/Event.ts"
import { checkClient, checkPublished, EventTypes } from "../../src/domain/events/EventPayload.ts"
import { Events } from "../../src/services/events/Events.ts"
import { alertWordsOf, backends, makeOrg, openQueue } from "../events/fixtures.ts"

const refused = (check: (event: unknown) => unknown, event: unknown): boolean => {
  try {
    check(event)
    return false
  } catch {
    return true
  }
}

/** `event` passes; each variant of it is refused. */
const checks = (event: Record<string, unknown>, variants: ReadonlyArray<readonly [string, unknown]>) => {
  assert.deepStrictEqual(checkPublished(event), event)
  for (const [what, variant] of variants) assert.isTrue(refused(checkPublished, variant), `refused: ${what}`)
}

const message = {
  id: 12,
  sender_id: 3,
  sender_email: "hamlet@example.test",
  sender_full_name: "Hamlet",
  sender_realm_str: "example",
  avatar_url: "https://secure.gravatar.com/avatar/x?d=identicon&version=1",
  client: "API",
  content: "<p>hi</p>",
  content_type: "text/html",
  display_recipient: "Denmark",
  is_me_message: false,
  reactions: [],
  recipient_id: 14,
  subject: "castle",
  topic_links: [],
  submessages: [],
  timestamp: 1_767_225_600,
  type: "stream",
  stream_id: 7
}

const channel = {
  stream_id: 7,
  name: "Denmark",
  is_archived: false,
  description: "",
  rendered_description: "",
  date_created: 1_767_225_600,
  creator_id: null,
  invite_only: false,
  is_web_public: false,
  stream_post_policy: 1,
  is_announcement_only: false,
  message_retention_days: null,
  history_public_to_subscribers: true,
  topics_policy: "inherit",
  first_message_id: null,
  folder_id: null,
  is_recently_active: true,
  can_add_subscribers_group: 10,
  can_remove_subscribers_group: 11,
  can_administer_channel_group: { direct_members: [3], direct_subgroups: [] },
  can_delete_any_message_group: 11,
  can_delete_own_message_group: 16,
  can_move_messages_out_of_channel_group: 10,
  can_move_messages_within_channel_group: 10,
  can_send_message_group: 16,
  can_subscribe_group: 10,
  can_resolve_topics_group: 10,
  subscriber_count: 1,
  stream_weekly_traffic: null
}

const group = {
  id: 20,
  name: "backend",
  description: "",
  members: [3, 4],
  direct_subgroup_ids: [],
  creator_id: 3,
  date_created: 1_767_225_600,
  is_system_group: false,
  can_add_members_group: { direct_members: [3], direct_subgroups: [] },
  can_join_group: 10,
  can_leave_group: 16,
  can_manage_group: { direct_members: [3], direct_subgroups: [] },
  can_mention_group: 16,
  can_remove_members_group: 10,
  deactivated: false
}

describe("event schemas", () => {
  it("message: the stored form, and the form a client receives", () => {
    const stored = { type: "message", message, flags: ["read"], "~raw_content": "hi", "~gravatar_nullable": false }
    checks(stored, [
      ["an unknown flag", { ...stored, flags: ["read", "shiny"] }],
      ["a message field of the wrong type", { ...stored, message: { ...message, stream_id: "7" } }],
      ["an extra message field", { ...stored, message: { ...message, flags: ["read"] } }],
      ["no raw content", { type: "message", message, flags: [] }]
    ])
    const { "~raw_content": _raw, "~gravatar_nullable": _nullable, ...sent } = stored
    const received: unknown = { ...sent, local_message_id: "1.5", id: 4 }
    assert.deepStrictEqual(checkClient(received), received)
    assert.isTrue(refused(checkClient, { ...stored, id: 4 }), "the `~` keys never reach a client")
    assert.isTrue(refused(checkClient, sent), "a client's event has its id")
  })

  it("update_message_flags: op and operation agree; details only on remove", () => {
    const add = { type: "update_message_flags", op: "add", operation: "add", flag: "starred", messages: [1, 2], all: false }
    const details = { "1": { type: "stream", stream_id: 7, topic: "castle", unmuted_stream_msg: true, mentioned: true } }
    checks(add, [
      ["a mismatched operation", { ...add, operation: "remove" }],
      ["details on add", { ...add, message_details: details }],
      ["message ids as text", { ...add, messages: ["1"] }]
    ])
    const remove = { ...add, op: "remove", operation: "remove", flag: "read", message_details: details }
    checks(remove, [
      ["a channel message's details without its topic", {
        ...remove,
        message_details: { "1": { type: "stream", stream_id: 7, unmuted_stream_msg: true } }
      }],
      ["a direct message's details with a channel", {
        ...remove,
        message_details: { "1": { type: "private", user_ids: [4], stream_id: 7 } }
      }]
    ])
  })

  it("submessage", () => {
    const event = {
      type: "submessage",
      msg_type: "widget",
      message_id: 970461,
      submessage_id: 4737,
      sender_id: 58,
      content: "{\"type\":\"vote\",\"key\":\"58,1\",\"vote\":1}"
    }
    checks(event, [
      ["no submessage id", { ...event, submessage_id: undefined }],
      ["content as an object", { ...event, content: { type: "vote" } }],
      ["an extra field", { ...event, op: "add" }]
    ])
  })

  it("delete_message, update_message, typing (for the editing to come), reaction", () => {
    const bulk = { type: "delete_message", message_ids: [1, 2], message_type: "stream", stream_id: 7, topic: "castle" }
    checks(bulk, [["both id forms", { ...bulk, message_id: 1 }], ["an unknown message type", { ...bulk, message_type: "dm" }]])
    checks({ type: "delete_message", message_id: 1, message_type: "private" }, [
      ["no message type", { type: "delete_message", message_id: 1 }]
    ])
    const edit = {
      type: "update_message",
      user_id: 3,
      rendering_only: false,
      message_id: 1,
      message_ids: [1],
      flags: ["read"],
      edit_timestamp: 1_767_225_700,
      orig_content: "hi",
      content: "hello",
      rendered_content: "<p>hello</p>"
    }
    checks(edit, [["no edit time", { ...edit, edit_timestamp: undefined }], ["an unknown propagate mode", { ...edit, propagate_mode: "all" }]])
    const reaction = {
      type: "reaction",
      op: "add",
      user_id: 3,
      user: { user_id: 3, email: "hamlet@example.test", full_name: "King Hamlet" },
      message_id: 1,
      emoji_name: "smile",
      emoji_code: "1f604",
      reaction_type: "unicode_emoji"
    }
    checks(reaction, [
      ["an unknown reaction type", { ...reaction, reaction_type: "emoji" }],
      ["an unknown op", { ...reaction, op: "toggle" }],
      ["no user object", { ...reaction, user: undefined }],
      ["the user object Zulip dropped at feature level 328", { ...reaction, user: { ...reaction.user, is_mirror_dummy: false } }]
    ])
    checks({ ...reaction, op: "remove" }, [["no emoji name", { ...reaction, op: "remove", emoji_name: undefined }]])
    const typing = {
      type: "typing",
      op: "start",
      message_type: "stream",
      sender: { user_id: 3, email: "hamlet@example.test" },
      stream_id: 7,
      topic: "castle"
    }
    checks(typing, [["a channel typing event with recipients", { ...typing, recipients: [] }], ["no topic", { ...typing, topic: undefined }]])
    const editing = {
      type: "typing_edit_message",
      op: "start",
      sender_id: 3,
      message_id: 12,
      recipient: { type: "channel", channel_id: 7, topic: "castle" }
    }
    checks(editing, [
      ["a channel recipient with user ids", { ...editing, recipient: { ...editing.recipient, user_ids: [3] } }],
      ["the sender as an object", { ...editing, sender_id: { user_id: 3 } }],
      ["an unknown op", { ...editing, op: "pause" }]
    ])
    checks({ ...editing, op: "stop", recipient: { type: "direct", user_ids: [3, 3] } }, [
      ["a direct recipient with a topic", { ...editing, recipient: { type: "direct", user_ids: [3], topic: "castle" } }],
      ["no message id", { ...editing, recipient: { type: "direct", user_ids: [3] }, message_id: undefined }]
    ])
  })

  it("stream and subscription", () => {
    const create = { type: "stream", op: "create", streams: [channel] }
    checks(create, [
      ["a channel without its subscriber count", { ...create, streams: [{ ...channel, subscriber_count: undefined }] }],
      ["a group setting that is neither a group nor members and subgroups", {
        ...create,
        streams: [{ ...channel, can_subscribe_group: { direct_members: [3] } }]
      }]
    ])
    const update = { type: "stream", op: "update", property: "name", value: "Norway", stream_id: 7, name: "Denmark" }
    checks(update, [["a property never published", { ...update, property: "color" }], ["no old name", { ...update, name: undefined }]])
    const sub = {
      ...channel,
      color: "#76ce90",
      pin_to_top: false,
      is_muted: false,
      in_home_view: true,
      desktop_notifications: null,
      email_notifications: null,
      push_notifications: null,
      audible_notifications: null,
      wildcard_mentions_notify: null,
      subscribers: [3]
    }
    const add = { type: "subscription", op: "add", subscriptions: [sub] }
    checks(add, [["a subscription with is_default", { ...add, subscriptions: [{ ...sub, is_default: false }] }]])
    const peer = { type: "subscription", op: "peer_add", stream_ids: [7], user_ids: [4] }
    checks(peer, [["one id instead of a list", { ...peer, user_ids: 4 }]])
  })

  it("realm_user: one group of fields per update", () => {
    const update = { type: "realm_user", op: "update", person: { user_id: 3, full_name: "Hamlet" } }
    checks(update, [
      ["two groups at once", { ...update, person: { user_id: 3, full_name: "Hamlet", role: 400 } }],
      ["an unknown role", { ...update, person: { user_id: 3, role: 500 } }],
      ["no user id", { ...update, person: { full_name: "Hamlet" } }]
    ])
    checks({ type: "realm_user", op: "update", person: { user_id: 3, delivery_email: null } }, [])
    const remove = { type: "realm_user", op: "remove", person: { user_id: 3, full_name: "Hamlet" } }
    checks(remove, [["a whole user", { ...remove, person: { ...remove.person, email: "hamlet@example.test" } }]])
  })

  it("user_group: ops and their fields", () => {
    const add = { type: "user_group", op: "add", group }
    checks(add, [["a group without deactivated", { ...add, group: { ...group, deactivated: undefined } }]])
    const update = { type: "user_group", op: "update", group_id: 20, data: { name: "frontend" } }
    checks(update, [["an unknown field", { ...update, data: { color: "red" } }]])
    checks({ type: "user_group", op: "add_members", group_id: 20, user_ids: [4] }, [
      ["subgroups as members", { type: "user_group", op: "add_members", group_id: 20, direct_subgroup_ids: [4] }]
    ])
  })

  it("presence and user_status", () => {
    const modern = { type: "presence", presences: { "3": { active_timestamp: 1, idle_timestamp: 2 } } }
    checks(modern, [["both forms at once", { ...modern, email: "hamlet@example.test" }]])
    const legacy = {
      type: "presence",
      email: "hamlet@example.test",
      user_id: 3,
      server_timestamp: 1_767_225_600.25,
      presence: { website: { client: "website", status: "active", timestamp: 1_767_225_600, pushable: false } }
    }
    checks(legacy, [["an unknown status", { ...legacy, presence: { website: { ...legacy.presence.website, status: "away" } } }]])
    const status = { type: "user_status", user_id: 3, status_text: "out", away: false }
    checks(status, [["a number as text", { ...status, status_text: 1 }]])
  })

  it("settings, alert words, push devices", () => {
    checks({ type: "user_settings", op: "update", property: "enter_sends", value: true }, [
      ["an object value", { type: "user_settings", op: "update", property: "enter_sends", value: {} }]
    ])
    checks({ type: "update_display_settings", user: "hamlet@example.test", setting_name: "timezone", setting: "UTC" }, [
      ["the modern name", { type: "update_display_settings", user: "hamlet@example.test", property: "timezone", value: "UTC" }]
    ])
    checks({ type: "alert_words", alert_words: ["castle"] }, [["one word", { type: "alert_words", alert_words: "castle" }]])
    checks({ type: "push_device", push_account_id: "1", status: "failed", error_code: "BAD" }, [
      ["an unknown status", { type: "push_device", push_account_id: "1", status: "gone" }]
    ])
  })

  it("drafts, saved snippets, scheduled messages", () => {
    const draft = { id: 1, type: "stream", to: [7], topic: "castle", content: "hi", timestamp: 1_767_225_600 }
    checks({ type: "drafts", op: "add", drafts: [draft] }, [
      ["a draft where a list is expected", { type: "drafts", op: "add", drafts: draft }],
      ["an unknown draft type", { type: "drafts", op: "update", draft: { ...draft, type: "channel" } }]
    ])
    checks({ type: "saved_snippets", op: "remove", saved_snippet_id: 1 }, [
      ["the snippet instead of its id", { type: "saved_snippets", op: "remove", saved_snippet: {} }]
    ])
    const scheduled = {
      scheduled_message_id: 1,
      type: "private",
      to: [4],
      content: "hi",
      rendered_content: "<p>hi</p>",
      scheduled_delivery_timestamp: 1_767_229_200,
      failed: false
    }
    checks({ type: "scheduled_messages", op: "update", scheduled_message: scheduled }, [
      ["a direct message with a topic", {
        type: "scheduled_messages",
        op: "update",
        scheduled_message: { ...scheduled, topic: "castle" }
      }]
    ])
  })

  it("custom_profile_fields, invites_changed, heartbeat", () => {
    const field = {
      id: 1,
      name: "Phone",
      type: 1,
      hint: "",
      field_data: "",
      order: 1,
      required: false,
      editable_by_user: true
    }
    checks({ type: "custom_profile_fields", fields: [field] }, [
      ["display_in_profile_summary false (only true is sent)", {
        type: "custom_profile_fields",
        fields: [{ ...field, display_in_profile_summary: false }]
      }]
    ])
    checks({ type: "invites_changed" }, [["an extra field", { type: "invites_changed", count: 1 }]])
    assert.isTrue(refused(checkPublished, { type: "heartbeat" }), "a heartbeat is never published")
    assert.deepStrictEqual(checkClient({ type: "heartbeat", id: 9 }), { type: "heartbeat", id: 9 })
    assert.isTrue(refused(checkPublished, { type: "no_such_type" }))
  })

  it("user_topic, muted_topics, muted_users", () => {
    const topic = { type: "user_topic", stream_id: 7, topic_name: "castle", last_updated: 1_767_225_600, visibility_policy: 1 }
    checks(topic, [
      ["a policy outside 0-3", { ...topic, visibility_policy: 4 }],
      ["a fractional time", { ...topic, last_updated: 1.5 }],
      ["the legacy key topic", { ...topic, topic_name: undefined, topic: "castle" }]
    ])
    checks({ type: "user_topic", stream_id: 7, topic_name: "", last_updated: 1_767_225_600, visibility_policy: 0 }, [])
    checks({ type: "muted_topics", muted_topics: [["Denmark", "castle", 1_767_225_600]] }, [
      ["a pair without its time", { type: "muted_topics", muted_topics: [["Denmark", "castle"]] }],
      ["a channel id for its name", { type: "muted_topics", muted_topics: [[7, "castle", 1_767_225_600]] }]
    ])
    checks({ type: "muted_users", muted_users: [{ id: 10, timestamp: 1_767_225_600 }] }, [
      ["ids alone", { type: "muted_users", muted_users: [10] }],
      ["an extra field", { type: "muted_users", muted_users: [{ id: 10, timestamp: 1, date_muted: 1 }] }]
    ])
  })

  it("EventTypes names every type once, sorted", () => {
    assert.deepStrictEqual(EventTypes, [...new Set(EventTypes)].sort())
    assert.includeMembers([...EventTypes], ["message", "update_message", "delete_message", "reaction", "typing", "typing_edit_message", "heartbeat"])
  })
})

describe("the check on published events", () => {
  layer(backends.memory())((it) => {
    it.effect("a malformed event published through the checked Events is a defect, and nothing is published", () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const events = yield* Events
        const queue = yield* openQueue(org.member)
        const malformed = { type: "alert_words", alert_words: ["castle"], count: 1 } as unknown as EventPayload
        const exit = yield* Effect.exit(events.publish(org.realm.id, malformed, Audience.users([org.member.user.id])))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), String(exit))
        const wellFormed: EventPayload = { type: "alert_words", alert_words: ["castle"] }
        yield* events.publish(org.realm.id, wellFormed, Audience.users([org.member.user.id]))
        assert.deepStrictEqual((yield* queue.drain).map(alertWordsOf), [["castle"]])
      }))
  })
})
