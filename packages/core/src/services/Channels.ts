/**
 * Channels and subscriptions: creation, the GET /streams listing with its
 * flags, and subscribing users.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { valueChange } from "../domain/AuditLog.ts"
import type { AuditChange } from "../domain/AuditLog.ts"
import type { Channel, Subscription } from "../domain/Channel.ts"
import { MaxChannelDescriptionLength, MaxChannelNameLength, newSubscriptionProperties } from "../domain/Channel.ts"
import type { ChannelId, GroupId, RealmId, UserId } from "../domain/Ids.ts"
import type { TopicsPolicy } from "../domain/Realm.ts"
import { isAdministrator, isGuest } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import { BadRequest, CannotAdministerChannel, InvalidChannelName, InvalidUserId, StreamDoesNotExist } from "../errors/Errors.ts"
import { renderDescription } from "../markdown/Description.ts"
import { hasContentAccess, hasMetadataAccess, isChannelAdministrator } from "../permissions/ChannelAccess.ts"
import { membershipCheck } from "../permissions/GroupMembership.ts"
import { Events } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { accessOfRequest, canSeeChannel, makeAccessLoader, postPolicyGroupsIn, subscribersOf } from "./internal/access.ts"
import { streamObject, subscriptionAddEvents } from "./events/subscriptionEvents.ts"
import { ChannelRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { toApiChannel } from "../views/ChannelView.ts"
import type { ApiChannel } from "../views/ChannelView.ts"
import { AuditLog } from "./AuditLog.ts"
import { Organizations } from "./Organizations.ts"
import type { Principal } from "../domain/Principal.ts"

/** @category models */
export interface NewChannel {
  readonly name: string
  readonly description?: string
  readonly invite_only?: boolean
  readonly is_web_public?: boolean
  readonly history_public_to_subscribers?: boolean
  readonly message_retention_days?: number | null
  readonly topics_policy?: TopicsPolicy
  readonly is_default?: boolean
  readonly creator_id?: UserId | null
}

/** The flags of GET /streams, with Zulip's defaults applied by the caller. @category models */
export interface ListChannelsOptions {
  readonly include_public: boolean
  readonly include_web_public: boolean
  readonly include_subscribed: boolean
  readonly exclude_archived: boolean
  readonly include_all: boolean
  readonly include_default: boolean
  readonly include_owner_subscribed: boolean
  readonly include_can_access_content: boolean
}

/** @category constants */
export const defaultListChannelsOptions: ListChannelsOptions = {
  include_public: true,
  include_web_public: false,
  include_subscribed: true,
  exclude_archived: true,
  include_all: false,
  include_default: false,
  include_owner_subscribed: false,
  include_can_access_content: false
}

const codePointOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const noChannels: ReadonlySet<ChannelId> = new Set()

/** @category services */
export class Channels extends Context.Service<Channels, {
  create(realmId: RealmId, input: NewChannel): Effect.Effect<Channel, BadRequest>
  /**
   * Creates several channels at once, in a bounded number of statements
   * (POST /users/me/subscriptions); the same checks and events as `create`
   * for each, in the order given.
   */
  createMany(realmId: RealmId, inputs: ReadonlyArray<NewChannel>): Effect.Effect<ReadonlyArray<Channel>, BadRequest>
  findById(id: ChannelId): Effect.Effect<Channel | undefined>
  findByName(realmId: RealmId, name: string): Effect.Effect<Channel | undefined>
  /** Subscribes users (idempotent); returns the users newly subscribed. */
  subscribe(channelId: ChannelId, userIds: ReadonlyArray<UserId>): Effect.Effect<ReadonlyArray<UserId>, StreamDoesNotExist | InvalidUserId>
  /** GET /streams */
  list(principal: Principal, options: ListChannelsOptions): Effect.Effect<ReadonlyArray<ApiChannel>>
  /** Active subscriptions of a user, by channel id. */
  subscriptionsOf(userId: UserId): Effect.Effect<ReadonlyArray<Subscription>>
  /** Whether the organization has a web-public channel that is not archived. */
  hasWebPublicChannels(realmId: RealmId): Effect.Effect<boolean>
  /**
   * Renames a channel and/or changes its description (the caller must be a
   * channel administrator); announces each change with a `stream update`
   * event to everyone who can see the channel.
   */
  update(
    principal: Principal,
    channelId: ChannelId,
    changes: { readonly name?: string | undefined; readonly description?: string | undefined }
  ): Effect.Effect<Channel, BadRequest | StreamDoesNotExist | CannotAdministerChannel>
  /** GET /get_stream_id: the id of the channel of that name (any case) the user can see. */
  idByName(principal: Principal, name: string): Effect.Effect<ChannelId, InvalidChannelName>
}>()("teamchat/core/services/Channels") {
  static readonly layer = Layer.effect(
    Channels,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const channels = yield* ChannelRepo
      const subscriptions = yield* SubscriptionRepo
      const users = yield* UserRepo
      const organizations = yield* Organizations
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor
      const audit = yield* AuditLog

      const accessContext = (realmId: RealmId) =>
        Effect.gen(function*() {
          const realm = yield* realms.findById(realmId)
          if (realm === undefined) return yield* Effect.die(new Error(`realm ${realmId} missing`))
          return { realm, ctx: yield* loadAccess(realm) }
        })

      const checkNew = (input: NewChannel): Effect.Effect<{ name: string; description: string }, BadRequest> => {
        const name = input.name.trim()
        if (name.length === 0) return Effect.fail(new BadRequest({ msg: "Channel name can't be empty." }))
        if (name.length > MaxChannelNameLength) {
          return Effect.fail(new BadRequest({ msg: `Channel name too long (limit: ${MaxChannelNameLength} characters).` }))
        }
        const description = input.description ?? ""
        if (description.length > MaxChannelDescriptionLength) {
          return Effect.fail(
            new BadRequest({ msg: `description is too long (limit: ${MaxChannelDescriptionLength} characters)` })
          )
        }
        return Effect.succeed({ name, description })
      }

      // Any number of channels in a bounded number of statements: one name
      // check, one insert, one read of the organization, one publication.
      const createMany = Effect.fn("Channels.createMany")(function*(realmId: RealmId, inputs: ReadonlyArray<NewChannel>) {
        const checked: Array<{ name: string; description: string; input: NewChannel }> = []
        for (const input of inputs) checked.push({ ...(yield* checkNew(input)), input })
        if (checked.length === 0) return []
        return yield* tx.withTransaction(Effect.gen(function*() {
          // Concurrent creators of one name wait here; the later ones then see it.
          yield* channels.lockNames(realmId)
          const taken = new Set<string>()
          if (checked.length === 1) {
            const clash = yield* channels.findByName(realmId, checked[0]!.name)
            if (clash !== undefined) taken.add(clash.name.toLowerCase())
          } else {
            for (const channel of yield* channels.listByRealm(realmId)) taken.add(channel.name.toLowerCase())
          }
          for (const { name } of checked) {
            if (taken.has(name.toLowerCase())) return yield* new BadRequest({ msg: `Channel '${name}' already exists` })
            taken.add(name.toLowerCase())
          }
          // Each creator must be a user of the organization (SQL enforces
          // existence with a foreign key; the memory backend would not).
          const creators = new Set<UserId>()
          for (const { input } of checked) if (input.creator_id !== undefined && input.creator_id !== null) creators.add(input.creator_id)
          for (const creator of creators) {
            if ((yield* users.findById(creator))?.realm_id !== realmId) return yield* new BadRequest({ msg: "No such user" })
          }
          const ids = yield* organizations.systemGroups(realmId)
          const now = yield* Clock.currentTimeMillis
          const nobody: GroupId = ids["role:nobody"]
          const created = yield* channels.insertMany(checked.map(({ description, input, name }) => {
            const creator = input.creator_id ?? null
            const inviteOnly = input.invite_only ?? false
            return {
              realm_id: realmId,
              name,
              description,
              rendered_description: renderDescription(description),
              date_created: Math.floor(now / 1000),
              creator_id: creator,
              invite_only: inviteOnly,
              is_web_public: input.is_web_public ?? false,
              is_archived: false,
              // Zulip: public channels always share their history with subscribers.
              history_public_to_subscribers: inviteOnly ? input.history_public_to_subscribers ?? false : true,
              message_retention_days: input.message_retention_days ?? null,
              topics_policy: input.topics_policy ?? "inherit",
              first_message_id: null,
              folder_id: null,
              is_recently_active: true,
              is_default: input.is_default ?? false,
              settings: {
                can_add_subscribers_group: nobody,
                can_remove_subscribers_group: ids["role:administrators"],
                can_administer_channel_group: creator === null ? nobody : { direct_members: [creator], direct_subgroups: [] },
                can_delete_any_message_group: nobody,
                can_delete_own_message_group: ids["role:everyone"],
                can_move_messages_out_of_channel_group: nobody,
                can_move_messages_within_channel_group: nobody,
                can_send_message_group: ids["role:everyone"],
                can_subscribe_group: nobody,
                can_resolve_topics_group: nobody
              }
            }
          }))
          // Each channel is its creator's act (null: the system's): one statement per creator, so one per request.
          const byCreator = new Map<UserId | null, Array<AuditChange>>()
          for (const channel of created) {
            let changes = byCreator.get(channel.creator_id)
            if (changes === undefined) byCreator.set(channel.creator_id, changes = [])
            changes.push({ event_type: "stream_created", modified_stream_id: channel.id })
          }
          for (const [creator, changes] of byCreator) yield* audit.record(realmId, creator, changes)
          // Zulip's send_stream_creation_event: to everyone who can see it exists.
          const { ctx } = yield* accessContext(realmId)
          yield* events.publishAll(
            realmId,
            created.map((channel) => ({
              event: { type: "stream", op: "create", streams: [streamObject(ctx, channel)] },
              audience: Audience.channelMetadata(channel.id)
            }))
          )
          return created
        }))
      })

      const create = Effect.fn("Channels.create")(function*(realmId: RealmId, input: NewChannel) {
        const [channel] = yield* createMany(realmId, [input])
        return channel!
      })

      const subscribe = Effect.fn("Channels.subscribe")((channelId: ChannelId, userIds: ReadonlyArray<UserId>) =>
        tx.withTransaction(Effect.gen(function*() {
          const channel = yield* channels.findById(channelId)
          if (channel === undefined) return yield* new StreamDoesNotExist({ stream_id: channelId })
          const before = yield* accessContext(channel.realm_id)
          const added: Array<UserId> = []
          const written = new Map<UserId, Subscription>()
          const audited: Array<AuditChange> = []
          // The users from the organization's read, their rows in one read, the new rows in one write.
          const unknown = userIds.find((userId) => !before.ctx.state.usersById.has(userId))
          if (unknown !== undefined) return yield* new InvalidUserId({ user_id: unknown })
          const rowsOf = new Map<UserId, Array<Subscription>>()
          for (const row of yield* subscriptions.listByUsers(userIds)) {
            let rows = rowsOf.get(row.user_id)
            if (rows === undefined) rowsOf.set(row.user_id, rows = [])
            rows.push(row)
          }
          for (const userId of new Set(userIds)) {
            const mine = rowsOf.get(userId) ?? []
            const existing = mine.find((row) => row.channel_id === channelId)
            if (existing?.active === true) continue
            const properties = existing?.properties ?? newSubscriptionProperties(mine)
            const row: Subscription = { user_id: userId, channel_id: channelId, active: true, properties }
            written.set(userId, row)
            added.push(userId)
            audited.push({
              event_type: existing === undefined ? "subscription_created" : "subscription_activated",
              modified_user_id: userId,
              modified_stream_id: channelId
            })
          }
          yield* subscriptions.upsertMany(Array.from(written.values()))
          yield* audit.record(channel.realm_id, null, audited)
          if (added.length > 0) {
            const after = yield* accessContext(channel.realm_id)
            yield* events.publishAll(
              channel.realm_id,
              subscriptionAddEvents(
                before.ctx,
                after.ctx,
                after.realm,
                new Map([[channelId, added]]),
                (user) => written.get(user)
              )
            )
          }
          return added
        }))
      )

      const list = Effect.fn("Channels.list")(function*(principal: Principal, options: ListChannelsOptions) {
        const { user } = principal
        // The organization as authentication found it current for this request (its kept read).
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const { state } = ctx
        const subscribedBy = (u: User): ReadonlySet<ChannelId> => ctx.subscriptions.get(u.id) ?? noChannels
        const mine = subscribedBy(user)
        const owner = user.is_bot && user.bot_owner_id !== null ? state.usersById.get(user.bot_owner_id) : undefined
        const ownerSubscribed = owner === undefined ? noChannels : subscribedBy(owner)
        const inGroup = membershipCheck(state.index, user.id)
        const access = (channel: Channel) => ({ user, channel, isSubscribed: mine.has(channel.id), inGroup })
        // Guests never list public channels they are not subscribed to.
        const includePublic = options.include_public && !isGuest(user.role)
        const selected = ctx.channels.filter((channel) => {
          if (options.exclude_archived && channel.is_archived) return false
          if (options.include_all && (isAdministrator(user.role) || hasMetadataAccess(access(channel)))) return true
          if (options.include_subscribed && mine.has(channel.id)) return true
          if (includePublic && !channel.invite_only) return true
          if (options.include_web_public && channel.is_web_public) return true
          if (options.include_default && channel.is_default) return true
          if (options.include_owner_subscribed && ownerSubscribed.has(channel.id)) return true
          if (options.include_can_access_content && hasContentAccess(access(channel))) return true
          return false
        }).sort((a, b) => codePointOrder(a.name, b.name))
        // Subscribers counted are active users' active subscriptions.
        const countOf = (channel: Channel) => {
          let count = 0
          for (const id of subscribersOf(ctx, channel.id)) if (state.usersById.get(id)?.is_active === true) count++
          return count
        }
        const policyGroups = postPolicyGroupsIn(ctx)
        return selected.map((channel) =>
          toApiChannel(channel, countOf(channel), policyGroups, { includeDefault: options.include_default })
        )
      })

      const update = Effect.fn("Channels.update")((
        principal: Principal,
        channelId: ChannelId,
        changes: { readonly name?: string | undefined; readonly description?: string | undefined }
      ) =>
        tx.withTransaction(Effect.gen(function*() {
          const channel = yield* channels.findById(channelId)
          if (channel === undefined || channel.realm_id !== principal.realm.id) {
            return yield* new StreamDoesNotExist({ stream_id: channelId })
          }
          const { ctx } = yield* accessContext(channel.realm_id)
          const input = {
            user: principal.user,
            channel,
            isSubscribed: ctx.subscriptions.get(principal.user.id)?.has(channel.id) ?? false,
            inGroup: membershipCheck(ctx.state.index, principal.user.id)
          }
          if (!isChannelAdministrator(input)) return yield* new CannotAdministerChannel()
          let updated = channel
          const publications: Array<{ readonly event: EventOf<"stream", "update"> }> = []
          const audited: Array<AuditChange> = []
          if (changes.name !== undefined && changes.name.trim() !== channel.name) {
            const name = changes.name.trim()
            if (name.length === 0) return yield* new BadRequest({ msg: "Channel name can't be empty." })
            if (name.length > MaxChannelNameLength) {
              return yield* new BadRequest({ msg: `Channel name too long (limit: ${MaxChannelNameLength} characters).` })
            }
            yield* channels.lockNames(channel.realm_id)
            const clash = yield* channels.findByName(channel.realm_id, name)
            if (clash !== undefined && clash.id !== channel.id) {
              return yield* new BadRequest({ msg: `Channel '${name}' already exists` })
            }
            publications.push({
              event: { type: "stream", op: "update", property: "name", value: name, stream_id: channel.id, name: channel.name }
            })
            updated = { ...updated, name }
            audited.push({ event_type: "stream_name_changed", modified_stream_id: channel.id, extra_data: valueChange(channel.name, name) })
          }
          if (changes.description !== undefined && changes.description !== channel.description) {
            if (changes.description.length > MaxChannelDescriptionLength) {
              return yield* new BadRequest({ msg: `description is too long (limit: ${MaxChannelDescriptionLength} characters)` })
            }
            const rendered = renderDescription(changes.description)
            updated = { ...updated, description: changes.description, rendered_description: rendered }
            audited.push({
              event_type: "stream_property_changed",
              modified_stream_id: channel.id,
              extra_data: valueChange(channel.description, changes.description, "description")
            })
            publications.push({
              event: {
                type: "stream",
                op: "update",
                property: "description",
                value: changes.description,
                rendered_description: rendered,
                stream_id: channel.id,
                name: updated.name
              }
            })
          }
          if (updated !== channel) yield* channels.update(updated)
          yield* audit.record(channel.realm_id, principal.user.id, audited)
          yield* events.publishAll(
            channel.realm_id,
            publications.map(({ event }) => ({ event, audience: Audience.channelMetadata(channel.id) }))
          )
          return updated
        }))
      )

      // Zulip's `access_stream_by_name` without content access: knowing the channel is enough.
      const idByName = Effect.fn("Channels.idByName")(function*(principal: Principal, name: string) {
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const user = ctx.state.usersById.get(principal.user.id) ?? principal.user
        const key = name.toLowerCase()
        const channel = ctx.channels.find((c) => c.name.toLowerCase() === key)
        if (channel === undefined || !canSeeChannel(ctx, user, channel)) {
          return yield* new InvalidChannelName({ stream: name })
        }
        return channel.id
      })

      return Channels.of({
        idByName,
        update,
        create,
        createMany,
        findById: (id) => channels.findById(id),
        findByName: (realmId, name) => channels.findByName(realmId, name),
        subscribe,
        list,
        subscriptionsOf: (userId) =>
          subscriptions.listByUser(userId).pipe(Effect.map((rows) => rows.filter((s) => s.active))),
        hasWebPublicChannels: (realmId) =>
          channels.listByRealm(realmId).pipe(Effect.map((all) => all.some((c) => c.is_web_public && !c.is_archived)))
      })
    })
  )
}

