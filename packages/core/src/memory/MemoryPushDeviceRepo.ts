/**
 * The push device rows in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { PushDevice } from "../domain/PushDevice.ts"
import { PushDeviceRepo } from "../ports/PushDeviceRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

const key = (userId: number, pushAccountId: number) => `${userId}:${pushAccountId}`

/** @category layers */
export const layer: Layer.Layer<PushDeviceRepo, never, MemoryDatabase> = Layer.effect(
  PushDeviceRepo,
  MemoryDatabase.useSync((db) =>
    PushDeviceRepo.of({
      find: (userId, pushAccountId) => Effect.sync(() => db.tables.pushDevices.get(key(userId, pushAccountId))),
      upsert: (device) => Effect.sync(() => void db.tables.pushDevices.set(key(device.user_id, device.push_account_id), device)),
      settle: (userId, pushAccountId, outcome) =>
        Effect.sync(() => {
          const current = db.tables.pushDevices.get(key(userId, pushAccountId))
          if (current === undefined || current.error_code !== null || current.bouncer_device_id !== null) return undefined
          const settled: PushDevice = {
            ...current,
            encrypted_push_registration: "",
            ...(outcome._tag === "Registered"
              ? { bouncer_device_id: outcome.bouncer_device_id }
              : { error_code: outcome.error_code })
          }
          db.tables.pushDevices.set(key(userId, pushAccountId), settled)
          return settled
        }),
      listPending: () =>
        Effect.sync(() =>
          [...db.tables.pushDevices.values()]
            .filter((d) => d.error_code === null && d.bouncer_device_id === null && d.encrypted_push_registration !== "")
            .sort((a, b) => a.user_id - b.user_id || a.push_account_id - b.push_account_id)
            .flatMap((device) => {
              const user = db.tables.users.get(device.user_id)
              return user === undefined ? [] : [{ realm_id: user.realm_id, device }]
            })
        ),
      listByUser: (userId) =>
        Effect.sync(() =>
          [...db.tables.pushDevices.values()]
            .filter((device) => device.user_id === userId)
            .sort((a, b) => a.push_account_id - b.push_account_id)
        )
    })
  )
)
