/**
 * Equivalence commands about the organization: users (create, roles,
 * deactivation, keys, authentication), groups made through the
 * repositories, channels and subscriptions, the guests' access setting and
 * the clock. Observed: each active user's view of the users and channels,
 * a spectator's, and the group, membership and subscription rows.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { ChannelId, UserId } from "../../../src/domain/Ids.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import type { Role } from "../../../src/domain/Role.ts"
import { ChannelRepo, GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { Authentication } from "../../../src/services/Authentication.ts"
import { Channels, defaultListChannelsOptions } from "../../../src/services/Channels.ts"
import type { NewChannel } from "../../../src/services/Channels.ts"
import { Subscriptions } from "../../../src/services/Subscriptions.ts"
import { Users } from "../../../src/services/Users.ts"
import type { NewUser } from "../../../src/services/Users.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { channelName, Index, Indexes, outcome, password, Pool, RoleCode } from "./Runner.ts"

const commands = [
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
  [1, Schema.TaggedStruct("AdvanceClock", { days: Pool(4) })]
] as const

type OrganizationCommand = typeof commands[number][1]["Type"]

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
const channelDescription = (kind: number) => ["", "A channel", "Tea & <b>cakes</b>", "d".repeat(1025)][kind]!

const tags = new Set<string>(commands.map(([, schema]) => schema.fields._tag.schema.literal))

const step = (w: World, raw: Command, n: number): Effect.Effect<Outcome, never, any> | undefined => {
  if (!tags.has(raw._tag)) return undefined
  const command = raw as unknown as OrganizationCommand
  return Effect.gen(function*() {
    const users = yield* Users
    const channels = yield* Channels
    const subscriptions = yield* Subscriptions
    const auth = yield* Authentication
    const realms = yield* RealmRepo
    const userRepo = yield* UserRepo
    const groupRepo = yield* GroupRepo
    const channelRepo = yield* ChannelRepo
    const tx = yield* Transactor
    switch (command._tag) {
      case "CreateUser": {
        const ownerId = w.user(command.owner)
        // A bot owned by a missing user is refused before the service, as an API would.
        const bot = command.bot === 0
        const input: NewUser = {
          email: emailOf(command.email, command.shout),
          full_name: fullName(command.name, n),
          role: command.role as Role,
          timezone: "Europe/Rome",
          ...(bot ? { bot: { bot_type: 1 as const, owner_id: ownerId } } : { password })
        }
        const result = yield* outcome(users.create(w.realmId, input))
        if ("ok" in result) w.userIds.push((result.ok as { id: UserId }).id)
        return result
      }
      case "CreateGroup":
        // Groups as the repositories hold them, with the checks a service would make (the UserGroups area uses the service).
        return yield* tx.withTransaction(Effect.gen(function*() {
          const name = `group-${command.name}`
          if ((yield* groupRepo.findByName(w.realmId, name)) !== undefined) return { skipped: "exists" }
          const nobody = w.systemGroups["role:nobody"]!
          const group = yield* groupRepo.insert({
            realm_id: w.realmId,
            name,
            description: `Group ${command.name}`,
            is_system_group: false,
            creator_id: w.ownerId,
            date_created: 0,
            deactivated: false,
            settings: {
              can_add_members_group: { direct_members: [w.ownerId], direct_subgroups: [] },
              can_join_group: nobody,
              can_leave_group: w.systemGroups["role:everyone"]!,
              can_manage_group: { direct_members: [w.ownerId], direct_subgroups: [] },
              can_mention_group: w.systemGroups["role:everyone"]!,
              can_remove_members_group: nobody
            }
          })
          const members = command.members.filter((i) => i < 6 && w.userIds.length > 0).map(w.user)
          yield* groupRepo.addMembers(group.id, members)
          if (command.subgroup < 6) yield* groupRepo.addSubgroups(group.id, [w.groupIds[command.subgroup % w.groupIds.length]!])
          w.groupIds.push(group.id)
          return { ok: group.id }
        }))
      case "CreateChannel": {
        const input: NewChannel = {
          name: channelName(command.name),
          description: channelDescription(command.description),
          invite_only: command.invite_only,
          is_web_public: command.is_web_public && !command.invite_only,
          is_default: command.is_default && !command.invite_only,
          creator_id: command.creator === 7 ? null : w.user(command.creator),
          ...(command.history === "default" ? {} : { history_public_to_subscribers: command.history === "public" })
        }
        const result = yield* outcome(channels.create(w.realmId, input))
        if ("ok" in result) w.channelIds.push((result.ok as { id: ChannelId }).id)
        return result
      }
      case "Subscribe":
        return yield* outcome(channels.subscribe(w.channel(command.channel), command.users.map(w.user)))
      case "Unsubscribe": {
        const target = yield* channelRepo.findById(w.channel(command.channel))
        if (target === undefined) return { skipped: "no such channel" }
        return yield* outcome(
          subscriptions.unsubscribe(yield* w.principalOf(w.ownerId), {
            subscriptions: [target.name],
            principals: [w.user(command.user)]
          })
        )
      }
      case "ArchiveChannel": {
        const target = yield* channelRepo.findById(w.channel(command.channel))
        if (target === undefined) return { skipped: "no such channel" }
        yield* channelRepo.update({ ...target, is_archived: true })
        return { ok: target.id }
      }
      case "ChangeRole":
        return yield* outcome(users.changeRole(w.user(command.user), command.role as Role))
      case "Deactivate":
        return yield* outcome(users.deactivate(w.user(command.user)))
      case "Reactivate":
        return yield* outcome(users.reactivate(w.user(command.user)))
      case "RotateKey":
        return yield* outcome(users.rotateApiKey(w.user(command.user)))
      case "RestrictGuests": {
        const current = (yield* realms.findById(w.realmId))!
        const group = command.restricted ? w.systemGroups["role:members"]! : w.systemGroups["role:everyone"]!
        yield* realms.update({ ...current, settings: { ...current.settings, can_access_all_users_group: group } })
        return { ok: group }
      }
      case "Authenticate": {
        const target = yield* userRepo.findById(w.user(command.user))
        if (target === undefined) return { skipped: "no such user" }
        const email = command.wrongEmail ? "someone@else.test" : target.delivery_email
        return yield* outcome(
          auth.basic(command.shout ? email.toUpperCase() : email, target.api_key).pipe(Effect.map((p) => p.user.id))
        )
      }
      case "FetchApiKey": {
        const target = yield* userRepo.findById(w.user(command.user))
        const email = target?.delivery_email ?? "missing@equiv.test"
        return yield* outcome(auth.fetchApiKey(w.realmId, email, command.rightPassword ? password : "wrong"))
      }
      case "AdvanceClock":
        yield* TestClock.adjust(`${command.days} days`)
        return { ok: command.days }
    }
  })
}

const observe = (w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const users = yield* Users
    const channels = yield* Channels
    const groupRepo = yield* GroupRepo
    const realm = (yield* (yield* RealmRepo).findById(w.realmId))!
    const rows = yield* (yield* UserRepo).listByRealm(w.realmId)
    const membership = yield* groupRepo.membership(w.realmId)
    const edges = (map: ReadonlyMap<number, ReadonlySet<number>>) =>
      Array.from(map.entries())
        .map(([key, set]) => [key, Array.from(set).sort((a, b) => a - b)] as const)
        .sort(([a], [b]) => a - b)
    const options = { clientGravatar: true, includeCustomProfileFields: true }
    const owner = rows.find((u) => u.id === w.ownerId)!
    return {
      perViewer: yield* Effect.forEach(viewers, (principal) =>
        Effect.gen(function*() {
          return {
            viewer: principal.user.id,
            users: yield* users.list(realm, principal.user, options),
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
          }
        })),
      spectator: yield* users.list(realm, undefined, options),
      owner: yield* users.list(realm, owner, options),
      groups: yield* groupRepo.listByRealm(w.realmId),
      members: edges(membership.members),
      subgroups: edges(membership.subgroups),
      subscriptions: yield* (yield* SubscriptionRepo).listByRealm(w.realmId)
    }
  })

export const organization: Area = { name: "organization", commands, step, observe }
