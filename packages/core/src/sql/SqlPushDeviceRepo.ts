/**
 * The push device rows on SQL (`push_devices`, migration 0013).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { PushDevice, TokenKind } from "../domain/PushDevice.ts"
import { PushDeviceRepo } from "../ports/PushDeviceRepo.ts"
import type { PushDeviceOutcome } from "../ports/PushDeviceRepo.ts"

type Row = Readonly<Record<string, unknown>>

const decode = (row: Row): PushDevice => ({
  user_id: fromRow.userId(Number(row.user_id)),
  push_account_id: Number(row.push_account_id),
  token_kind: String(row.token_kind) as TokenKind,
  push_public_key: String(row.push_public_key),
  bouncer_public_key: String(row.bouncer_public_key),
  encrypted_push_registration: String(row.encrypted_push_registration),
  bouncer_device_id: row.bouncer_device_id === null ? null : Number(row.bouncer_device_id),
  error_code: row.error_code === null ? null : String(row.error_code)
})

/** @category layers */
export const layer: Layer.Layer<PushDeviceRepo, never, SqlClient.SqlClient> = Layer.effect(
  PushDeviceRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return PushDeviceRepo.of({
      find: Effect.fn("PushDeviceRepo.find")(function*(userId: UserId, pushAccountId: number) {
        const rows = yield* sql<Row>`
          SELECT * FROM push_devices WHERE user_id = ${userId} AND push_account_id = ${pushAccountId} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      upsert: Effect.fn("PushDeviceRepo.upsert")(function*(device: PushDevice) {
        yield* sql`
          INSERT INTO push_devices (user_id, push_account_id, token_kind, push_public_key, bouncer_public_key,
            encrypted_push_registration, bouncer_device_id, error_code)
          VALUES (${device.user_id}, ${device.push_account_id}, ${device.token_kind}, ${device.push_public_key},
            ${device.bouncer_public_key}, ${device.encrypted_push_registration}, ${device.bouncer_device_id},
            ${device.error_code})
          ON CONFLICT (user_id, push_account_id) DO UPDATE SET
            token_kind = EXCLUDED.token_kind,
            push_public_key = EXCLUDED.push_public_key,
            bouncer_public_key = EXCLUDED.bouncer_public_key,
            encrypted_push_registration = EXCLUDED.encrypted_push_registration,
            bouncer_device_id = EXCLUDED.bouncer_device_id,
            error_code = EXCLUDED.error_code`
      }, Effect.orDie),
      settle: Effect.fn("PushDeviceRepo.settle")(function*(userId: UserId, pushAccountId: number, outcome: PushDeviceOutcome) {
        const deviceId = outcome._tag === "Registered" ? outcome.bouncer_device_id : null
        const errorCode = outcome._tag === "Failed" ? outcome.error_code : null
        const rows = yield* sql<Row>`
          UPDATE push_devices
          SET bouncer_device_id = ${deviceId}, error_code = ${errorCode}, encrypted_push_registration = ''
          WHERE user_id = ${userId} AND push_account_id = ${pushAccountId}
            AND bouncer_device_id IS NULL AND error_code IS NULL
          RETURNING *`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      listPending: Effect.fn("PushDeviceRepo.listPending")(function*() {
        const rows = yield* sql<Row>`
          SELECT d.*, u.realm_id FROM push_devices d JOIN users u ON u.id = d.user_id
          WHERE d.bouncer_device_id IS NULL AND d.error_code IS NULL AND d.encrypted_push_registration <> ''
          ORDER BY d.user_id, d.push_account_id`
        return rows.map((row) => ({ realm_id: fromRow.realmId(Number(row.realm_id)), device: decode(row) }))
      }, Effect.orDie),
      listByUser: Effect.fn("PushDeviceRepo.listByUser")(function*(userId: UserId) {
        const rows = yield* sql<Row>`SELECT * FROM push_devices WHERE user_id = ${userId} ORDER BY push_account_id`
        return rows.map(decode)
      }, Effect.orDie)
    })
  })
)
