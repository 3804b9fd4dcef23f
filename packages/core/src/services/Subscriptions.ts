/**
 * The caller's subscriptions: GET/POST/DELETE /users/me/subscriptions and
 * POST /users/me/subscriptions/properties, with their events.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { valueChange } from "../domain/AuditLog.ts"
import type { AuditChange } from "../domain/AuditLog.ts"
import type { Channel, Subscription, SubscriptionProperties } from "../domain/Channel.ts"
import { MaxChannelNameLength, newSubscriptionProperties } from "../domain/Channel.ts"
import { ChannelId, UserId } from "../domain/Ids.ts"
import type { User } from "../domain/User.ts"
import {
  BadRequest,
  InsufficientPermission,
  InvalidChannelId,
  NoSuchUser,
  StreamNameDoesNotExist,
  TooManyItems
} from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { accessOfRequest, canReadChannel, canSeeChannel, makeAccessLoader, postPolicyGroupsIn } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { activeSubscriberIds, subscriptionAddEvents, subscriptionRemoveEvents } from "./events/subscriptionEvents.ts"
import { canAddSubscribers, canRemoveSubscribers } from "../permissions/ChannelAccess.ts"
import { hasGroupPermission, membershipCheck } from "../permissions/GroupMembership.ts"
import { ChannelRepo, RealmRepo, SubscriptionRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { toApiSubscription } from "../views/ChannelView.ts"
import type { ApiSubscription } from "../views/ChannelView.ts"
import { AuditLog } from "./AuditLog.ts"
import { Channels } from "./Channels.ts"
import type { Principal } from "../domain/Principal.ts"

/** POST /users/me/subscriptions, decoded. @category models */
export interface SubscribeRequest {
  readonly subscriptions: ReadonlyArray<{ readonly name: string; readonly description?: string | undefined }>
  /** User ids or emails; absent: the caller. */
  readonly principals?: ReadonlyArray<number | string> | undefined
  /** Default true. */
  readonly authorization_errors_fatal?: boolean | undefined
  readonly announce?: boolean | undefined
  readonly invite_only?: boolean | undefined
  readonly is_web_public?: boolean | undefined
  readonly is_default_stream?: boolean | undefined
  readonly history_public_to_subscribers?: boolean | undefined
  readonly message_retention_days?: number | null | undefined
}

/** Keys are user ids as strings (feature level 289). @category models */
export interface SubscribeResult {
  readonly subscribed: Readonly<Record<string, ReadonlyArray<string>>>
  readonly already_subscribed: Readonly<Record<string, ReadonlyArray<string>>>
  /** Only when `authorization_errors_fatal` is false. */
  readonly unauthorized?: ReadonlyArray<string>
}

/** DELETE /users/me/subscriptions, decoded. @category models */
export interface UnsubscribeRequest {
  readonly subscriptions: ReadonlyArray<string>
  readonly principals?: ReadonlyArray<number | string> | undefined
}

/** @category models */
export interface UnsubscribeResult {
  readonly removed: ReadonlyArray<string>
  readonly not_removed: ReadonlyArray<string>
}

/** One element of `subscription_data`. @category models */
export interface SubscriptionPropertyChange {
  readonly stream_id: number
  readonly property: string
  readonly value: unknown
}

/** The property names POST /users/me/subscriptions/properties accepts. @category constants */
export const SubscriptionPropertyNames = [
  "color",
  "is_muted",
  "in_home_view",
  "pin_to_top",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify"
] as const

/** Channels one subscribe or unsubscribe request may name. @category constants */
export const MaxSubscriptionsPerRequest = 1000

/** Users one subscribe or unsubscribe request may name in `principals`. @category constants */
export const MaxPrincipalsPerRequest = 1000

/** Channels × principals of one subscribe or unsubscribe request. @category constants */
export const MaxSubscriptionPairsPerRequest = 20_000

/** Changes one POST /users/me/subscriptions/properties may carry. @category constants */
export const MaxPropertyChangesPerRequest = 1000

/** @category errors */
export type SubscribeError = BadRequest | InsufficientPermission | NoSuchUser | TooManyItems

/** The request's size checked against the limits above, before any work. */
const checkSize = (channels: number, principals: ReadonlyArray<unknown> | undefined): Effect.Effect<void, TooManyItems | BadRequest> => {
  if (channels > MaxSubscriptionsPerRequest) {
    return Effect.fail(new TooManyItems({ var_name: "subscriptions", max_items: MaxSubscriptionsPerRequest }))
  }
  const users = principals === undefined || principals.length === 0 ? 1 : principals.length
  if (users > MaxPrincipalsPerRequest) {
    return Effect.fail(new TooManyItems({ var_name: "principals", max_items: MaxPrincipalsPerRequest }))
  }
  if (channels * users > MaxSubscriptionPairsPerRequest) {
    return Effect.fail(new BadRequest({
      msg: `Too many subscription changes in one request (limit: ${MaxSubscriptionPairsPerRequest} user-channel pairs).`
    }))
  }
  return Effect.void
}

const codePointOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Zulip's check_stream_name. @category validation */
export const checkChannelName = (raw: string): Effect.Effect<string, BadRequest> => {
  const name = raw.trim()
  if (name.length === 0) return Effect.fail(new BadRequest({ msg: "Channel name can't be empty." }))
  if (name.length > MaxChannelNameLength) {
    return Effect.fail(new BadRequest({ msg: `Channel name too long (limit: ${MaxChannelNameLength} characters).` }))
  }
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i)
    if (code < 0x20 || code === 0x7f || (code >= 0xfdd0 && code <= 0xfdef) || code === 0xfffe || code === 0xffff) {
      return Effect.fail(new BadRequest({ msg: `Invalid character in channel name, at position ${i + 1}.` }))
    }
  }
  return Effect.succeed(name)
}

/** @category services */
export class Subscriptions extends Context.Service<Subscriptions, {
  /** GET /users/me/subscriptions: the caller's active subscriptions, by channel name. */
  list(principal: Principal, options: { readonly includeSubscribers: boolean }): Effect.Effect<ReadonlyArray<ApiSubscription>>
  /** POST /users/me/subscriptions. */
  subscribe(principal: Principal, request: SubscribeRequest): Effect.Effect<SubscribeResult, SubscribeError>
  /** DELETE /users/me/subscriptions. */
  unsubscribe(
    principal: Principal,
    request: UnsubscribeRequest
  ): Effect.Effect<UnsubscribeResult, StreamNameDoesNotExist | InsufficientPermission | NoSuchUser | TooManyItems | BadRequest>
  /** POST /users/me/subscriptions/properties. */
  updateProperties(
    principal: Principal,
    changes: ReadonlyArray<SubscriptionPropertyChange>
  ): Effect.Effect<void, BadRequest | InvalidChannelId | TooManyItems>
}>()("teamchat/core/services/Subscriptions") {
  static readonly layer = Layer.effect(
    Subscriptions,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const channelsService = yield* Channels
      const subscriptions = yield* SubscriptionRepo
      const channelRepo = yield* ChannelRepo
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor
      const audit = yield* AuditLog

      const context = (principal: Principal) =>
        Effect.gen(function*() {
          const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
          return yield* loadAccess(realm)
        })


      const resolvePrincipals = Effect.fnUntraced(function*(
        ctx: AccessContext,
        principal: Principal,
        raw: ReadonlyArray<number | string> | undefined
      ) {
        if (raw === undefined || raw.length === 0) return [principal.user]
        const out: Array<User> = []
        for (const p of raw) {
          const user = typeof p === "number"
            ? UserId.makeOption(p).pipe(Option.flatMapNullishOr((id) => ctx.state.usersById.get(id)), Option.getOrUndefined)
            : ctx.state.users.find((u) =>
              u.email.toLowerCase() === p.toLowerCase() || u.delivery_email.toLowerCase() === p.toLowerCase()
            )
          if (user === undefined || !user.is_active) return yield* new NoSuchUser()
          if (!out.some((u) => u.id === user.id)) out.push(user)
        }
        return out
      })

      /** The rows of each user, active or not, by channel id: one read for every user. */
      const rowsByUser = (users: ReadonlyArray<User>) =>
        Effect.map(subscriptions.listByUsers(users.map((u) => u.id)), (rows) => {
          const out = new Map<UserId, Map<ChannelId, Subscription>>(users.map((u) => [u.id, new Map()]))
          for (const row of rows) out.get(row.user_id)?.set(row.channel_id, row)
          return out
        })

      const list = Effect.fn("Subscriptions.list")(function*(
        principal: Principal,
        options: { readonly includeSubscribers: boolean }
      ) {
        // The organization as authentication found it current for this request (its kept read).
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const groupsIds = postPolicyGroupsIn(ctx)
        const mine = (yield* subscriptions.listByUser(principal.user.id)).filter((s) => s.active)
        return mine.flatMap((sub) => {
          const channel = ctx.channelsById.get(sub.channel_id)
          return channel === undefined
            ? []
            : [toApiSubscription(channel, sub, activeSubscriberIds(ctx, channel.id), groupsIds, options)]
        }).sort((a, b) => codePointOrder(a.name, b.name))
      })

      const subscribe = Effect.fn("Subscriptions.subscribe")(function*(principal: Principal, request: SubscribeRequest) {
        yield* checkSize(request.subscriptions.length, request.principals)
        const names: Array<{ name: string; description: string | undefined }> = []
        for (const item of request.subscriptions) {
          const name = yield* checkChannelName(item.name)
          if (!names.some((n) => n.name.toLowerCase() === name.toLowerCase())) {
            names.push({ name, description: item.description })
          }
        }
        const fatal = request.authorization_errors_fatal ?? true
        return yield* tx.withTransaction(Effect.gen(function*() {
          let before = yield* context(principal)
          const isNew = (n: { readonly name: string }) =>
            !before.channels.some((c) => c.name.toLowerCase() === n.name.toLowerCase())
          if (names.some(isNew)) {
            // A name may be claimed by a concurrent request: wait for any
            // claim in progress, then decide on what it committed (a channel
            // created meanwhile is joined, not created again).
            yield* channelRepo.lockNames(principal.realm.id)
            before = yield* context(principal)
          }
          const actor = principal.user
          const targets = yield* resolvePrincipals(before, principal, request.principals)
          const othersIncluded = targets.some((u) => u.id !== actor.id)
          const realmSettings = before.state.realm.settings
          const existing: Array<Channel> = []
          const toCreate: Array<{ name: string; description: string | undefined }> = []
          for (const n of names) {
            const channel = before.channels.find((c) => c.name.toLowerCase() === n.name.toLowerCase())
            if (channel === undefined) toCreate.push(n)
            else existing.push(channel)
          }
          // Creating channels (Zulip's list_to_streams).
          if (toCreate.length > 0) {
            const inviteOnly = request.invite_only ?? false
            const webPublic = request.is_web_public ?? false
            const allowed = (value: typeof realmSettings.can_create_public_channel_group) =>
              hasGroupPermission(before.state.index, actor, value, { allowEveryoneGroup: false })
            if (webPublic) {
              if (!realmSettings.enable_spectator_access) {
                return yield* new BadRequest({ msg: "Web-public channels are not enabled." })
              }
              if (!allowed(realmSettings.can_create_web_public_channel_group)) return yield* new InsufficientPermission()
            }
            if (!inviteOnly && !allowed(realmSettings.can_create_public_channel_group)) {
              return yield* new InsufficientPermission()
            }
            if (inviteOnly && !allowed(realmSettings.can_create_private_channel_group)) {
              return yield* new InsufficientPermission()
            }
          }
          // Authorization on existing channels.
          const unauthorized: Array<Channel> = []
          const authorized: Array<Channel> = []
          const inGroup = membershipCheck(before.state.index, actor.id)
          for (const channel of existing) {
            const input = { user: actor, channel, isSubscribed: before.subscriptions.get(actor.id)?.has(channel.id) ?? false, inGroup }
            const ok = othersIncluded
              ? canAddSubscribers(input, realmSettings)
              : canReadChannel(before, actor, channel)
            if (ok) authorized.push(channel)
            else unauthorized.push(channel)
          }
          if (unauthorized.length > 0 && fatal) {
            if (othersIncluded && unauthorized.every((c) => canReadChannel(before, actor, c))) {
              return yield* new InsufficientPermission()
            }
            return yield* new BadRequest({
              msg: `Unable to access channel (${unauthorized.map((c) => c.name).join(", ")}).`
            })
          }
          if (othersIncluded && toCreate.length > 0 &&
            !hasGroupPermission(before.state.index, actor, realmSettings.can_add_subscribers_group, { allowEveryoneGroup: false }) &&
            !(actor.role <= 200)) {
            return yield* new InsufficientPermission()
          }
          const created = yield* channelsService.createMany(
            principal.realm.id,
            toCreate.map((n) => ({
              name: n.name,
              ...(n.description === undefined ? {} : { description: n.description }),
              invite_only: request.invite_only ?? false,
              is_web_public: request.is_web_public ?? false,
              is_default: request.is_default_stream ?? false,
              ...(request.history_public_to_subscribers === undefined
                ? {}
                : { history_public_to_subscribers: request.history_public_to_subscribers }),
              ...(request.message_retention_days === undefined ? {} : { message_retention_days: request.message_retention_days }),
              creator_id: actor.id
            }))
          )
          const middle = yield* context(principal)
          const subscribed: Record<string, Array<string>> = {}
          const already: Record<string, Array<string>> = {}
          const added = new Map<ChannelId, Array<UserId>>()
          const written = new Map<string, Subscription>()
          const audited: Array<AuditChange> = []
          // Every target's rows in one read, every new row in one write.
          const rowsOf = yield* rowsByUser(targets)
          for (const channel of [...created, ...authorized]) {
            for (const user of targets) {
              const mine = rowsOf.get(user.id)!
              const current = mine.get(channel.id)
              if (current?.active === true) {
                ;(already[String(user.id)] ??= []).push(channel.name)
                continue
              }
              const properties = current?.properties ?? newSubscriptionProperties(Array.from(mine.values()))
              const row: Subscription = { user_id: user.id, channel_id: channel.id, active: true, properties }
              mine.set(channel.id, row)
              written.set(`${user.id}:${channel.id}`, row)
              audited.push({
                event_type: current === undefined ? "subscription_created" : "subscription_activated",
                modified_user_id: user.id,
                modified_stream_id: channel.id
              })
              ;(subscribed[String(user.id)] ??= []).push(channel.name)
              let list = added.get(channel.id)
              if (list === undefined) added.set(channel.id, list = [])
              list.push(user.id)
            }
          }
          yield* subscriptions.upsertMany(Array.from(written.values()))
          yield* audit.record(principal.realm.id, actor.id, audited)
          if (added.size > 0) {
            const after = yield* context(principal)
            yield* events.publishAll(
              principal.realm.id,
              subscriptionAddEvents(middle, after, after.state.realm, added, (u, c) => written.get(`${u}:${c}`))
            )
          }
          const result: SubscribeResult = fatal
            ? { subscribed, already_subscribed: already }
            : { subscribed, already_subscribed: already, unauthorized: unauthorized.map((c) => c.name) }
          return result
        }))
      })

      const unsubscribe = Effect.fn("Subscriptions.unsubscribe")((principal: Principal, request: UnsubscribeRequest) =>
        Effect.andThen(checkSize(request.subscriptions.length, request.principals), tx.withTransaction(Effect.gen(function*() {
          const before = yield* context(principal)
          const actor = principal.user
          const targets = yield* resolvePrincipals(before, principal, request.principals)
          const wanted: Array<Channel> = []
          for (const raw of request.subscriptions) {
            const name = raw.trim()
            const channel = before.channels.find((c) => c.name.toLowerCase() === name.toLowerCase())
            if (channel === undefined) return yield* new StreamNameDoesNotExist({ stream: name })
            if (!wanted.some((c) => c.id === channel.id)) wanted.push(channel)
          }
          const inGroup = membershipCheck(before.state.index, actor.id)
          for (const user of targets) {
            if (user.id === actor.id || user.bot_owner_id === actor.id) continue
            for (const channel of wanted) {
              const input = { user: actor, channel, isSubscribed: before.subscriptions.get(actor.id)?.has(channel.id) ?? false, inGroup }
              if (!canRemoveSubscribers(input)) return yield* new InsufficientPermission()
            }
          }
          const removed: Array<string> = []
          const notRemoved: Array<string> = []
          const changes = new Map<ChannelId, Array<UserId>>()
          const rowsOf = yield* rowsByUser(targets)
          const written: Array<Subscription> = []
          const audited: Array<AuditChange> = []
          for (const user of targets) {
            for (const channel of wanted) {
              const current = rowsOf.get(user.id)!.get(channel.id)
              if (current?.active !== true) {
                notRemoved.push(channel.name)
                continue
              }
              written.push({ ...current, active: false })
              audited.push({ event_type: "subscription_deactivated", modified_user_id: user.id, modified_stream_id: channel.id })
              removed.push(channel.name)
              let list = changes.get(channel.id)
              if (list === undefined) changes.set(channel.id, list = [])
              list.push(user.id)
            }
          }
          yield* subscriptions.upsertMany(written)
          yield* audit.record(principal.realm.id, actor.id, audited)
          if (changes.size > 0) {
            const after = yield* context(principal)
            yield* events.publishAll(principal.realm.id, subscriptionRemoveEvents(before, after, after.state.realm, changes))
          }
          return { removed, not_removed: notRemoved } satisfies UnsubscribeResult
        })))
      )

      const updateProperties = Effect.fn("Subscriptions.updateProperties")((
        principal: Principal,
        changes: ReadonlyArray<SubscriptionPropertyChange>
      ) =>
        Effect.andThen(
          changes.length > MaxPropertyChangesPerRequest
            ? Effect.fail(new TooManyItems({ var_name: "subscription_data", max_items: MaxPropertyChangesPerRequest }))
            : Effect.void,
          tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* context(principal)
          const audited: Array<AuditChange> = []
          for (const change of changes) {
            const property = change.property
            if (!(SubscriptionPropertyNames as ReadonlyArray<string>).includes(property)) {
              return yield* new BadRequest({ msg: `Unknown subscription property: ${property}` })
            }
            const channel = ChannelId.makeOption(change.stream_id).pipe(
              Option.flatMapNullishOr((id) => ctx.channelsById.get(id)),
              Option.getOrUndefined
            )
            if (channel === undefined || !canSeeChannel(ctx, principal.user, channel)) return yield* new InvalidChannelId()
            const sub = yield* subscriptions.find(principal.user.id, channel.id)
            if (sub === undefined || !sub.active) {
              return yield* new BadRequest({ msg: `Not subscribed to channel ID ${change.stream_id}` })
            }
            const given = change.value
            let value: string | boolean
            if (property === "color") {
              if (typeof given !== "string" || !/^#[0-9a-fA-F]{6}$/.test(given)) {
                return yield* new BadRequest({ msg: `${property} is not a valid hex color code` })
              }
              value = given
            } else {
              if (typeof given !== "boolean") return yield* new BadRequest({ msg: `${property} is not a boolean` })
              value = given
            }
            let name = property
            if (property === "in_home_view") {
              name = "is_muted"
              value = !value
            }
            const key = name as keyof SubscriptionProperties
            if (sub.properties[key] === value) continue
            yield* subscriptions.upsert({ ...sub, properties: { ...sub.properties, [key]: value } })
            audited.push({
              event_type: "subscription_property_changed",
              modified_user_id: principal.user.id,
              modified_stream_id: channel.id,
              extra_data: valueChange(sub.properties[key], value as boolean | string, name)
            })
            const updates: ReadonlyArray<EventOf<"subscription", "update">> = name === "is_muted"
              ? [
                { type: "subscription", op: "update", property: "in_home_view", value: !value, stream_id: channel.id },
                { type: "subscription", op: "update", property: "is_muted", value, stream_id: channel.id }
              ]
              : [{ type: "subscription", op: "update", property: name, value, stream_id: channel.id }]
            yield* events.publishAll(
              principal.realm.id,
              updates.map((event) => ({ event, audience: Audience.users([principal.user.id]) }))
            )
          }
          yield* audit.record(principal.realm.id, principal.user.id, audited)
        })))
      )

      return Subscriptions.of({ list, subscribe, unsubscribe, updateProperties })
    })
  )
}
