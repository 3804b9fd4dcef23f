/**
 * The draft rows (port). Implemented by `memory/MemoryDraftRepo.ts` and
 * `sql/SqlDraftRepo.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Draft, DraftId } from "../domain/Draft.ts"
import type { UserId } from "../domain/Ids.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class DraftRepo extends Context.Service<DraftRepo, {
  /** Inserts the rows in one statement; ids are handed out in the rows' order. */
  insertMany(rows: ReadonlyArray<Insert<Draft>>): Effect.Effect<ReadonlyArray<Draft>>
  /** The row, locked for the rest of the calling transaction (SQL). */
  lock(id: DraftId): Effect.Effect<Draft | undefined>
  update(draft: Draft): Effect.Effect<void>
  delete(id: DraftId): Effect.Effect<void>
  /** The user's drafts by edit time (ties by id): `oldest` or `newest` first, at most `limit`. */
  listByUser(userId: UserId, order: "oldest" | "newest", limit?: number): Effect.Effect<ReadonlyArray<Draft>>
  /** Removes every draft of the user (syncing turned off). */
  deleteByUser(userId: UserId): Effect.Effect<void>
}>()("teamchat/core/ports/DraftRepo") {}
