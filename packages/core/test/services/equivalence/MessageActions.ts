/**
 * Equivalence commands about everyday messaging after a send: edits of
 * content, topic moves (change_one, change_later, change_all), resolving
 * and unresolving topics, moves to another channel (`stream_id`), deletion,
 * reactions added and removed, user topics and muted users, marking all /
 * a channel / a topic as read, submessages (poll votes and options, to-do
 * tasks, refused data) on widget messages, topic lists and topic deletion,
 * and the organization's editing policies. Each command is drawn valid and
 * invalid (missing ids, bad names, refused data) and by several roles: the
 * message's sender or another user of the run.
 *
 * Observed (besides the messages, flags and narrows the messaging area
 * observes, which carry reactions, submessages and edit history): each
 * active user's topic policies, muted users and topic list of every channel,
 * and the owner's edit history of every message of the run.
 */
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as Schema from "effect/Schema"
import { emojiCode } from "../../../src/domain/Emoji.ts"
import type { UserId } from "../../../src/domain/Ids.ts"
import { messageId } from "../../../src/domain/Ids.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import { MutingRepo } from "../../../src/ports/MutingRepo.ts"
import { ChannelRepo, MessageRepo, RealmRepo } from "../../../src/ports/Repositories.ts"
import { MessageDeletion } from "../../../src/services/MessageDeletion.ts"
import { MessageEdits } from "../../../src/services/MessageEdits.ts"
import { MessageFlags } from "../../../src/services/MessageFlags.ts"
import { Messages } from "../../../src/services/Messages.ts"
import { Muting } from "../../../src/services/Muting.ts"
import { Reactions } from "../../../src/services/Reactions.ts"
import { Submessages } from "../../../src/services/Submessages.ts"
import { Topics } from "../../../src/services/Topics.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Pool, remembered, rememberedAt } from "./Runner.ts"

/**
 * Who acts on a message: 0-3 its sender, 4-9 the user at Pick `by - 4`
 * (9: nobody, skipped).
 */
const By = Pool(10)
/** 0-3: change_one, change_later, change_all, change_later; 4: a mode Zulip refuses. */
const Mode = Pool(5)

const commands = [
  /** 0: a poll, 1: a to-do list, 2: a poll without options, 3: plain text; to topics in several spellings. */
  [4, Schema.TaggedStruct("SendToTopic", { sender: Pick, channel: Pick, kind: Pool(4), topic: Pool(8) })],
  /** `sha` 0 and 3: none, 1: the current content's, 2: a stale one. */
  [6, Schema.TaggedStruct("EditContent", { by: By, message: Pick, content: Pool(5), sha: Pool(4) })],
  [6, Schema.TaggedStruct("MoveTopic", {
    by: By,
    message: Pick,
    topic: Pool(8),
    mode: Mode,
    notifyOld: Schema.Boolean,
    notifyNew: Schema.Boolean,
    /** Also a new content (refused beyond one message). */
    withContent: Schema.Boolean
  })],
  /** Resolves a topic, or unresolves a resolved one (`again`: asks for the topic it has, refused). */
  [5, Schema.TaggedStruct("ResolveTopic", { by: By, message: Pick, again: Pool(6), mode: Mode, notifyNew: Schema.Boolean })],
  [4, Schema.TaggedStruct("MoveChannel", {
    by: By,
    message: Pick,
    channel: Pick,
    /** 7: the topic stays. */
    topic: Pool(8),
    mode: Mode,
    notifyOld: Schema.Boolean,
    notifyNew: Schema.Boolean
  })],
  [3, Schema.TaggedStruct("DeleteMessage", { by: By, message: Pick })],
  [6, Schema.TaggedStruct("React", { by: Pick, message: Pick, emoji: Pool(8) })],
  /** A reaction of the run (`byOther` 3: someone else takes it back, refused), by name or by code. */
  [4, Schema.TaggedStruct("Unreact", { which: Pick, byOther: Pool(4), byCode: Schema.Boolean })],
  /** In the channel of a message of the run (`message` 5: a missing channel); `topic` as for MarkTopicRead. */
  [5, Schema.TaggedStruct("UserTopic", { user: Pick, message: Pick, topic: Pool(13), policy: Pool(6) })],
  [3, Schema.TaggedStruct("MuteUser", { user: Pick, target: Pick })],
  /** A mute of the run (`byOther` 3: someone else unmutes that user; `which` 5: a user nobody muted). */
  [2, Schema.TaggedStruct("UnmuteUser", { which: Pick, byOther: Pool(4) })],
  [2, Schema.TaggedStruct("MarkAllRead", { user: Pick })],
  [3, Schema.TaggedStruct("MarkChannelRead", { user: Pick, channel: Pick })],
  /** In the channel of a message of the run; `topic` 0-2: that message's, upper-cased, lower-cased; then named ones. */
  [3, Schema.TaggedStruct("MarkTopicRead", { user: Pick, message: Pick, topic: Pool(13) })],
  /** On a widget message of the run (`anyMessage` 3: any message of the run). */
  [7, Schema.TaggedStruct("Submessage", { by: By, which: Pick, anyMessage: Pool(4), data: Pool(10) })],
  [3, Schema.TaggedStruct("ListTopics", { user: Pick, channel: Pick, allowEmpty: Schema.Boolean })],
  /** `by` 0-3: the owner; 4-9 the user at Pick `by` (5: nobody); channel and topic as for MarkTopicRead. */
  [1, Schema.TaggedStruct("DeleteTopic", { by: By, message: Pick, topic: Pool(13) })],
  [2, Schema.TaggedStruct("MessagePolicy", { kind: Pool(7) })]
] as const

type ActionsCommand = typeof commands[number][1]["Type"]

/** The commands whose success the message-action scripts must reach. */
export const messageActionsMustSucceed = [
  "SendToTopic",
  "EditContent",
  "MoveTopic",
  "ResolveTopic",
  "UnresolveTopic",
  "MoveChannel",
  "DeleteMessage",
  "React",
  "Unreact",
  "UserTopic",
  "MuteUser",
  "UnmuteUser",
  "MarkAllRead",
  "MarkChannelRead",
  "MarkTopicRead",
  "Vote",
  "ListTopics",
  "MessagePolicy"
] as const

const sentContent = (kind: number) =>
  ["/poll Lunch?\nPizza\n- Tacos", "/todo Chores\nDishes: tonight\n* Laundry", "/poll", "plain"][kind]!
/**
 * The scripts' topics, one in other cases, topics that differ only in the
 * case of non-ASCII letters, and topics that sort apart by code point and by
 * UTF-16 code unit (an emoji, a fullwidth form).
 */
const sentTopic = (kind: number) => ["topic 0", "topic 1", "Topic 2", "Café", "CAFÉ", "Ωmega ΣΑΣ", "🎉 launch", "Ｑ＆Ａ"][kind]!
/** Edited contents: plain, Markdown, a wildcard, empty ("(deleted)"), over the limit (truncated). */
const editedContent = (kind: number) =>
  ["edited", "**bold** edit", "@**all** again", "   ", "x".repeat(10_010)][kind]!
/** Topics to move to: the scripts' own (in another case too), new, empty, resolved, too long, the empty topic's name, one with spaces. */
const movedTopic = (kind: number) =>
  ["topic 1", "TOPIC 0", "café", "", "✔ topic 2", "t".repeat(61), "general chat", "  topic 2  "][kind]!
const propagateMode = (kind: number) => ["change_one", "change_later", "change_all", "change_later", "change_some"][kind]!
/** Topics named by user topics and mark_topic_as_read: the scripts' own, other spellings, the empty topic, too long, as sent. */
const namedTopic = (kind: number) =>
  ["topic 0", "Topic 1", "✔ topic 2", "general chat", "", "t".repeat(61), "CAFÉ", "ωmega σας", "🎉 launch", "Ｑ＆Ａ"][kind]!
/** Zulip's policies 0-3, then two it refuses. */
const visibilityPolicy = (kind: number) => [0, 1, 2, 3, 4, -1][kind]!

/** Reactions: by name alone, with their code and type, mismatched, unknown, custom, the Zulip emoji, a bad type. */
const reactionOf = (kind: number) => {
  const smile = emojiCode("smile")!
  const octopus = emojiCode("octopus")!
  return [
    { emoji_name: "smile" },
    { emoji_name: "octopus", emoji_code: octopus, reaction_type: "unicode_emoji" },
    { emoji_name: "smile", emoji_code: octopus, reaction_type: "unicode_emoji" },
    { emoji_name: "no_such_emoji" },
    { emoji_name: "party_parrot", emoji_code: "1", reaction_type: "realm_emoji" },
    { emoji_name: "zulip" },
    { emoji_name: "smile", emoji_code: smile, reaction_type: "emoji_kind" },
    { emoji_name: "octopus" }
  ][kind]!
}

/** Submessage data: poll votes, options and a question; to-do tasks and strikes; refused data. */
const submessageData = (kind: number): { readonly msg_type: string; readonly content: string } =>
  [
    { msg_type: "widget", content: "{\"type\": \"vote\", \"key\": \"canned,0\", \"vote\": 1}" },
    { msg_type: "widget", content: "{\"type\": \"vote\", \"key\": \"canned,1\", \"vote\": -1}" },
    { msg_type: "widget", content: "{\"type\": \"new_option\", \"idx\": 1, \"option\": \"Soup\"}" },
    { msg_type: "widget", content: "{\"type\": \"question\", \"question\": \"Dinner?\"}" },
    { msg_type: "widget", content: "{\"type\": \"new_task\", \"key\": 7, \"task\": \"Shop\", \"desc\": \"\", \"completed\": false}" },
    { msg_type: "widget", content: "{\"type\": \"strike\", \"key\": \"0,canned\"}" },
    { msg_type: "widget", content: "{\"type\": \"vote\"" },
    { msg_type: "widget", content: "[1, 2]" },
    { msg_type: "widget", content: "{\"type\": \"bogus\"}" },
    { msg_type: "other", content: "{\"type\": \"vote\", \"key\": \"canned,0\", \"vote\": 1.0}" }
  ][kind]!

const tags = new Set<string>(commands.map(([, schema]) => schema.fields._tag.schema.literal))

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (!tags.has(raw._tag)) return undefined
  const command = raw as unknown as ActionsCommand
  return Effect.gen(function*() {
    const messages = yield* Messages
    const edits = yield* MessageEdits
    const deletion = yield* MessageDeletion
    const reactions = yield* Reactions
    const muting = yield* Muting
    const flags = yield* MessageFlags
    const submessages = yield* Submessages
    const topics = yield* Topics
    const messageRepo = yield* MessageRepo
    const realms = yield* RealmRepo

    const message = (i: number) => w.pickFrom(w.messageIds, i, (n) => n)
    /** The channel of the message at Pick `i` (a missing one for 5 or a direct message's) and a topic named after it. */
    const topicOf = (i: number, kind: number) =>
      Effect.map(find(message(i)), (found) => {
        const own = found?.topic ?? "topic 0"
        return {
          channel: i === 5 ? 900_005 : (found?.channel_id ?? w.channelAt(0)),
          topic: kind === 0 ? own : kind === 1 ? own.toUpperCase() : kind === 2 ? own.toLowerCase() : namedTopic(kind - 3)
        }
      })
    /** The message (undefined when missing or deleted). */
    const find = (id: number) => messageRepo.findById(messageId(id))
    /** Runs `f` as who `by` names for the message `id`. */
    const asActor = <R>(by: number, id: number, f: (principal: Principal) => Effect.Effect<Outcome, never, R>) =>
      Effect.gen(function*() {
        const sender: UserId = (yield* find(id))?.sender_id ?? w.ownerId
        if (by < 4) {
          const principal = yield* w.callerById(sender)
          return principal === undefined ? { skipped: "no such active user" } as Outcome : yield* f(principal)
        }
        return yield* w.asCaller(by - 4, f)
      })

    switch (command._tag) {
      case "SendToTopic":
        return yield* w.asCaller(command.sender, (principal) =>
          Effect.gen(function*() {
            const result = yield* outcome(messages.send(principal, {
              type: "channel",
              to: w.channelAt(command.channel),
              topic: sentTopic(command.topic),
              content: sentContent(command.kind)
            }))
            if ("ok" in result) {
              const id = (result.ok as { id: number }).id
              w.messageIds.push(id)
              if (command.kind < 3) remembered(w, "widgets").push({ id, owner: principal.user.id })
            }
            return result
          }))
      case "EditContent": {
        const id = message(command.message)
        const current = yield* find(id)
        return yield* asActor(command.by, id, (principal) =>
          outcome(edits.edit(principal, id, {
            content: editedContent(command.content),
            ...(command.sha === 0 || command.sha === 3
              ? {}
              : {
                prev_content_sha256: command.sha === 1 && current !== undefined
                  ? sha256(current.content)
                  : sha256("something else")
              })
          })))
      }
      case "MoveTopic": {
        const id = message(command.message)
        return yield* asActor(command.by, id, (principal) =>
          outcome(edits.edit(principal, id, {
            topic: movedTopic(command.topic),
            propagate_mode: propagateMode(command.mode),
            send_notification_to_old_thread: command.notifyOld,
            send_notification_to_new_thread: command.notifyNew,
            ...(command.withContent ? { content: "moved and edited" } : {})
          })))
      }
      case "ResolveTopic": {
        const id = message(command.message)
        const current = yield* find(id)
        const topic = current?.topic ?? "topic 0"
        const resolved = topic.startsWith("✔ ")
        const toggled = resolved ? topic.slice(2) : `✔ ${topic}`
        return yield* asActor(command.by, id, (principal) =>
          Effect.map(
            outcome(edits.edit(principal, id, {
              topic: command.again === 5 ? topic : toggled,
              propagate_mode: propagateMode(command.mode),
              send_notification_to_new_thread: command.notifyNew
            })),
            (result): Outcome => "ok" in result ? { ok: { resolved: !resolved, result: result.ok } } : result
          ))
      }
      case "MoveChannel": {
        const id = message(command.message)
        return yield* asActor(command.by, id, (principal) =>
          outcome(edits.edit(principal, id, {
            stream_id: w.channelAt(command.channel),
            ...(command.topic === 7 ? {} : { topic: movedTopic(command.topic) }),
            propagate_mode: propagateMode(command.mode),
            send_notification_to_old_thread: command.notifyOld,
            send_notification_to_new_thread: command.notifyNew
          })))
      }
      case "DeleteMessage": {
        const id = message(command.message)
        return yield* asActor(command.by, id, (principal) => outcome(deletion.deleteMessage(principal, id)))
      }
      case "React":
        return yield* w.asCaller(command.by, (principal) =>
          Effect.gen(function*() {
            const id = message(command.message)
            const result = yield* outcome(reactions.add(principal, id, reactionOf(command.emoji)))
            if ("ok" in result) remembered(w, "reactions").push({ id, owner: principal.user.id, key: String(command.emoji) })
            return result
          }))
      case "Unreact": {
        const target = rememberedAt(w, "reactions", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* Effect.suspend(() => {
          const r = reactionOf(target.key === "missing" ? 0 : Number(target.key))
          // By code: the code alone (with its type when given); a name-only reaction has none, so its name's code.
          const byCode = {
            emoji_code: "emoji_code" in r ? r.emoji_code : (emojiCode(r.emoji_name) ?? r.emoji_name),
            ...("reaction_type" in r ? { reaction_type: r.reaction_type } : {})
          }
          return outcome(reactions.remove(principal, target.id, command.byCode ? byCode : r))
        })
      }
      case "UserTopic": {
        const { channel, topic } = yield* topicOf(command.message, command.topic)
        return yield* w.asCaller(command.user, (principal) =>
          outcome(muting.updateUserTopic(principal, {
            stream_id: channel,
            topic,
            visibility_policy: visibilityPolicy(command.policy)
          })))
      }
      case "MuteUser":
        return yield* w.asCaller(command.user, (principal) =>
          Effect.gen(function*() {
            const target = w.userAt(command.target)
            const result = yield* outcome(muting.muteUser(principal, target))
            if ("ok" in result) remembered(w, "mutes").push({ id: target, owner: principal.user.id, key: "muted" })
            return result
          }))
      case "UnmuteUser": {
        const target = rememberedAt(w, "mutes", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        // A missing mute: the owner unmutes the first other user (mostly not muted).
        const muted = target.key === "missing" ? (w.userIds[1] ?? target.id) : target.id
        return yield* outcome(muting.unmuteUser(principal, muted))
      }
      case "MarkAllRead":
        return yield* w.asCaller(command.user, (principal) => outcome(flags.markAllAsRead(principal)))
      case "MarkChannelRead":
        return yield* w.asCaller(command.user, (principal) =>
          outcome(flags.markChannelAsRead(principal, w.channelAt(command.channel))))
      case "MarkTopicRead": {
        const { channel, topic } = yield* topicOf(command.message, command.topic)
        return yield* w.asCaller(command.user, (principal) => outcome(flags.markTopicAsRead(principal, channel, topic)))
      }
      case "Submessage": {
        const widgets = remembered(w, "widgets").map((r) => r.id)
        const id = command.anyMessage === 3 ? message(command.which) : w.pickFrom(widgets, command.which, (n) => n)
        return yield* asActor(command.by, id, (principal) =>
          outcome(submessages.add(principal, { message_id: id, ...submessageData(command.data) })))
      }
      case "ListTopics":
        return yield* w.asCaller(command.user, (principal) =>
          outcome(topics.list(principal, w.channelAt(command.channel), { allowEmptyTopicName: command.allowEmpty })))
      case "DeleteTopic": {
        const { channel, topic } = yield* topicOf(command.message, command.topic)
        return yield* w.asAdministrator(command.by, (principal) => outcome(topics.deleteTopic(principal, channel, topic)))
      }
      case "MessagePolicy": {
        const current = (yield* realms.findById(w.realmId))!
        const g = w.systemGroups
        const changes = [
          // Zulip's defaults for a new organization.
          {
            allow_message_editing: true,
            message_content_edit_limit_seconds: 600,
            move_messages_within_stream_limit_seconds: 604800,
            move_messages_between_streams_limit_seconds: 604800,
            message_content_delete_limit_seconds: current.settings.message_content_delete_limit_seconds,
            can_move_messages_between_topics_group: g["role:everyone"]!,
            can_move_messages_between_channels_group: g["role:members"]!,
            can_delete_own_message_group: g["role:everyone"]!
          },
          { message_content_edit_limit_seconds: null, message_content_delete_limit_seconds: null },
          { allow_message_editing: false },
          {
            can_move_messages_between_topics_group: g["role:moderators"]!,
            can_move_messages_between_channels_group: g["role:moderators"]!,
            can_delete_own_message_group: g["role:members"]!
          },
          { move_messages_within_stream_limit_seconds: 60, move_messages_between_streams_limit_seconds: 60 },
          { message_edit_history_visibility_policy: "moves" as const, can_delete_any_message_group: g["role:moderators"]! },
          { message_edit_history_visibility_policy: "none" as const, can_delete_own_message_group: g["role:nobody"]! }
        ][command.kind]!
        yield* realms.update({ ...current, settings: { ...current.settings, ...changes } })
        return { ok: command.kind }
      }
    }
  })
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

const observe = (w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const topics = yield* Topics
    const edits = yield* MessageEdits
    const mutingRepo = yield* MutingRepo
    const channels = (yield* (yield* ChannelRepo).listByRealm(w.realmId)).map((c) => c.id as number)
    const owner = yield* w.principalOf(w.ownerId)
    return {
      perViewer: yield* Effect.forEach(viewers, (principal) =>
        Effect.gen(function*() {
          return {
            user: principal.user.id,
            userTopics: yield* mutingRepo.listTopics(principal.user.id),
            muted: yield* mutingRepo.listMuted(principal.user.id),
            topics: yield* Effect.forEach(
              [...channels, 900_000],
              (channel) => outcome(topics.list(principal, channel, { allowEmptyTopicName: false }))
            )
          }
        })),
      history: yield* Effect.forEach(w.messageIds, (id) => outcome(edits.history(owner, id, { allow_empty_topic_name: true })))
    }
  })

/** Resolving and unresolving count apart (a resolve's value says which); a submessage counts as "Vote". */
const reached = (command: Command, result: { readonly ok: unknown }) =>
  command._tag === "ResolveTopic"
    ? ((result.ok as { resolved: boolean }).resolved ? "ResolveTopic" : "UnresolveTopic")
    : command._tag === "Submessage"
    ? "Vote"
    : command._tag

export const messageActions: Area = { name: "messageActions", commands, step, observe, reached }
