/**
 * Topic-wide operations: GET /users/me/{stream_id}/topics and POST
 * /streams/{stream_id}/delete_topic.
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
import { accessInput, accessOfRequest, makeAccessLoader } from "./internal/access.ts"
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

/** One entry of GET /users/me/{stream_id}/topics. @category models */
export interface TopicEntry {
  readonly name: string
  readonly max_id: number
}

/**
 * Topics as Zulip lists them: spellings that differ only in case are one
 * topic, named as its newest message spells it, with the newest id of all
 * of them; newest first. Without `allowEmptyTopicName` the empty topic
 * reads "general chat".
 *
 * @category views
 */
export const topicHistory = (
  rows: ReadonlyArray<{ readonly topic: string; readonly max_id: number }>,
  allowEmptyTopicName: boolean
): ReadonlyArray<TopicEntry> => {
  const byKey = new Map<string, { name: string; max_id: number }>()
  for (const row of rows) {
    const key = row.topic.toLowerCase()
    const seen = byKey.get(key)
    if (seen === undefined || row.max_id > seen.max_id) byKey.set(key, { name: row.topic, max_id: row.max_id })
  }
  return Array.from(byKey.values(), ({ name, max_id }) => ({
    name: name === "" && !allowEmptyTopicName ? EmptyTopicDisplayName : name,
    max_id
  })).sort((a, b) => b.max_id - a.max_id)
}

/** @category services */
export class Topics extends Context.Service<Topics, {
  /** GET /users/me/{stream_id}/topics: the channel's topics the user may see, newest first. */
  list(
    principal: Principal,
    channelId: number,
    options: { readonly allowEmptyTopicName: boolean }
  ): Effect.Effect<ReadonlyArray<TopicEntry>, InvalidChannelId>
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

      const list = Effect.fn("Topics.list")(function*(
        principal: Principal,
        channelId: number,
        options: { readonly allowEmptyTopicName: boolean }
      ) {
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const user = ctx.state.usersById.get(principal.user.id) ?? principal.user
        const channel = ChannelId.makeOption(channelId).pipe(
          Option.flatMapNullishOr((id) => ctx.channelsById.get(id)),
          Option.getOrUndefined
        )
        if (channel === undefined || !hasContentAccess(accessInput(ctx, user, channel))) {
          return yield* new InvalidChannelId()
        }
        // Protected history: only the topics of messages the user received.
        const rows = yield* messages.channelTopics(channel.id, channel.history_public_to_subscribers ? null : user.id)
        return topicHistory(rows, options.allowEmptyTopicName)
      })

      return Topics.of({ list, deleteTopic })
    })
  )
}
