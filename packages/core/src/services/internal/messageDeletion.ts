/**
 * Deleting messages and announcing it, shared by DELETE /messages/{id}
 * (`MessageDeletion`) and POST /streams/{id}/delete_topic (`Topics`), as
 * Zulip's `do_delete_messages` serves both.
 *
 * Everything that belongs to a message goes with it in `MessageStore.delete`
 * (on SQL its rows' `ON DELETE CASCADE`, in memory the message tables'
 * delete): that is the one place per-message rows are removed, so a table
 * that hangs off a message (reactions, edit history, submessages) joins it
 * there and needs nothing here.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Channel } from "../../domain/Channel.ts"
import { Audience } from "../../domain/Event.ts"
import type { CapabilityCondition } from "../../domain/Event.ts"
import type { EventPayload } from "../../domain/events/EventPayload.ts"
import type { ChannelId, MessageId, UserId } from "../../domain/Ids.ts"
import { EmptyTopicDisplayName } from "../../domain/Message.ts"
import type { Message } from "../../domain/Message.ts"
import { isGuest } from "../../domain/Role.ts"
import { MessageStore } from "../../ports/MessageStore.ts"
import { ChannelRepo, MessageRepo } from "../../ports/Repositories.ts"
import { isPublic } from "../../permissions/ChannelAccess.ts"
import type { AccessContext } from "./access.ts"

/** Messages of one conversation to delete: one channel and topic, or one direct message. */
/** An event to publish and who gets it (what `Events.publishAll` takes). */
export interface Publication {
  readonly event: EventPayload
  readonly audience: Audience
  readonly requires?: CapabilityCondition | undefined
}

/** Where deleted messages were, as `delete_message` names it. */
type DeletedFrom =
  | { readonly message_type: "private" }
  | { readonly message_type: "stream"; readonly stream_id: number; readonly topic: string }

export interface Deletion {
  readonly ctx: AccessContext
  /** The acting user: always told. */
  readonly actorId: UserId
  /** The messages' channel (as read in this transaction); undefined for a direct message. */
  readonly channel: Channel | undefined
  /** Messages that exist, locked or otherwise safe to delete in this transaction; one topic. */
  readonly messages: ReadonlyArray<Message>
}

/**
 * The `delete_message` events of deleted messages, in every form a queue
 * may need: `message_ids` for clients with `bulk_message_deletion`, one
 * event per message with `message_id` otherwise. A channel message names
 * its channel and its topic lower-cased (Zulip groups deletions by topic
 * without case); the empty topic is "general chat" to clients without
 * `empty_topic_name`.
 */
export const deleteMessagePublications = (
  ids: ReadonlyArray<MessageId>,
  where: { readonly channelId: ChannelId; readonly topic: string } | undefined,
  userIds: ReadonlyArray<UserId>
): ReadonlyArray<Publication> => {
  const sorted = [...ids].sort((a, b) => a - b)
  const audience = Audience.users(userIds)
  const forms = (
    fields: DeletedFrom,
    requires: { readonly empty_topic_name?: boolean }
  ): ReadonlyArray<Publication> => [
    {
      event: { type: "delete_message", message_ids: sorted, ...fields },
      audience,
      requires: { ...requires, bulk_message_deletion: true }
    },
    ...sorted.map((id): Publication => ({
      event: { type: "delete_message", message_id: id, ...fields },
      audience,
      requires: { ...requires, bulk_message_deletion: false }
    }))
  ]
  if (where === undefined) return forms({ message_type: "private" }, {})
  const channelFields = (topic: string): DeletedFrom => ({ message_type: "stream", stream_id: where.channelId, topic })
  const topic = where.topic.toLowerCase()
  if (topic !== "") return forms(channelFields(topic), {})
  return [
    ...forms(channelFields(""), { empty_topic_name: true }),
    ...forms(channelFields(EmptyTopicDisplayName), { empty_topic_name: false })
  ]
}

/**
 * Who hears of an action on existing messages (Zulip's
 * `event_recipient_ids_for_action_on_messages`), with the acting user:
 * direct messages, those who received them; a public channel with public
 * history, its subscribers and the non-guests who have a row; a private
 * channel with shared history, its subscribers; with protected history,
 * the subscribers who received them. Active users only.
 */
export const actionAudience = Effect.fnUntraced(function*(
  ctx: AccessContext,
  channel: Channel | undefined,
  ids: ReadonlyArray<MessageId>,
  actorId: UserId
) {
  const repo = yield* MessageRepo
  const withRows = new Set<UserId>()
  for (const id of ids) for (const row of yield* repo.recipients(id)) withRows.add(row.user_id)
  const audience = new Set<UserId>()
  if (channel === undefined) {
    for (const id of withRows) audience.add(id)
  } else {
    const subscribers = ctx.subscribers.get(channel.id) ?? new Set<UserId>()
    if (!channel.history_public_to_subscribers) {
      for (const id of subscribers) if (withRows.has(id)) audience.add(id)
    } else {
      for (const id of subscribers) audience.add(id)
      if (isPublic(channel)) {
        for (const id of withRows) {
          const user = ctx.state.usersById.get(id)
          if (user !== undefined && !isGuest(user.role)) audience.add(id)
        }
      }
    }
  }
  const active = Array.from(audience).filter((id) => ctx.state.usersById.get(id)?.is_active === true)
  return Array.from(new Set([...active, actorId])).sort((a, b) => a - b)
})

/**
 * Deletes the messages with everything attached to them; returns the ids
 * deleted (ascending) and what to publish: `delete_message` to
 * `actionAudience`, after a `stream` update of `first_message_id` when the
 * channel's first message went (Zulip's order).
 */
export const deleteMessages = Effect.fnUntraced(function*(deletion: Deletion) {
  const { channel, ctx, messages: doomed } = deletion
  const none = { deleted: [] as ReadonlyArray<MessageId>, publications: [] as ReadonlyArray<Publication> }
  if (doomed.length === 0) return none
  const ids = doomed.map((m) => m.id)
  const userIds = yield* actionAudience(ctx, channel, ids, deletion.actorId)
  const deleted = yield* (yield* MessageStore).delete(ids)
  if (deleted.length === 0) return none
  const publications: Array<Publication> = []
  if (channel !== undefined) {
    const channels = yield* ChannelRepo
    const oldest = yield* (yield* MessageRepo).oldestInChannel(channel.id)
    if (oldest !== channel.first_message_id) {
      // The row as stored now: the whole row is written back.
      const current = (yield* channels.findById(channel.id)) ?? channel
      yield* channels.update({ ...current, first_message_id: oldest })
      publications.push({
        event: {
          type: "stream",
          op: "update",
          property: "first_message_id",
          value: oldest,
          stream_id: channel.id,
          name: channel.name
        },
        audience: Audience.users(userIds)
      })
    }
  }
  publications.push(...deleteMessagePublications(
    deleted,
    channel === undefined ? undefined : { channelId: channel.id, topic: doomed[0]!.topic },
    userIds
  ))
  return { deleted, publications }
})
