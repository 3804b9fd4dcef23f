/**
 * Topic-wide operations: POST /streams/{stream_id}/delete_topic.
 *
 * A topic can hold many messages, so deletion runs newest first in batches,
 * one transaction per batch (each batch's events go out once it commits),
 * and stops at a time budget with `complete: false` so the client repeats.
 * Each batch is deleted and announced as DELETE /messages/{id} deletes one
 * message (`internal/messageDeletion.ts`).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ChannelId } from "../domain/Ids.ts"
import type { MessageId } from "../domain/Ids.ts"
import { EmptyTopicDisplayName } from "../domain/Message.ts"
import { isAdministrator } from "../domain/Role.ts"
import { InvalidChannelId, OrganizationAdministratorRequired } from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import { deleteMessages } from "./internal/messageDeletion.ts"
import { accessInput, makeAccessLoader } from "./internal/access.ts"
import { hasContentAccess } from "../permissions/ChannelAccess.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { ChannelRepo, MessageRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import type { Principal } from "../domain/Principal.ts"

/** Messages deleted per transaction (Zulip's retention batch size). @category constants */
export const DeleteTopicBatchSize = 100

/** How long one request may keep deleting before it answers `complete: false`. @category constants */
export const DeleteTopicTimeBudgetMillis = 50_000

/** @category models */
export interface DeleteTopicOptions {
  readonly batchSize?: number | undefined
  readonly timeBudgetMillis?: number | undefined
}

/** @category services */
export class Topics extends Context.Service<Topics, {
  /** POST /streams/{stream_id}/delete_topic (administrators only). */
  deleteTopic(
    principal: Principal,
    channelId: number,
    topicName: string,
    options?: DeleteTopicOptions
  ): Effect.Effect<{ readonly complete: boolean }, OrganizationAdministratorRequired | InvalidChannelId>
}>()("teamchat/core/services/Topics") {
  static readonly layer = Layer.effect(
    Topics,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const messages = yield* MessageRepo
      // What the shared deletion reads and writes, bound once.
      const context = yield* Effect.context<MessageRepo | MessageStore | ChannelRepo>()
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor

      /** Deletes one batch; returns how many messages it deleted. */
      const deleteBatch = (principal: Principal, channelId: ChannelId, topic: string, batchSize: number) =>
        tx.withTransaction(Effect.gen(function*() {
          const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
          const ctx = yield* loadAccess(realm)
          const channel = ctx.channelsById.get(channelId)
          if (channel === undefined) return 0
          // Without public history an administrator deletes only what they received.
          const candidates = yield* messages.topicMessageIds(channelId, topic, batchSize * 4)
          let ids: ReadonlyArray<MessageId> = candidates
          if (!channel.history_public_to_subscribers) {
            const mine = new Set((yield* messages.userMessages(principal.user.id, candidates)).map((r) => r.message_id))
            ids = candidates.filter((id) => mine.has(id))
          }
          ids = ids.slice(0, batchSize)
          if (ids.length === 0) return 0
          // Locked as DELETE /messages/{id} locks one: a deletion of one of
          // them in flight commits first, and is not announced twice.
          const found = yield* messages.findByIdsLocked(ids, "update")
          const { publications } = yield* Effect.provideContext(
            deleteMessages({ ctx, actorId: principal.user.id, channel, messages: found }),
            context
          )
          yield* events.publishAll(realm.id, publications)
          return ids.length
        }))

      const deleteTopic = Effect.fn("Topics.deleteTopic")(function*(
        principal: Principal,
        channelId: number,
        topicName: string,
        options?: DeleteTopicOptions
      ) {
        if (!isAdministrator(principal.user.role)) return yield* new OrganizationAdministratorRequired()
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        const ctx = yield* loadAccess(realm)
        const channel = ChannelId.makeOption(channelId).pipe(
          Option.flatMapNullishOr((id) => ctx.channelsById.get(id)),
          Option.getOrUndefined
        )
        if (channel === undefined || !hasContentAccess(accessInput(ctx, principal.user, channel))) {
          return yield* new InvalidChannelId()
        }
        const topic = topicName.trim() === EmptyTopicDisplayName ? "" : topicName.trim()
        const batchSize = options?.batchSize ?? DeleteTopicBatchSize
        const budget = options?.timeBudgetMillis ?? DeleteTopicTimeBudgetMillis
        const started = yield* Clock.currentTimeMillis
        while (true) {
          const deleted = yield* deleteBatch(principal, channel.id, topic, batchSize)
          if (deleted < batchSize) return { complete: true }
          if ((yield* Clock.currentTimeMillis) - started >= budget) return { complete: false }
        }
      })

      return Topics.of({ deleteTopic })
    })
  )
}
