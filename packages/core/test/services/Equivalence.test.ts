/**
 * Model-based equivalence of the persistence backends: random command
 * sequences (valid and invalid) run through the services on the in-memory
 * backend and on SQL (PGlite, PostgreSQL) must give the same result for
 * every command (errors included) and the same observable state afterwards.
 * The commands cover users, groups, channels and subscriptions, and
 * messages: sends, fetches with narrows, flags (by id and by narrow) and
 * scheduled messages (create, edit, delete, delivery on the script's clock);
 * a second script kind is mostly messaging and counts that each of those
 * commands succeeded in enough runs.
 *
 * Each SQL block keeps one database for the whole property and empties it
 * (TRUNCATE … RESTART IDENTITY) before every run, so ids restart at 1 like
 * a fresh memory database and runs are repeatable, as shrinking requires.
 * The services layer itself is rebuilt per run over that database.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import { channelId, userId } from "../../src/domain/Ids.ts"
import type { ChannelId, GroupId, RealmId, UserId } from "../../src/domain/Ids.ts"
import type { Role } from "../../src/domain/Role.ts"
import { EventStore } from "../../src/ports/EventStore.ts"
import type { Persistence } from "../../src/Persistence.ts"
import { ChannelRepo, GroupRepo, MessageRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { Authentication } from "../../src/services/Authentication.ts"
import { Channels, defaultListChannelsOptions } from "../../src/services/Channels.ts"
import type { NewChannel } from "../../src/services/Channels.ts"
import { Organizations } from "../../src/services/Organizations.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { Users } from "../../src/services/Users.ts"
import { Messages } from "../../src/services/Messages.ts"
import { MessageFlags } from "../../src/services/MessageFlags.ts"
import { ScheduledDelivery } from "../../src/services/ScheduledDelivery.ts"
import { ScheduledMessages } from "../../src/services/ScheduledMessages.ts"
import { ScheduledMessageRepo } from "../../src/ports/ScheduledMessageRepo.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import type { NewUser } from "../../src/services/Users.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { assertPassed, propertySeed } from "../support/Properties.ts"

// -----------------------------------------------------------------------------
// commands

/** Indexes into what the run created so far; 6 and 7 name things that do not exist. */
const Index = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 }))
const RoleCode = Schema.Literals([100, 200, 300, 400, 600])
const Indexes = Schema.Array(Index).check(Schema.isMaxLength(3))

/**
 * Indexes of the message commands: what the run created so far, except 5,
 * which names a thing that does not exist (rarer than Index's 6 and 7, so
 * that most sends, flags and schedules can succeed).
 */
const Pick = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 }))
const Picks = Schema.Array(Pick).check(Schema.isMaxLength(3))
const MissingPick = 5

/** Picks from a small pool; `n` values, the first ones valid, the later ones not. */
const Pool = (n: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: n - 1 }))

/** Each command with how often it is drawn: mostly building an organization up, then acting on it. */
const commandSchemas = [
  [6, Schema.TaggedStruct("CreateUser", {
    /** Addresses come from a small pool, so duplicates (in any case) happen. */
    email: Pool(6),
    shout: Schema.Boolean,
    name: Pool(14),
    role: RoleCode,
    /** 0: a bot. */
    bot: Pool(4),
    owner: Index
  })],
  [1, Schema.TaggedStruct("CreateGroup", { name: Pool(3), members: Indexes, subgroup: Index })],
  [5, Schema.TaggedStruct("CreateChannel", {
    name: Pool(8),
    invite_only: Schema.Boolean,
    is_web_public: Schema.Boolean,
    history: Schema.Literals(["default", "public", "hidden"]),
    is_default: Schema.Boolean,
    creator: Index,
    description: Pool(4)
  })],
  [5, Schema.TaggedStruct("Subscribe", { channel: Index, users: Indexes })],
  [1, Schema.TaggedStruct("Unsubscribe", { channel: Index, user: Index })],
  [1, Schema.TaggedStruct("ArchiveChannel", { channel: Index })],
  [3, Schema.TaggedStruct("ChangeRole", { user: Index, role: RoleCode })],
  [2, Schema.TaggedStruct("Deactivate", { user: Index })],
  [2, Schema.TaggedStruct("Reactivate", { user: Index })],
  [1, Schema.TaggedStruct("RotateKey", { user: Index })],
  [1, Schema.TaggedStruct("RestrictGuests", { restricted: Schema.Boolean })],
  [2, Schema.TaggedStruct("Authenticate", { user: Index, wrongEmail: Schema.Boolean, shout: Schema.Boolean })],
  [1, Schema.TaggedStruct("FetchApiKey", { user: Index, rightPassword: Schema.Boolean })],
  [1, Schema.TaggedStruct("AdvanceClock", { days: Pool(4) })],
  // Messages, flags and scheduled messages.
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

/** The message commands whose success the messaging scripts must reach. */
const mustSucceed = ["Send", "Fetch", "Flags", "FlagsByNarrow", "Schedule", "EditScheduled", "DeleteScheduled"] as const

const Command = Schema.Union(commandSchemas.map(([, schema]) => schema))
type Command = typeof Command.Type

/** A weighted choice among the commands (derived once, outside `flatMap`). */
/** A weighted choice among commands (derived once, outside `flatMap`); `only` keeps some of them. */
const weightedCommand = (only?: ReadonlySet<string>): Arbitrary.Arbitrary<Command> => {
  const table: Array<Arbitrary.Arbitrary<Command>> = []
  for (const [weight, schema] of commandSchemas) {
    if (only !== undefined && !only.has(schema.fields._tag.schema.literal)) continue
    const arbitrary = Arbitrary.schema(schema as Schema.Codec<Command>)
    for (let i = 0; i < weight; i++) table.push(arbitrary)
  }
  // A wide range reduced modulo the table: small integer ranges are drawn
  // with their bounds favoured, which would favour the first and last command.
  return Arbitrary.flatMap(Arbitrary.schema(Pool(1_000_000)), (i) => table[i % table.length]!)
}
const command = weightedCommand()

/** The organization's settings and what exists before the script runs. */
const Scenario = Schema.Struct({
  email_address_visibility: Schema.Literals([1, 2, 3, 4, 5]),
  waiting_period_threshold: Pool(3),
  people: Schema.Array(RoleCode).check(Schema.isMaxLength(4)),
  rooms: Schema.Array(
    Schema.Struct({ name: Pool(8), invite_only: Schema.Boolean, is_web_public: Schema.Boolean, members: Indexes })
  )
    // At least one channel to send to (scripts may still create none of their own).
    .check(Schema.isMinLength(1), Schema.isMaxLength(3))
})
type Scenario = typeof Scenario.Type

const scenario = Arbitrary.schema(Scenario)
const commands = Arbitrary.array(command, { minLength: 3, maxLength: 15 })

/**
 * Scripts about messages: an organization with people in a public channel
 * (so most sends, flags and schedules can succeed), then messaging commands
 * with a few changes of membership and status among them.
 */
const messagingScenario = scenario.pipe(Arbitrary.map((s): Scenario => ({
  ...s,
  people: [...s.people, 400 as const, 600 as const].slice(0, Math.max(2, s.people.length)),
  rooms: [{ name: 3, invite_only: false, is_web_public: false, members: [0, 1, 2] }, ...s.rooms].slice(0, 3)
})))
const messagingCommands = Arbitrary.array(
  weightedCommand(
    new Set([...mustSucceed, "Deliver", "Subscribe", "Unsubscribe", "Deactivate", "Reactivate", "CreateChannel"])
  ),
  { minLength: 20, maxLength: 30 }
).pipe(Arbitrary.map((script): ReadonlyArray<Command> => [
  // Something to edit and delete from the start: two messages due in 60 hours.
  { _tag: "Schedule", sender: 0, toChannel: true, channel: 0, recipients: [], content: 0, inMinutes: 3 },
  { _tag: "Schedule", sender: 1, toChannel: false, channel: 0, recipients: [0], content: 1, inMinutes: 3 },
  // And one due in a minute, for the first delivery.
  { _tag: "Schedule", sender: 2, toChannel: true, channel: 0, recipients: [], content: 2, inMinutes: 1 },
  ...script
]))

// -----------------------------------------------------------------------------
// the model runner

const password = "equivalence"
const emailOf = (i: number, shout: boolean) => shout ? `PERSON${i}@EQUIV.TEST` : `person${i}@equiv.test`
/** Mostly valid names, then each way a name can be refused. */
const fullName = (kind: number, n: number) =>
  [
    `Person ${n}`,
    `Persön ${n}`,
    `शिव ${n}`,
    `  Spaced ${n}  `,
    `P${n}|x`,
    `Emoji 😀 ${n}`,
    `O'Brien ${n}`,
    `Jean-Luc ${n}`,
    `Zoë ${n}`,
    "   ",
    "x".repeat(101),
    "Bad*Name",
    "Person|12",
    "bell\u0007"
  ][kind]!
const channelName = (kind: number) =>
  ["general", "General", "GENERAL", "Room 0", "ünïcode", "ÜNÏCODE", "  spaced  ", "n".repeat(61)][kind]!
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
/** Mostly valid; "toggle" is refused, "mentioned" is not editable, "bogus" is no flag. */
const narrowKinds = [0, 1, 2, 3, 4, 5, 6]
const flagOperation = (kind: number) => ["add", "remove", "toggle", "add", "remove"][kind]!
const flagName = (kind: number) => ["read", "starred", "mentioned", "bogus", "collapsed", "read"][kind]!
const channelDescription = (kind: number) => ["", "A channel", "Tea & <b>cakes</b>", "d".repeat(1025)][kind]!

interface ZulipLike {
  readonly _tag: string
  readonly wire: unknown
}

/** Password hashes are salted at random: compared by presence only. */
const withoutHash = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutHash)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => k === "password_hash" ? [k, v !== null] : [k, withoutHash(v)])
  )
}

/** What a command did: its value, or its error as the client would see it. */
const outcome = <A, E extends ZulipLike, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.match(effect, {
    onSuccess: (value) => ({ ok: withoutHash(value) }),
    onFailure: (error) => ({ error: { tag: error._tag, wire: error.wire } })
  })

/** Runs one scenario through whatever services are provided and reports everything observable. */
const runScenario = (setup: Scenario, script: ReadonlyArray<Command>) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const users = yield* Users
    const channels = yield* Channels
    const subscriptions = yield* Subscriptions
    const auth = yield* Authentication
    const messages = yield* Messages
    const flags = yield* MessageFlags
    const scheduled = yield* ScheduledMessages
    const delivery = yield* ScheduledDelivery
    const realms = yield* RealmRepo
    const userRepo = yield* UserRepo
    const groupRepo = yield* GroupRepo
    const channelRepo = yield* ChannelRepo
    const tx = yield* Transactor

    const { owner, realm } = yield* organizations.create({
      string_id: "equivalence",
      name: "Equivalence",
      url: "http://equivalence.test",
      settings: {
        email_address_visibility: setup.email_address_visibility,
        waiting_period_threshold: setup.waiting_period_threshold
      },
      owner: { email: "owner@equiv.test", full_name: "Owner", password, timezone: "UTC" }
    })
    const systemGroups = yield* organizations.systemGroups(realm.id)
    const userIds: Array<UserId> = [owner!.id]
    const channelIds: Array<ChannelId> = []
    const groupIds: Array<GroupId> = [systemGroups["role:members"]]
    const messageIds: Array<number> = []
    const scheduledIds: Array<{ readonly id: number; readonly sender: UserId }> = []
    const pick = <A extends number>(list: ReadonlyArray<A>, i: number, missing: (n: number) => A): A =>
      i >= 6 || list.length === 0 ? missing(900_000 + i) : list[i % list.length]!
    const user = (i: number) => pick(userIds, i, userId)
    const channel = (i: number) => pick(channelIds, i, channelId)
    const principalOf = (id: UserId) =>
      Effect.gen(function*() {
        const u = (yield* userRepo.findById(id))!
        return { user: u, realm: (yield* realms.findById(realm.id))! } satisfies Principal
      })
    /** The caller, as authentication would let them in: an active user, or nobody (the command is skipped). */
    const callerById = (id: UserId) =>
      Effect.gen(function*() {
        const found = yield* userRepo.findById(id)
        return found === undefined || !found.is_active ? undefined : yield* principalOf(found.id)
      })
    const pickFrom = <A extends number>(list: ReadonlyArray<A>, i: number, missing: (n: number) => A): A =>
      i === MissingPick || list.length === 0 ? missing(900_000 + i) : list[i % list.length]!
    const userAt = (i: number) => pickFrom(userIds, i, userId)
    const channelAt = (i: number) => pickFrom(channelIds, i, channelId)
    const caller = (i: number) => callerById(userAt(i))
    /** Runs `f` as the user at `i`, or skips the command when there is no such active user. */
    const asCaller = <A, R>(
      i: number,
      f: (principal: Principal) => Effect.Effect<A, never, R>
    ): Effect.Effect<A | { readonly skipped: string }, never, R> =>
      Effect.flatMap(caller(i), (principal): Effect.Effect<A | { readonly skipped: string }, never, R> =>
        principal === undefined ? Effect.succeed({ skipped: "no such active user" }) : f(principal))
    /** A scheduled message (or a missing id) and who acts on it: its sender, or another user. */
    const scheduledOf = (which: number, byOther: number) => {
      if (which === MissingPick || scheduledIds.length === 0) return { id: 900_000 + which, by: owner!.id }
      const target = scheduledIds[which % scheduledIds.length]!
      const other = userIds.find((id) => id !== target.sender) ?? target.sender
      return { id: target.id, by: byOther === 3 ? other : target.sender }
    }
    const message = (i: number) => pickFrom(messageIds, i, (n) => n)
    const anchorOf = (kind: number, target: number) =>
      kind === 0
        ? { _tag: "newest" as const }
        : kind === 1
        ? { _tag: "oldest" as const }
        : kind === 2
        ? { _tag: "first_unread" as const }
        : { _tag: "id" as const, id: message(target) }
    const now = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))
    /** The anchored range and narrow of a fetch or flags/narrow command. */
    const rangeOf = (command: {
      readonly anchor: number
      readonly target: number
      readonly before: number
      readonly after: number
      readonly narrow: number
    }) => ({
      anchor: anchorOf(command.anchor, command.target),
      include_anchor: true,
      num_before: command.before * 2,
      num_after: command.after * 2,
      narrow: narrowOf(command.narrow, channelAt(command.target), userAt(command.target))
    })

    const step = (command: Command, n: number) => {
      switch (command._tag) {
        case "CreateUser": {
          const ownerId = user(command.owner)
          // A bot owned by a missing user is refused before the service, as an API would.
          const bot = command.bot === 0
          const input: NewUser = {
            email: emailOf(command.email, command.shout),
            full_name: fullName(command.name, n),
            role: command.role as Role,
            timezone: "Europe/Rome",
            ...(bot ? { bot: { bot_type: 1 as const, owner_id: ownerId } } : { password })
          }
          return outcome(users.create(realm.id, input)).pipe(
            Effect.tap((result) => Effect.sync(() => "ok" in result && userIds.push((result.ok as { id: UserId }).id)))
          )
        }
        case "CreateGroup":
          // No group service yet: the repositories, with the checks a service would make.
          return tx.withTransaction(Effect.gen(function*() {
            const name = `group-${command.name}`
            if ((yield* groupRepo.findByName(realm.id, name)) !== undefined) return { skipped: "exists" }
            const nobody = systemGroups["role:nobody"]
            const group = yield* groupRepo.insert({
              realm_id: realm.id,
              name,
              description: `Group ${command.name}`,
              is_system_group: false,
              creator_id: owner!.id,
              date_created: 0,
              deactivated: false,
              settings: {
                can_add_members_group: { direct_members: [owner!.id], direct_subgroups: [] },
                can_join_group: nobody,
                can_leave_group: systemGroups["role:everyone"],
                can_manage_group: { direct_members: [owner!.id], direct_subgroups: [] },
                can_mention_group: systemGroups["role:everyone"],
                can_remove_members_group: nobody
              }
            })
            const members = command.members.filter((i) => i < 6 && userIds.length > 0).map(user)
            yield* groupRepo.addMembers(group.id, members)
            if (command.subgroup < 6) yield* groupRepo.addSubgroups(group.id, [groupIds[command.subgroup % groupIds.length]!])
            groupIds.push(group.id)
            return { ok: group.id }
          }))
        case "CreateChannel": {
          const input: NewChannel = {
            name: channelName(command.name),
            description: channelDescription(command.description),
            invite_only: command.invite_only,
            is_web_public: command.is_web_public && !command.invite_only,
            is_default: command.is_default && !command.invite_only,
            creator_id: command.creator === 7 ? null : user(command.creator),
            ...(command.history === "default" ? {} : { history_public_to_subscribers: command.history === "public" })
          }
          return outcome(channels.create(realm.id, input)).pipe(
            Effect.tap((result) =>
              Effect.sync(() => "ok" in result && channelIds.push((result.ok as { id: ChannelId }).id))
            )
          )
        }
        case "Subscribe":
          return outcome(channels.subscribe(channel(command.channel), command.users.map(user)))
        case "Unsubscribe":
          return Effect.gen(function*() {
            const target = yield* channelRepo.findById(channel(command.channel))
            if (target === undefined) return { skipped: "no such channel" }
            return yield* outcome(
              subscriptions.unsubscribe(yield* principalOf(owner!.id), {
                subscriptions: [target.name],
                principals: [user(command.user)]
              })
            )
          })
        case "ArchiveChannel":
          return Effect.gen(function*() {
            const target = yield* channelRepo.findById(channel(command.channel))
            if (target === undefined) return { skipped: "no such channel" }
            yield* channelRepo.update({ ...target, is_archived: true })
            return { ok: target.id }
          })
        case "ChangeRole":
          return outcome(users.changeRole(user(command.user), command.role as Role))
        case "Deactivate":
          return outcome(users.deactivate(user(command.user)))
        case "Reactivate":
          return outcome(users.reactivate(user(command.user)))
        case "RotateKey":
          return outcome(users.rotateApiKey(user(command.user)))
        case "RestrictGuests":
          return Effect.gen(function*() {
            const current = (yield* realms.findById(realm.id))!
            const group = command.restricted ? systemGroups["role:members"] : systemGroups["role:everyone"]
            yield* realms.update({ ...current, settings: { ...current.settings, can_access_all_users_group: group } })
            return { ok: group }
          })
        case "Authenticate":
          return Effect.gen(function*() {
            const target = yield* userRepo.findById(user(command.user))
            if (target === undefined) return { skipped: "no such user" }
            const email = command.wrongEmail ? "someone@else.test" : target.delivery_email
            return yield* outcome(
              auth.basic(command.shout ? email.toUpperCase() : email, target.api_key).pipe(
                Effect.map((p) => p.user.id)
              )
            )
          })
        case "FetchApiKey":
          return Effect.gen(function*() {
            const target = yield* userRepo.findById(user(command.user))
            const email = target?.delivery_email ?? "missing@equiv.test"
            return yield* outcome(auth.fetchApiKey(realm.id, email, command.rightPassword ? password : "wrong"))
          })
        case "AdvanceClock":
          return TestClock.adjust(`${command.days} days`).pipe(Effect.as({ ok: command.days }))
        case "Send":
          return asCaller(command.sender, (principal) => Effect.gen(function*() {
            const result = yield* outcome(messages.send(principal, {
              type: command.toChannel ? "channel" : "direct",
              to: command.toChannel ? channelAt(command.channel) : command.recipients.map(userAt),
              topic: `topic ${command.topic}`,
              content: messageContent(command.content)
            }))
            if ("ok" in result) messageIds.push((result.ok as { id: number }).id)
            return result
          }))
        case "Fetch":
          return asCaller(command.viewer, (principal) => Effect.gen(function*() {
            return yield* outcome(messages.fetch(principal, {
              ...rangeOf(command),
              apply_markdown: true,
              client_gravatar: true,
              allow_empty_topic_name: true
            }))
          }))
        case "Flags":
          return asCaller(command.user, (principal) => Effect.gen(function*() {
            return yield* outcome(flags.update(principal, {
              messages: command.messages.map(message),
              op: flagOperation(command.op),
              flag: flagName(command.flag)
            }))
          }))
        case "FlagsByNarrow":
          return asCaller(command.user, (principal) => Effect.gen(function*() {
            return yield* outcome(flags.updateByNarrow(principal, {
              ...rangeOf(command),
              op: flagOperation(command.op),
              flag: flagName(command.flag)
            }))
          }))
        case "Schedule":
          return asCaller(command.sender, (principal) => Effect.gen(function*() {
            // -1: a time in the past (refused); 3600: pending for the whole script.
            const at = (yield* now) + [-1, 1, 20, 3600][command.inMinutes]! * 60
            const result = yield* outcome(scheduled.create(principal, {
              type: command.toChannel ? "channel" : "direct",
              to: command.toChannel ? channelAt(command.channel) : command.recipients.map(userAt),
              topic: "later",
              content: messageContent(command.content),
              scheduled_delivery_timestamp: at
            }, { client: "website" }))
            if ("ok" in result) scheduledIds.push({ id: result.ok as number, sender: principal.user.id })
            return result
          }))
        case "EditScheduled":
          return Effect.gen(function*() {
            const target = scheduledOf(command.which, command.byOther)
            const principal = yield* callerById(target.by)
            if (principal === undefined) return { skipped: "no such active user" }
            // Content kind 5 and time kind 4: leave that field alone (both alone: nothing to change).
            const minutes = [-1, 30, 90, 600][command.inMinutes]
            return yield* outcome(scheduled.update(principal, target.id, {
              ...(command.content === 5 ? {} : { content: messageContent(command.content) }),
              ...(minutes === undefined ? {} : { scheduled_delivery_timestamp: (yield* now) + minutes * 60 })
            }))
          })
        case "DeleteScheduled":
          return Effect.gen(function*() {
            const target = scheduledOf(command.which, command.byOther)
            const principal = yield* callerById(target.by)
            if (principal === undefined) return { skipped: "no such active user" }
            return yield* outcome(scheduled.remove(principal, target.id))
          })
        case "Deliver":
          return Effect.gen(function*() {
            // Up to 45 minutes: some rows go out on time, some too late (after 10 minutes) and fail.
            yield* TestClock.adjust(`${[0, 1, 20, 45][command.minutes]!} minutes`)
            const outcomes = yield* delivery.runDue
            return { ok: outcomes.map((o) => ({ ...o })) }
          })
      }
    }

    const log: Array<unknown> = []
    // What exists before the script: people, then channels with members.
    for (const [i, role] of setup.people.entries()) {
      const person = yield* users.create(realm.id, {
        email: `member${i}@equiv.test`,
        full_name: `Member ${i}`,
        role: role as Role,
        password
      })
      userIds.push(person.id)
    }
    for (const room of setup.rooms) {
      const created = yield* outcome(channels.create(realm.id, {
        name: channelName(room.name),
        invite_only: room.invite_only,
        is_web_public: room.is_web_public && !room.invite_only,
        creator_id: owner!.id
      }))
      log.push(created)
      if (!("ok" in created)) continue
      const id = (created.ok as { id: ChannelId }).id
      channelIds.push(id)
      log.push(yield* outcome(channels.subscribe(id, room.members.map(user))))
    }
    for (const [n, command] of script.entries()) {
      log.push(yield* step(command, n))
    }
    return { log, state: yield* observe(realm.id, owner!.id) }
  })

/** Everything a client or the database could tell apart. */
const observe = (realmId: RealmId, ownerId: UserId) =>
  Effect.gen(function*() {
    const users = yield* Users
    const channels = yield* Channels
    const store = yield* EventStore
    const realm = (yield* (yield* RealmRepo).findById(realmId))!
    const rows = yield* (yield* UserRepo).listByRealm(realmId)
    const groupRepo = yield* GroupRepo
    const membership = yield* groupRepo.membership(realmId)
    const edges = (map: ReadonlyMap<number, ReadonlySet<number>>) =>
      Array.from(map.entries())
        .map(([key, set]) => [key, Array.from(set).sort((a, b) => a - b)] as const)
        .sort(([a], [b]) => a - b)
    const options = { clientGravatar: true, includeCustomProfileFields: true }
    const owner = rows.find((u) => u.id === ownerId)!
    const perViewer: Array<unknown> = []
    const messages = yield* Messages
    const firstChannel = (yield* (yield* ChannelRepo).listByRealm(realmId))[0]?.id ?? 900_000
    for (const viewer of rows.filter((u) => u.is_active)) {
      const principal = { user: viewer, realm }
      perViewer.push({
        // Every narrow of the scripts over the final messages and flags.
        narrows: yield* Effect.forEach(narrowKinds, (kind) =>
          outcome(messages.fetch(principal, {
            anchor: { _tag: "newest" },
            include_anchor: true,
            num_before: 100,
            num_after: 0,
            narrow: narrowOf(kind, firstChannel, ownerId),
            apply_markdown: true,
            client_gravatar: true,
            allow_empty_topic_name: true
          }))),
        viewer: viewer.id,
        users: yield* users.list(realm, viewer, options),
        me: yield* users.me(principal),
        channels: yield* channels.list(principal, defaultListChannelsOptions),
        everything: yield* channels.list(principal, {
          ...defaultListChannelsOptions,
          include_all: true,
          include_web_public: true,
          include_default: true,
          include_owner_subscribed: true,
          include_can_access_content: true,
          exclude_archived: false
        })
      })
    }
    const messageRepo = yield* MessageRepo
    const scheduled = yield* ScheduledMessages
    const scheduledRepo = yield* ScheduledMessageRepo
    return {
      realm,
      // Every user's messages with their flags, and their scheduled messages (sent ones included).
      messages: yield* Effect.forEach(rows, (u) => messageRepo.listByFlags(u.id, 0, 0)),
      scheduled: yield* Effect.forEach(rows, (u) => scheduled.listForUser(u.id)),
      scheduledRows: yield* Effect.forEach(rows, (u) => scheduledRepo.listUndelivered(u.id)),
      users: withoutHash(rows),
      spectator: yield* users.list(realm, undefined, options),
      owner: yield* users.list(realm, owner, options),
      groups: yield* groupRepo.listByRealm(realmId),
      members: edges(membership.members),
      subgroups: edges(membership.subgroups),
      subscriptions: yield* (yield* SubscriptionRepo).listByRealm(realmId),
      // The event log as each user would receive it (ids may differ in gaps).
      events: yield* Effect.forEach(rows, (u) =>
        Effect.map(store.read(realmId, u.id, 0), (events) => events.map(({ id: _id, ...event }) => event))),
      perViewer
    }
  })

// -----------------------------------------------------------------------------
// backends

/**
 * One run on a backend: the services built with the live clock (so their
 * background fibers never see the script's time jumps) and fresh (new
 * memory tables, a new key sequence), the script under a TestClock of its own.
 */
const runOn = <E, R>(
  services: Layer.Layer<Teamchat.Services | Persistence, E, R>,
  setup: Scenario,
  script: ReadonlyArray<Command>
) =>
  runScenario(setup, script).pipe(
    Effect.provide(TestClock.layer()),
    Effect.provide(Layer.fresh(services)),
    Effect.orDie
  )

const memory = () => CheckedEvents.layerMemory()
const onSql = () => CheckedEvents.layerSql()

/** Empties every table (not the migration log) and restarts the identity sequences. */
const truncateAll = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ tablename: string }>`
    SELECT tablename FROM pg_tables
    WHERE schemaname = current_schema() AND tablename NOT LIKE 'effect_sql_%'`
  if (tables.length === 0) return
  yield* sql.unsafe(`TRUNCATE TABLE ${tables.map((t) => `"${t.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`)
}).pipe(Effect.orDie)


/** Counts, per command, the script steps that succeeded (and delivery passes that handled a row). */
const countSuccesses = (counts: Record<string, number>, script: ReadonlyArray<Command>, log: ReadonlyArray<unknown>) => {
  const steps = log.slice(log.length - script.length)
  script.forEach((command, i) => {
    const result = steps[i] as { ok?: unknown } | undefined
    if (result === undefined || !("ok" in result)) return
    // A delivery pass that sent or failed something counts as "Delivered".
    const tag = command._tag === "Deliver" && Array.isArray(result.ok) && result.ok.length > 0
      ? "Delivered"
      : command._tag
    counts[tag] = (counts[tag] ?? 0) + 1
  })
}

const assertReached = (counts: Record<string, number>, minimum: number) => {
  for (const tag of [...mustSucceed, "Delivered"]) {
    assert.isAtLeast(counts[tag] ?? 0, minimum, `successful ${tag} steps: ${JSON.stringify(counts)}`)
  }
}

interface Scripts {
  readonly label: string
  readonly setup: Arbitrary.Arbitrary<Scenario>
  readonly script: Arbitrary.Arbitrary<ReadonlyArray<Command>>
  /** Successful steps each message command must reach over the runs, as a share of the runs. */
  readonly reach?: number
}

const equivalence = (name: string, database: () => Layer.Layer<SqlClient.SqlClient, unknown>, scripts: Scripts, runs: number) =>
  layer(database(), { timeout: "120 seconds", excludeTestServices: true })(name, (it) => {
    it.effect(`memory and ${name} agree on every command and on the final state (${scripts.label})`, () =>
      Effect.gen(function*() {
        const counts: Record<string, number> = {}
        const result = yield* Arbitrary.checkEffect(
          Arbitrary.all({ setup: scripts.setup, script: scripts.script }),
          ({ script, setup }) =>
            Effect.gen(function*() {
              const expected = yield* runOn(memory(), setup, script)
              yield* truncateAll
              const actual = yield* runOn(onSql(), setup, script)
              yield* Effect.try({
                try: () => {
                  assert.deepStrictEqual(actual.log, expected.log, "command results")
                  assert.deepStrictEqual(actual.state, expected.state, "final state")
                },
                catch: (error) => error
              })
              countSuccesses(counts, script, expected.log)
              return true
            }),
          { runs, maxShrinks: 40, seed: propertySeed }
        )
        assertPassed(result)
        // The comparisons covered messages, flags and scheduled messages that worked.
        if (scripts.reach !== undefined) assertReached(counts, Math.max(1, Math.floor(runs * scripts.reach)))
      }), { timeout: 600_000 })
  })

/** `TEAMCHAT_EQUIVALENCE_RUNS` overrides the number of scripts per backend, for a deeper search. */
const runs = (fallback: number) => Number(process.env.TEAMCHAT_EQUIVALENCE_RUNS ?? fallback)

describe("Equivalence", () => {
  const any: Scripts = { label: "any commands", setup: scenario, script: commands }
  const messaging: Scripts = { label: "messages, flags, scheduled messages", setup: messagingScenario, script: messagingCommands, reach: 0.2 }
  equivalence("PGlite", () => TestDatabase.pgliteLayer(), any, runs(25))
  equivalence("PGlite", () => TestDatabase.pgliteLayer(), messaging, runs(10))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), any, runs(15))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), messaging, runs(8))
})

/** Sanity of the model itself: memory runs are repeatable and start from nothing, so shrinking is sound. */
describe("Equivalence model", () => {
  it.live.prop(
    "two memory runs of the same script agree",
    { setup: scenario, script: commands },
    ({ script, setup }) =>
      Effect.gen(function*() {
        const first = yield* runOn(memory(), setup, script)
        const second = yield* runOn(memory(), setup, script)
        assert.deepStrictEqual(second, first)
        assert.strictEqual(first.state.realm.id, 1)
        assert.strictEqual(first.state.owner[0]!.user_id, 1)
      }),
    { timeout: 120_000, arbitrary: { runs: runs(30), seed: propertySeed } }
  )
})

