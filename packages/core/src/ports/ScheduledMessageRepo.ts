/**
 * The scheduled-message store (port). Its implementations,
 * `memory/MemoryScheduledMessageRepo.ts` and `sql/SqlScheduledMessageRepo.ts`,
 * give the same observable results (see RepositoryContract).
 *
 * `claimDue` is what makes delivery exactly-once: on SQL it locks the due
 * rows it returns (`FOR UPDATE SKIP LOCKED`) for the rest of the calling
 * transaction, so another process's worker skips them, and a transaction
 * that dies releases them still pending. In memory the Transactor admits one
 * writer at a time, which gives the same guarantee.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { UserId } from "../domain/Ids.ts"
import type { ScheduledMessage, ScheduledMessageId } from "../domain/ScheduledMessage.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class ScheduledMessageRepo extends Context.Service<ScheduledMessageRepo, {
  insert(row: Insert<ScheduledMessage>): Effect.Effect<ScheduledMessage>
  update(row: ScheduledMessage): Effect.Effect<void>
  /** Marks rows delivered, each with the id of the message it became (one statement for a batch). */
  markDelivered(
    rows: ReadonlyArray<{ readonly id: ScheduledMessageId; readonly messageId: number }>
  ): Effect.Effect<void>
  delete(id: ScheduledMessageId): Effect.Effect<void>
  findById(id: ScheduledMessageId): Effect.Effect<ScheduledMessage | undefined>
  /**
   * `findById`, locking the row until the surrounding transaction ends (an
   * edit waits for a delivery in progress, then sees it delivered).
   */
  lock(id: ScheduledMessageId): Effect.Effect<ScheduledMessage | undefined>
  /** The user's undelivered rows (failed ones included), by delivery time then id. */
  listUndelivered(userId: UserId): Effect.Effect<ReadonlyArray<ScheduledMessage>>
  /**
   * Up to `limit` pending rows due at `nowSeconds` (scheduled at or before
   * it), oldest first, locked until the surrounding transaction ends; rows
   * another transaction holds are skipped, and so are the ids in `skip`.
   * Call inside a transaction.
   */
  claimDue(
    nowSeconds: number,
    limit: number,
    skip?: ReadonlyArray<ScheduledMessageId>
  ): Effect.Effect<ReadonlyArray<ScheduledMessage>>
  /** The earliest delivery time of any pending row; null when none. */
  nextDue: Effect.Effect<number | null>
}>()("teamchat/core/ports/ScheduledMessageRepo") {}
