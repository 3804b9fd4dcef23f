/**
 * The status rows in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { resolveSettings } from "../domain/UserSettings.ts"
import { UserStatusRepo } from "../ports/UserStatusRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<UserStatusRepo, never, MemoryDatabase> = Layer.effect(
  UserStatusRepo,
  MemoryDatabase.useSync((db) =>
    UserStatusRepo.of({
      find: (userId) => Effect.sync(() => db.tables.userStatuses.get(userId)),
      upsert: (status) => Effect.sync(() => void db.tables.userStatuses.set(status.user_id, status)),
      listByRealm: (realmId) =>
        Effect.sync(() =>
          [...db.tables.userStatuses.values()]
            .filter((status) => {
              const user = db.tables.users.get(status.user_id)
              return user !== undefined && user.realm_id === realmId && user.is_active
            })
            .sort((a, b) => a.user_id - b.user_id)
            .map((status) => ({
              status,
              presence_enabled: resolveSettings(db.tables.userSettings.get(status.user_id) ?? {}).presence_enabled === true
            }))
        )
    })
  )
)
