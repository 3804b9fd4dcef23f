/**
 * The delivery worker of scheduled messages.
 *
 * Exactly once: one transaction claims due rows
 * (`ScheduledMessageRepo.claimDue`, `FOR UPDATE SKIP LOCKED` on SQL; one
 * row, or a batch of up to `batchSize` when many are due), sends each
 * through `Messages.send` (a nested savepoint, as a hand-sent message),
 * and marks each row delivered with its new message's id. A crash or
 * interruption anywhere in between rolls all of it back, leaving the rows
 * pending for the next worker; two processes on one database never claim
 * the same row. Events (the messages, the `remove`s) go out only after the
 * commit. A batch that dies (a defect) is retried one row at a time, and a
 * row that dies alone is set aside for `retryAfterMillis`.
 *
 * On time: instead of Zulip's once-a-minute loop, the worker sleeps until
 * the earliest pending delivery time, at most `maxWaitMillis` (so rows
 * scheduled by other processes are seen within that), and is woken at once
 * when this process schedules or edits a message. Time is Effect's Clock.
 *
 * A delivery that cannot happen (realm or sender deactivated, more than 10
 * minutes late after downtime, any error of the send itself) marks the row
 * failed with Zulip's text, emits an `update`, and, unless the sender is
 * deactivated, has the Notification Bot tell the sender.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import { directRecipientIds, LateCutoffSeconds, toApiScheduledMessage } from "../domain/ScheduledMessage.ts"
import type { ScheduledMessage, ScheduledMessageId } from "../domain/ScheduledMessage.ts"
import type { User } from "../domain/User.ts"
import { RealmDeactivated, ScheduledMessageDeliveryLate, UserDeactivated } from "../errors/Errors.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { Events } from "./events/Events.ts"
import { RealmRepo, UserRepo } from "../ports/Repositories.ts"
import { ScheduledMessageRepo } from "../ports/ScheduledMessageRepo.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Messages } from "./Messages.ts"
import type { BatchItem } from "./Messages.ts"
import { NotificationBot } from "./NotificationBot.ts"
import { ScheduledMessages } from "./ScheduledMessages.ts"

/** @category models */
export interface ScheduledDeliveryConfig {
  /** The longest the worker sleeps before looking for due rows again (ms). */
  readonly maxWaitMillis: number
  /** Deliveries run at once (each its own transaction; >1 helps on PostgreSQL only). */
  readonly concurrency: number
  /**
   * Due rows claimed and delivered per transaction, when that many are due.
   * A batch is claimed first (its row locks), then sent with one
   * `Messages.sendMany`: one read of the organization, one insert of
   * messages and rows, one batch of events, one commit. A batch whose
   * transaction dies (e.g. PostgreSQL aborting a deadlock) is retried one row
   * at a time, still exactly once. Default (undefined): 100.
   */
  readonly batchSize?: number | undefined
  /** How long a row whose delivery died (a defect, not a Zulip error) is left alone (ms). */
  readonly retryAfterMillis: number
}

/** @category references */
export const ScheduledDeliveryConfig = Context.Reference<ScheduledDeliveryConfig>(
  "teamchat/core/services/ScheduledDelivery/Config",
  { defaultValue: () => ({ maxWaitMillis: 1000, concurrency: 1, batchSize: undefined, retryAfterMillis: 30_000 }) }
)

interface Lookups {
  readonly realm: (id: RealmId) => Effect.Effect<Realm | undefined>
  readonly user: (id: UserId) => Effect.Effect<User | undefined>
}

/** What happened to one claimed row. @category models */
export type DeliveryOutcome =
  | { readonly _tag: "Delivered"; readonly id: ScheduledMessageId; readonly messageId: number }
  | { readonly _tag: "Failed"; readonly id: ScheduledMessageId; readonly reason: string }

/**
 * `<time:…>`, Zulip's global time syntax, of a delivery time.
 *
 * @category formatting
 */
export const globalTime = (seconds: number): string =>
  `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`

/** The Notification Bot's message about a failed delivery. @category formatting */
export const failureNotice = (scheduledTimestamp: number, reason: string): string =>
  `The message you scheduled for ${globalTime(scheduledTimestamp)} was not sent because of the following error:\n\n` +
  `> ${reason}\n\n[View scheduled messages](#scheduled)`

/** @category services */
export class ScheduledDelivery extends Context.Service<ScheduledDelivery, {
  /**
   * Claims and delivers (or fails) one due row in its own transaction;
   * `undefined` when nothing is due (or every due row is claimed elsewhere).
   */
  readonly deliverOne: (skip?: ReadonlyArray<ScheduledMessageId>) => Effect.Effect<DeliveryOutcome | undefined>
  /** Delivers everything due now, in batches; the outcomes, in order. */
  readonly runDue: Effect.Effect<ReadonlyArray<DeliveryOutcome>>
  /** The worker loop; runs until interrupted. */
  readonly run: Effect.Effect<never>
}>()("teamchat/core/services/ScheduledDelivery") {
  static readonly layer = Layer.effect(
    ScheduledDelivery,
    Effect.gen(function*() {
      const repo = yield* ScheduledMessageRepo
      const users = yield* UserRepo
      const realms = yield* RealmRepo
      const messages = yield* Messages
      const bot = yield* NotificationBot
      const scheduled = yield* ScheduledMessages
      const events = yield* Events
      const tx = yield* Transactor
      const publish = (row: ScheduledMessage, event: EventOf<"scheduled_messages">) =>
        events.publish(row.realm_id, event, Audience.users([row.sender_id]))

      const fail = Effect.fnUntraced(function*(row: ScheduledMessage, reason: string, notify: boolean) {
        const failed: ScheduledMessage = { ...row, failed: true, failure_message: reason }
        yield* repo.update(failed)
        yield* publish(failed, { type: "scheduled_messages", op: "update", scheduled_message: toApiScheduledMessage(failed) })
        if (notify) {
          // Best effort: a notice that cannot be sent (it is a nested
          // transaction) must not undo the failure record.
          yield* bot.sendDirect(row.realm_id, row.sender_id, failureNotice(row.scheduled_timestamp, reason)).pipe(
            Effect.catch((error) => Effect.logWarning("scheduled message failure notice not sent", error.msg)),
            Effect.annotateLogs({ scheduled_message_id: row.id })
          )
        }
        return { _tag: "Failed", id: row.id, reason } satisfies DeliveryOutcome as DeliveryOutcome
      })

      /**
       * Inside the claiming transaction: the rows that cannot go out fail
       * here; the others are sent together through `Messages.sendMany` (the
       * same path as a message sent by hand), each failing alone.
       * `removes` collects the `remove` events of the batch.
       */
      const deliverAll = Effect.fnUntraced(function*(
        rows: ReadonlyArray<ScheduledMessage>,
        nowMillis: number,
        lookups: Lookups,
        removes: Array<ScheduledMessage>
      ) {
        const outcomes: Array<DeliveryOutcome | undefined> = new Array(rows.length)
        const sendable: Array<{ readonly index: number; readonly item: BatchItem }> = []
        for (const [index, row] of rows.entries()) {
          const realm = yield* lookups.realm(row.realm_id)
          const sender = yield* lookups.user(row.sender_id)
          // Zulip's order: the organization, the sender, then lateness.
          if (realm === undefined || realm.deactivated) {
            outcomes[index] = yield* fail(row, new RealmDeactivated().msg, true)
          } else if (sender === undefined || !sender.is_active) {
            outcomes[index] = yield* fail(row, new UserDeactivated().msg, false)
          } else if (nowMillis > (row.scheduled_timestamp + LateCutoffSeconds) * 1000) {
            outcomes[index] = yield* fail(row, new ScheduledMessageDeliveryLate().msg, true)
          } else {
            sendable.push({
              index,
              item: {
                principal: { user: sender, realm },
                request: row.type === "stream"
                  ? {
                    type: "stream",
                    to: row.channel_id ?? 0,
                    topic: row.topic,
                    content: row.content,
                    read_by_sender: row.read_by_sender
                  }
                  : { type: "private", to: directRecipientIds(row), content: row.content, read_by_sender: row.read_by_sender },
                options: { client: row.client, dateSent: row.scheduled_timestamp }
              }
            })
          }
        }
        const results = yield* messages.sendMany(sendable.map((s) => s.item))
        const delivered: Array<{ readonly id: ScheduledMessageId; readonly messageId: number }> = []
        for (const [i, result] of results.entries()) {
          const { index } = sendable[i]!
          const row = rows[index]!
          if (result._tag === "Failure") {
            outcomes[index] = yield* fail(row, result.failure.msg, true)
            continue
          }
          delivered.push({ id: row.id, messageId: result.success.id })
          removes.push(row)
          outcomes[index] = { _tag: "Delivered", id: row.id, messageId: result.success.id }
        }
        yield* repo.markDelivered(delivered)
        return outcomes as ReadonlyArray<DeliveryOutcome>
      })

      /** Realms and senders read once per batch (a batch writes neither). */
      const makeLookups = (): Lookups => {
        const realmCache = new Map<RealmId, Realm | undefined>()
        const userCache = new Map<UserId, User | undefined>()
        return {
          realm: (id) =>
            realmCache.has(id)
              ? Effect.succeed(realmCache.get(id))
              : Effect.tap(realms.findById(id), (r) => Effect.sync(() => realmCache.set(id, r))),
          user: (id) =>
            userCache.has(id)
              ? Effect.succeed(userCache.get(id))
              : Effect.tap(users.findById(id), (u) => Effect.sync(() => userCache.set(id, u)))
        }
      }

      /**
       * One transaction: claims up to `limit` due rows and delivers each (a
       * send that fails rolls back its own savepoint only). `claimed` lists
       * the rows taken, also when the transaction died.
       */
      const attempt = (skip: ReadonlyArray<ScheduledMessageId>, limit: number) => {
        const claimed: Array<ScheduledMessageId> = []
        const effect = tx.withTransaction(Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const rows = yield* repo.claimDue(Math.floor(now / 1000), limit, skip)
          for (const row of rows) claimed.push(row.id)
          const lookups = makeLookups()
          const removes: Array<ScheduledMessage> = []
          const outcomes = yield* deliverAll(rows, now, lookups, removes)
          const byRealm = new Map<RealmId, Array<ScheduledMessage>>()
          for (const row of removes) {
            let list = byRealm.get(row.realm_id)
            if (list === undefined) byRealm.set(row.realm_id, list = [])
            list.push(row)
          }
          for (const [realmId, list] of byRealm) {
            yield* events.publishAll(realmId, list.map((row) => ({
              event: { type: "scheduled_messages", op: "remove", scheduled_message_id: row.id },
              audience: Audience.users([row.sender_id])
            })))
          }
          return outcomes as ReadonlyArray<DeliveryOutcome>
        })).pipe(Effect.withSpan("ScheduledDelivery.attempt"))
        return { effect, claimed }
      }

      // Rows whose delivery died (a defect), with the time they may be tried again.
      const parked = new Map<ScheduledMessageId, number>()

      const runDue = Effect.gen(function*() {
        const config = yield* ScheduledDeliveryConfig
        const outcomes: Array<DeliveryOutcome> = []
        // After a batch dies, rows go one at a time, to find the one to set aside.
        let limit = Math.max(1, config.batchSize ?? 100)
        const worker = Effect.gen(function*() {
          while (true) {
            const now = yield* Clock.currentTimeMillis
            for (const [id, until] of parked) if (until <= now) parked.delete(id)
            const { claimed, effect } = attempt(Array.from(parked.keys()), limit)
            const exit = yield* Effect.exit(effect)
            if (exit._tag === "Success") {
              if (exit.value.length === 0) return
              outcomes.push(...exit.value)
              continue
            }
            if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
            yield* Effect.logError("scheduled message delivery died; its rows stay pending", exit.cause).pipe(
              Effect.annotateLogs({ scheduled_message_ids: claimed.join(",") })
            )
            if (claimed.length === 0) return
            if (claimed.length === 1) parked.set(claimed[0]!, now + config.retryAfterMillis)
            else limit = 1
          }
        })
        yield* Effect.all(Array.from({ length: Math.max(1, config.concurrency) }, () => worker), {
          concurrency: "unbounded",
          discard: true
        })
        return outcomes as ReadonlyArray<DeliveryOutcome>
      }).pipe(Effect.withSpan("ScheduledDelivery.runDue"))

      const run = Effect.gen(function*() {
        const config = yield* ScheduledDeliveryConfig
        while (true) {
          // Taken first, so a change committed from here on wakes the sleep below.
          const changed = yield* scheduled.nextChange
          yield* runDue
          const next = yield* repo.nextDue
          const now = yield* Clock.currentTimeMillis
          let wait = next === null ? config.maxWaitMillis : Math.min(config.maxWaitMillis, next * 1000 - now)
          // Due rows that were not handled are claimed elsewhere or set aside:
          // look again shortly rather than spin.
          if (wait <= 0) wait = Math.min(config.maxWaitMillis, 50)
          yield* Effect.raceFirst(Effect.sleep(wait), changed)
        }
      }).pipe(
        // A failure of the loop itself (e.g. the database is unreachable)
        // must not end delivery: log it and start over after a pause.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError("scheduled message worker failed; restarting", cause).pipe(
              Effect.andThen(Effect.gen(function*() {
                yield* Effect.sleep((yield* ScheduledDeliveryConfig).maxWaitMillis)
              }))
            )
        ),
        Effect.forever
      ) as Effect.Effect<never>

      return ScheduledDelivery.of({
        deliverOne: (skip = []) => Effect.map(attempt(skip, 1).effect, (outcomes) => outcomes[0]),
        runDue,
        run
      })
    })
  )

  /**
   * The worker, running for the lifetime of the layer: what a server starts
   * beside its routes (see `@teamchat/http/Server`). Embedders that serve
   * the API through their own server add it to their core layer.
   */
  static readonly layerWorker: Layer.Layer<never, never, ScheduledDelivery> = Layer.effectDiscard(
    Effect.gen(function*() {
      const delivery: ScheduledDelivery["Service"] = yield* ScheduledDelivery
      yield* Effect.forkScoped(delivery.run)
    })
  )
}
