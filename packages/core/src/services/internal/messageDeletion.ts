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
import { MessageStore } from "../../ports/MessageStore.ts"
import { ChannelRepo, MessageRepo } from "../../ports/Repositories.ts"
import type { AccessContext } from "./access.ts"
import { messageActionAudience } from "./messageAccess.ts"

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
 * Deletes the messages with everything attached to them; returns the ids
 * deleted (ascending) and what to publish: `delete_message` to
 * `messageActionAudience` and the actor, after a `stream` update of `first_message_id` when the
 * channel's first message went (Zulip's order).
 */
export const deleteMessages = Effect.fnUntraced(function*(deletion: Deletion) {
  const { channel, ctx, messages: doomed } = deletion
  const none = { deleted: [] as ReadonlyArray<MessageId>, publications: [] as ReadonlyArray<Publication> }
  if (doomed.length === 0) return none
  const ids = doomed.map((m) => m.id)
  // The acting user hears of it too, whatever their access now.
  const audience = yield* messageActionAudience(yield* MessageRepo, ctx, channel, ids)
  const userIds = Array.from(new Set([...audience, deletion.actorId])).sort((a, b) => a - b)
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
