/**
 * Messages over the wire, written once and run on every core backend:
 * POST /messages, GET /messages, GET, PATCH and DELETE /messages/{id}, GET
 * /messages/{id}/history, POST /messages/flags,
 * POST /messages/flags/narrow, POST /streams/{stream_id}/delete_topic, POST
 * /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read, GET
 * /messages/{message_id}/read_receipts, POST /submessage (and widget
 * messages), POST and DELETE /messages/{message_id}/reactions, the
 * message-dependent parts of POST /register and GET /users/me, and the
 * `message`, `update_message_flags`, `update_message`, `delete_message`,
 * `submessage`, `reaction` and `stream` events.
 *
 * Bodies are compared whole with Zulip's. One server per backend is shared
 * by the tests, so every test uses its own topics (or its own channel) and
 * reads through narrows; the harness clock is shared too, so each test moves
 * it forward and computes its timestamps from it.
 *
 * The cases live by area under messages/ (fixtures.ts holds what they
 * share); this file runs them on one server per backend.
 */
import { describe, layer } from "@effect/vitest"
import type { Backend } from "./Harness.ts"
import { demoLayer, layerServer } from "./Harness.ts"
import { deleteTests } from "./messages/Delete.ts"
import { deleteTopicTests } from "./messages/DeleteTopic.ts"
import { editTests } from "./messages/Edit.ts"
import { channelMoveTests } from "./messages/ChannelMove.ts"
import { demoTests } from "./messages/Demo.ts"
import { eventsTests } from "./messages/Events.ts"
import { flagsTests } from "./messages/Flags.ts"
import { flagsNarrowTests } from "./messages/FlagsNarrow.ts"
import { listTests } from "./messages/List.ts"
import { lookupsTests } from "./messages/Lookups.ts"
import { matchesNarrowTests } from "./messages/MatchesNarrow.ts"
import { readStateTests } from "./messages/ReadState.ts"
import { reactionsTests } from "./messages/Reactions.ts"
import { registerTests } from "./messages/Register.ts"
import { sendTests } from "./messages/Send.ts"
import { submessageTests } from "./messages/Submessages.ts"
import { topicListTests } from "./messages/TopicList.ts"
import { topicPolicyTests } from "./messages/TopicPolicies.ts"
import { privateNoticeTests } from "./messages/PrivateNotices.ts"
import { typingTests } from "./messages/Typing.ts"

export const messagesContract = (backend: Backend) =>
  describe(`messages over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "180 seconds" })((it) => {
      demoTests(it)
      sendTests(it)
      listTests(it)
      flagsTests(it)
      flagsNarrowTests(it)
      editTests(it)
      channelMoveTests(it)
      topicPolicyTests(it)
      privateNoticeTests(it)
      deleteTests(it)
      registerTests(it)
      eventsTests(it)
      deleteTopicTests(it)
      readStateTests(it)
      matchesNarrowTests(it)
      submessageTests(it)
      reactionsTests(it)
      typingTests(it)
      topicListTests(it)
      lookupsTests(it)
    })
  })
