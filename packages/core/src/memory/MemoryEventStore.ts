/**
 * The event log and queues in process memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { addressedTo } from "../domain/Event.ts"
import type { LoggedEvent, QueueRecord } from "../domain/Event.ts"
import type { NewLoggedEvent } from "../domain/Event.ts"
import type { RealmId } from "../domain/Ids.ts"
import { EventStore, eventsSignal, makeCallbacks } from "../ports/EventStore.ts"
import { Transactor } from "../ports/Transactor.ts"

/**
 * The log and queues in process memory. Appends happen when the memory
 * transaction commits, so rolled-back work never reaches the log.
 *
 * @category layers
 */
export const layer: Layer.Layer<EventStore, never, Transactor> = Layer.effect(
  EventStore,
  Effect.gen(function*() {
    const tx = yield* Transactor
    const log: Array<LoggedEvent> = []
    const queues = new Map<string, QueueRecord>()
    let sequence = 0
    const { dispatch, onSignal } = makeCallbacks()
    /**
     * The index of the first entry of `log` with an id above `after`: the
     * log is in id order (appended in sequence, pruned in place), so a read
     * starts there rather than scanning every entry, which each of a
     * thousand waking polls would do on a long log.
     */
    const firstAfter = (after: number) => {
      let low = 0
      let high = log.length
      while (low < high) {
        const middle = (low + high) >>> 1
        if (log[middle]!.id <= after) low = middle + 1
        else high = middle
      }
      return low
    }
    const update = (id: string, f: (q: QueueRecord) => QueueRecord) => {
      const queue = queues.get(id)
      if (queue !== undefined) queues.set(id, f(queue))
    }
    const append = (realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>) =>
      events.length === 0 ? Effect.void : tx.afterCommit(Effect.sync(() => {
        for (const event of events) {
          log.push({
            id: ++sequence,
            realm_id: realmId,
            type: event.payload.type,
            payload: event.payload,
            user_ids: event.user_ids,
            requires: event.requires
          })
        }
        dispatch(eventsSignal(realmId, events))
      }))
    return EventStore.of({
      append,
      // Transactions run one at a time in memory: nothing to wait for.
      lockLog: () => Effect.void,
      highWaterMark: (realmId) =>
        Effect.sync(() => {
          for (let i = log.length - 1; i >= 0; i--) if (log[i]!.realm_id === realmId) return log[i]!.id
          return 0
        }),
      read: (realmId, userId, after, upTo) =>
        Effect.sync(() => {
          const found: Array<LoggedEvent> = []
          for (let i = firstAfter(after); i < log.length; i++) {
            const e = log[i]!
            if (upTo !== undefined && e.id > upTo) break
            if (e.realm_id === realmId && addressedTo(e, userId)) found.push(e)
          }
          return found
        }),
      nextId: () => Effect.sync(() => ++sequence),
      insertQueue: (queue) => Effect.sync(() => void queues.set(queue.id, queue)),
      findQueue: (id) => Effect.sync(() => queues.get(id)),
      saveAck: (id, ack) => Effect.sync(() => update(id, (q) => ({ ...q, ...ack }))),
      setHeartbeat: (id, heartbeatId) => Effect.sync(() => update(id, (q) => ({ ...q, heartbeat_id: heartbeatId }))),
      markBlocked: (id, now, blockedUntil) =>
        Effect.sync(() => update(id, (q) => ({ ...q, last_connected: now, blocked_until: blockedUntil }))),
      markUnblocked: (id) => Effect.sync(() => update(id, (q) => ({ ...q, blocked_until: 0 }))),
      deleteQueue: (id) => Effect.sync(() => queues.delete(id)),
      deleteExpired: (now) =>
        Effect.sync(() => {
          const expired: Array<string> = []
          for (const queue of queues.values()) {
            if (queue.blocked_until <= now && now - queue.last_connected >= queue.lifespan_secs * 1000) {
              expired.push(queue.id)
            }
          }
          for (const id of expired) queues.delete(id)
          return expired
        }),
      pruneLog: Effect.sync(() => {
        const floor = new Map<number, number>()
        for (const queue of queues.values()) {
          floor.set(queue.realm_id, Math.min(floor.get(queue.realm_id) ?? Infinity, queue.cursor_id))
        }
        const before = log.length
        const kept = log.filter((e) => e.id > (floor.get(e.realm_id) ?? Infinity))
        log.length = 0
        log.push(...kept)
        return before - kept.length
      }),
      signal: (signal) => Effect.sync(() => dispatch(signal)),
      onSignal
    })
  })
)
