/**
 * The one path every feature publishes events through. A service calls
 * `publish` inside its transaction; the audience is resolved there (so it
 * matches the state being committed), the event is written to the log as
 * part of the same transaction, and waiting polls are woken only once it
 * commits. Work that rolls back publishes nothing.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MessageId, RealmId, UserId } from "../../domain/Ids.ts"
import type { Message } from "../../domain/Message.ts"
import { makeAccessLoader, metadataViewers, subscribersOf, usersWhoCanAccess } from "../internal/access.ts"
import type { AccessContext } from "../internal/access.ts"
import { RealmRepo } from "../../ports/Repositories.ts"
import type { Insert } from "../../ports/Repositories.ts"
import type { Audience, CapabilityCondition, EventPayload, NewLoggedEvent } from "../../domain/Event.ts"
import type { StaleAccess } from "../../ports/AccessCache.ts"
import { EventStore } from "../../ports/EventStore.ts"
import { MessageStore } from "../../ports/MessageStore.ts"
import { Transactor } from "../../ports/Transactor.ts"

/** One event and who gets it. @category models */
export interface Publication {
  readonly event: EventPayload
  readonly audience: Audience
  /** Deliver only to queues whose client capabilities match. */
  readonly requires?: CapabilityCondition | undefined
}

/** @category services */
export class Events extends Context.Service<Events, {
  /** Publishes one event (after the surrounding transaction commits). */
  publish(realmId: RealmId, event: EventPayload, audience: Audience, requires?: CapabilityCondition): Effect.Effect<void>
  /** Publishes several events in order, resolving audiences against one read of the organization. */
  publishAll(realmId: RealmId, publications: ReadonlyArray<Publication>): Effect.Effect<void>
  /**
   * Inserts a new message with its rows and publishes the events announcing
   * it, as one atomic write (`MessageStore.send`: each event's
   * `message.id` becomes the new message's id); answers that id. With
   * `accessVersion`, writes only while the organization's access version
   * is still that one (`StaleAccess` otherwise, nothing written).
   */
  publishMessage(
    realmId: RealmId,
    message: Insert<Message>,
    recipients: ReadonlyArray<{ readonly user_id: UserId; readonly flags: number }>,
    publications: ReadonlyArray<Publication>,
    options?: { readonly accessVersion?: number }
  ): Effect.Effect<MessageId, StaleAccess>
}>()("teamchat/core/services/events/Events") {
  static readonly layer = Layer.effect(
    Events,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const store = yield* EventStore
      const messages = yield* MessageStore
      const realms = yield* RealmRepo
      const tx = yield* Transactor

      const load = (realmId: RealmId) =>
        Effect.gen(function*() {
          const realm = yield* realms.findById(realmId)
          if (realm === undefined) return yield* Effect.die(new Error(`realm ${realmId} missing`))
          return yield* loadAccess(realm)
        })

      const resolve = (ctx: () => Effect.Effect<AccessContext>, audience: Audience) =>
        Effect.gen(function*(): Effect.fn.Return<ReadonlyArray<UserId> | null> {
          switch (audience._tag) {
            case "realm":
              return null
            case "users":
              return Array.from(new Set(audience.userIds)).sort((a, b) => a - b)
            case "canAccessUser": {
              const c = yield* ctx()
              const target = c.state.usersById.get(audience.userId)
              return target === undefined ? [] : usersWhoCanAccess(c, target)
            }
            case "subscribers": {
              const c = yield* ctx()
              return Array.from(subscribersOf(c, audience.channelId)).sort((a, b) => a - b)
            }
            case "channelMetadata": {
              const c = yield* ctx()
              const channel = c.channelsById.get(audience.channelId)
              return channel === undefined ? [] : metadataViewers(c, channel)
            }
          }
        })

      const resolveAll = Effect.fnUntraced(function*(realmId: RealmId, publications: ReadonlyArray<Publication>) {
        let cached: AccessContext | undefined
        const ctx = (): Effect.Effect<AccessContext> =>
          cached !== undefined ? Effect.succeed(cached) : Effect.map(load(realmId), (c) => (cached = c))
        const resolved: Array<NewLoggedEvent> = []
        for (const publication of publications) {
          const userIds = yield* resolve(ctx, publication.audience)
          if (userIds !== null && userIds.length === 0) continue
          resolved.push({ payload: publication.event, user_ids: userIds, requires: publication.requires ?? null })
        }
        return resolved
      })

      const publishAll = Effect.fn("Events.publishAll")(function*(
        realmId: RealmId,
        publications: ReadonlyArray<Publication>
      ) {
        // Appended as the transaction's last write: the log's lock is then
        // held only for the commit (see Transactor.beforeCommit).
        yield* tx.beforeCommit(store.append(realmId, yield* resolveAll(realmId, publications)))
      })

      // A send's one call, inside the span of `Messages.send`: untraced, as
      // a span's stack capture costs more than the rest of the call.
      const publishMessage = Effect.fnUntraced(function*(
        realmId: RealmId,
        message: Insert<Message>,
        recipients: ReadonlyArray<{ readonly user_id: UserId; readonly flags: number }>,
        publications: ReadonlyArray<Publication>,
        options?: { readonly accessVersion?: number }
      ) {
        return yield* messages.send(realmId, message, recipients, yield* resolveAll(realmId, publications), options)
      })

      return Events.of({
        publish: (realmId, event, audience, requires) => publishAll(realmId, [{ event, audience, requires }]),
        publishAll,
        publishMessage
      })
    })
  )
}
