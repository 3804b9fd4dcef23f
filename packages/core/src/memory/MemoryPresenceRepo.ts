/**
 * The presence rows in memory; the organization's presence sequence is a
 * table entry, so a rolled-back write gives its update id back, as the SQL
 * row does.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Presence, PresenceTimes } from "../domain/Presence.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import type { PresenceOfUser } from "../ports/PresenceRepo.ts"
import { PresenceRepo, selectRows } from "../ports/PresenceRepo.ts"
import { Transactor } from "../ports/Transactor.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<PresenceRepo, never, MemoryDatabase | Transactor> = Layer.effect(
  PresenceRepo,
  Effect.gen(function*() {
    const db = yield* MemoryDatabase
    const tx = yield* Transactor
    const withUser = (presence: Presence): PresenceOfUser | undefined => {
      const user = db.tables.users.get(presence.user_id)
      return user === undefined ? undefined : { presence, email: user.email, date_joined: user.date_joined }
    }
    const writeRow = (realmId: RealmId, userId: UserId, times: PresenceTimes) => {
      const id = (db.tables.presenceSequences.get(realmId) ?? 0) + 1
      db.tables.presenceSequences.set(realmId, id)
      db.tables.presence.set(userId, { user_id: userId, realm_id: realmId, ...times, last_update_id: id })
      return id
    }
    return PresenceRepo.of({
      find: (userId) => Effect.sync(() => db.tables.presence.get(userId)),
      write: (realmId, userId, times) => Effect.sync(() => writeRow(realmId, userId, times)),
      latest: (_realmId, userId) => Effect.sync(() => db.tables.presence.get(userId)),
      // In a transaction of its own (or the caller's): a write outside one
      // would be undone by the rollback of any transaction running meanwhile.
      writeIfUnchanged: (realmId, userId, expectedUpdateId, times) =>
        tx.withTransaction(Effect.sync(() => {
          const row = db.tables.presence.get(userId)
          if (row === undefined || row.last_update_id !== expectedUpdateId) return undefined
          if (resolveSettings(db.tables.userSettings.get(userId) ?? {}).presence_enabled !== true) return undefined
          return writeRow(realmId, userId, times)
        })),
      list: (realmId, filter) =>
        Effect.sync(() => selectRows(Array.from(db.tables.presence.values()).filter((p) => p.realm_id === realmId), filter)),
      findOfUser: (userId) =>
        Effect.sync(() => {
          const presence = db.tables.presence.get(userId)
          return presence === undefined ? undefined : withUser(presence)
        })
    })
  })
)
