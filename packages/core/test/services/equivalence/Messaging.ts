/**
 * Equivalence commands about messages: sends, fetches with narrows, flags
 * (by id and by narrow) and scheduled messages (create, edit, delete,
 * delivery on the script's clock). Observed: every narrow of the scripts as
 * each active user fetches it, every user's messages with their flags, and
 * their scheduled messages.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { Principal } from "../../../src/domain/Principal.ts"
import { MessageRepo, ChannelRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { ScheduledMessageRepo } from "../../../src/ports/ScheduledMessageRepo.ts"
import { MessageFlags } from "../../../src/services/MessageFlags.ts"
import { Messages } from "../../../src/services/Messages.ts"
import { ScheduledDelivery } from "../../../src/services/ScheduledDelivery.ts"
import { ScheduledMessages } from "../../../src/services/ScheduledMessages.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { MissingPick, outcome, Pick, Picks, Pool } from "./Runner.ts"

const commands = [
  [10, Schema.TaggedStruct("Send", {
    sender: Pick,
    toChannel: Schema.Boolean,
    channel: Pick,
    recipients: Picks,
    topic: Pool(3),
    content: Pool(5)
  })],
  [3, Schema.TaggedStruct("Fetch", { viewer: Pick, narrow: Pool(8), target: Pick, anchor: Pool(4), before: Pool(3), after: Pool(3) })],
  [4, Schema.TaggedStruct("Flags", { user: Pick, messages: Picks, op: Pool(5), flag: Pool(6) })],
  [4, Schema.TaggedStruct("FlagsByNarrow", {
    user: Pick,
    narrow: Pool(8),
    target: Pick,
    anchor: Pool(4),
    before: Pool(3),
    after: Pool(3),
    op: Pool(5),
    flag: Pool(6)
  })],
  [4, Schema.TaggedStruct("Schedule", {
    sender: Pick,
    toChannel: Schema.Boolean,
    channel: Pick,
    recipients: Picks,
    content: Pool(5),
    inMinutes: Pool(4)
  })],
  /** `byOther` 3: someone other than the sender tries (refused). */
  [4, Schema.TaggedStruct("EditScheduled", { which: Pick, byOther: Pool(4), content: Pool(6), inMinutes: Pool(5) })],
  [3, Schema.TaggedStruct("DeleteScheduled", { which: Pick, byOther: Pool(4) })],
  [3, Schema.TaggedStruct("Deliver", { minutes: Pool(4) })]
] as const

type MessagingCommand = typeof commands[number][1]["Type"]

/** The message commands whose success the messaging scripts must reach (and "Delivered": a delivery pass that handled a row). */
export const messagingMustSucceed = [
  "Send",
  "Fetch",
  "Flags",
  "FlagsByNarrow",
  "Schedule",
  "EditScheduled",
  "DeleteScheduled",
  "Delivered"
] as const

/** Message contents: plain, Markdown, a mention, empty (refused), a wildcard. */
const messageContent = (kind: number) => ["hello", "**bold** and `code`", "@**Owner** look", "   ", "@**all** hands"][kind]!
/** Narrows over a channel and a user picked by the command; the last one is refused. */
const narrowOf = (kind: number, channel: number, user: number): unknown =>
  [
    [],
    [{ operator: "channel", operand: channel }],
    [{ operator: "channel", operand: channel }, { operator: "topic", operand: "topic 0" }],
    [{ operator: "is", operand: "unread" }],
    [{ operator: "is", operand: "starred" }],
    [{ operator: "dm", operand: [user] }],
    [{ operator: "is", operand: "mentioned" }, { operator: "sender", operand: user, negated: true }],
    [{ operator: "bogus", operand: "x" }]
  ][kind]
const narrowKinds = [0, 1, 2, 3, 4, 5, 6]
/** Mostly valid; "toggle" is refused, "mentioned" is not editable, "bogus" is no flag. */
const flagOperation = (kind: number) => ["add", "remove", "toggle", "add", "remove"][kind]!
const flagName = (kind: number) => ["read", "starred", "mentioned", "bogus", "collapsed", "read"][kind]!

const tags = new Set<string>(commands.map(([, schema]) => schema.fields._tag.schema.literal))

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (!tags.has(raw._tag)) return undefined
  const command = raw as unknown as MessagingCommand
  return Effect.gen(function*() {
    const messages = yield* Messages
    const flags = yield* MessageFlags
    const scheduled = yield* ScheduledMessages
    const delivery = yield* ScheduledDelivery
    /** A scheduled message (or a missing id) and who acts on it: its sender, or another user. */
    const scheduledOf = (which: number, byOther: number) => {
      if (which === MissingPick || w.scheduledIds.length === 0) return { id: 900_000 + which, by: w.ownerId }
      const target = w.scheduledIds[which % w.scheduledIds.length]!
      const other = w.userIds.find((id) => id !== target.sender) ?? target.sender
      return { id: target.id, by: byOther === 3 ? other : target.sender }
    }
    const message = (i: number) => w.pickFrom(w.messageIds, i, (n) => n)
    const anchorOf = (kind: number, target: number) =>
      kind === 0
        ? { _tag: "newest" as const }
        : kind === 1
        ? { _tag: "oldest" as const }
        : kind === 2
        ? { _tag: "first_unread" as const }
        : { _tag: "id" as const, id: message(target) }
    /** The anchored range and narrow of a fetch or flags/narrow command. */
    const rangeOf = (c: {
      readonly anchor: number
      readonly target: number
      readonly before: number
      readonly after: number
      readonly narrow: number
    }) => ({
      anchor: anchorOf(c.anchor, c.target),
      include_anchor: true,
      num_before: c.before * 2,
      num_after: c.after * 2,
      narrow: narrowOf(c.narrow, w.channelAt(c.target), w.userAt(c.target))
    })
    switch (command._tag) {
      case "Send":
        return yield* w.asCaller(command.sender, (principal) =>
          Effect.gen(function*() {
            const result = yield* outcome(messages.send(principal, {
              type: command.toChannel ? "channel" : "direct",
              to: command.toChannel ? w.channelAt(command.channel) : command.recipients.map(w.userAt),
              topic: `topic ${command.topic}`,
              content: messageContent(command.content)
            }))
            if ("ok" in result) w.messageIds.push((result.ok as { id: number }).id)
            return result
          }))
      case "Fetch":
        return yield* w.asCaller(command.viewer, (principal) =>
          outcome(messages.fetch(principal, {
            ...rangeOf(command),
            apply_markdown: true,
            client_gravatar: true,
            allow_empty_topic_name: true
          })))
      case "Flags":
        return yield* w.asCaller(command.user, (principal) =>
          outcome(flags.update(principal, {
            messages: command.messages.map(message),
            op: flagOperation(command.op),
            flag: flagName(command.flag)
          })))
      case "FlagsByNarrow":
        return yield* w.asCaller(command.user, (principal) =>
          outcome(flags.updateByNarrow(principal, {
            ...rangeOf(command),
            op: flagOperation(command.op),
            flag: flagName(command.flag)
          })))
      case "Schedule":
        return yield* w.asCaller(command.sender, (principal) =>
          Effect.gen(function*() {
            // -1: a time in the past (refused); 3600: pending for the whole script.
            const at = (yield* w.now) + [-1, 1, 20, 3600][command.inMinutes]! * 60
            const result = yield* outcome(scheduled.create(principal, {
              type: command.toChannel ? "channel" : "direct",
              to: command.toChannel ? w.channelAt(command.channel) : command.recipients.map(w.userAt),
              topic: "later",
              content: messageContent(command.content),
              scheduled_delivery_timestamp: at
            }, { client: "website" }))
            if ("ok" in result) w.scheduledIds.push({ id: result.ok as number, sender: principal.user.id })
            return result
          }))
      case "EditScheduled": {
        const target = scheduledOf(command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        // Content kind 5 and time kind 4: leave that field alone (both alone: nothing to change).
        const minutes = [-1, 30, 90, 600][command.inMinutes]
        return yield* outcome(scheduled.update(principal, target.id, {
          ...(command.content === 5 ? {} : { content: messageContent(command.content) }),
          ...(minutes === undefined ? {} : { scheduled_delivery_timestamp: (yield* w.now) + minutes * 60 })
        }))
      }
      case "DeleteScheduled": {
        const target = scheduledOf(command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* outcome(scheduled.remove(principal, target.id))
      }
      case "Deliver": {
        // Up to 45 minutes: some rows go out on time, some too late (after 10 minutes) and fail.
        yield* TestClock.adjust(`${[0, 1, 20, 45][command.minutes]!} minutes`)
        const outcomes = yield* delivery.runDue
        return { ok: outcomes.map((o) => ({ ...o })) }
      }
    }
  })
}

const observe = (w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    const scheduled = yield* ScheduledMessages
    const messageRepo = yield* MessageRepo
    const scheduledRepo = yield* ScheduledMessageRepo
    const rows = yield* (yield* UserRepo).listByRealm(w.realmId)
    const firstChannel = (yield* (yield* ChannelRepo).listByRealm(w.realmId))[0]?.id ?? 900_000
    return {
      // Every narrow of the scripts over the final messages and flags.
      narrows: yield* Effect.forEach(viewers, (principal) =>
        Effect.forEach(narrowKinds, (kind) =>
          outcome(messages.fetch(principal, {
            anchor: { _tag: "newest" },
            include_anchor: true,
            num_before: 100,
            num_after: 0,
            narrow: narrowOf(kind, firstChannel, w.ownerId),
            apply_markdown: true,
            client_gravatar: true,
            allow_empty_topic_name: true
          })))),
      // Every user's messages with their flags, and their scheduled messages (sent ones included).
      messages: yield* Effect.forEach(rows, (u) => messageRepo.listByFlags(u.id, 0, 0)),
      scheduled: yield* Effect.forEach(rows, (u) => scheduled.listForUser(u.id)),
      scheduledRows: yield* Effect.forEach(rows, (u) => scheduledRepo.listUndelivered(u.id))
    }
  })

/** A delivery pass that sent or failed something counts as "Delivered". */
const reached = (command: Command, result: { readonly ok: unknown }) =>
  command._tag === "Deliver" ? (Array.isArray(result.ok) && result.ok.length > 0 ? "Delivered" : undefined) : command._tag

export const messaging: Area = { name: "messaging", commands, step, observe, reached }
