/**
 * End-to-end encrypted push devices: POST /mobile_push/register, register's
 * `push_devices` and the `push_device` event (to the device owner's
 * clients).
 *
 * People only (bots are refused). The keys are checked as RFC 4648 standard
 * base64; then, with no bouncer configured, the request fails with
 * `PUSH_SERVICE_NOT_CONFIGURED`. Registering an account that is pending or
 * active again changes nothing (Zulip's idempotency); a new account, or one
 * whose registration failed, is stored as pending, announced, and handed to
 * the bouncer once the transaction commits, in the background, like Zulip's
 * queue worker. The bouncer's answer settles the row (active, or failed
 * with its error code) in a transaction of its own and is announced with a
 * `push_device` event. Registrations still pending when the layer is built
 * (the server stopped before the bouncer answered) are sent again then.
 * With several server processes on one database, each sends them: the
 * bouncer may get one registration more than once, and the first answer
 * settles the row.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import type { Principal } from "../domain/Principal.ts"
import { isStandardBase64, status, toApi } from "../domain/PushDevice.ts"
import type { ApiPushDevice, PushDevice, TokenKind } from "../domain/PushDevice.ts"
import type { RealmId } from "../domain/Ids.ts"
import { BotsNotAllowed, InvalidParameter, PushServiceNotConfigured } from "../errors/Errors.ts"
import { PushBouncer } from "../ports/PushBouncer.ts"
import type { BouncerAnswer, PushBouncerClient } from "../ports/PushBouncer.ts"
import { PushDeviceRepo } from "../ports/PushDeviceRepo.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"

export { PushBouncer } from "../ports/PushBouncer.ts"
export type { BouncerAnswer, BouncerRegistration, PushBouncerClient } from "../ports/PushBouncer.ts"

/** The parameters of POST /mobile_push/register, decoded. @category models */
export interface DeviceRegistration {
  readonly token_kind: TokenKind
  readonly push_account_id: number
  readonly push_public_key: string
  readonly bouncer_public_key: string
  readonly encrypted_push_registration: string
}

/** Failures of a registration. @category errors */
export type RegistrationError = BotsNotAllowed | InvalidParameter | PushServiceNotConfigured

/** The `push_device` event of a row: `error_code` only on a failed one. */
const deviceEvent = (device: PushDevice): EventOf<"push_device"> => ({
  type: "push_device",
  push_account_id: String(device.push_account_id),
  status: status(device),
  ...(device.error_code === null ? {} : { error_code: device.error_code })
})

/** @category services */
export class PushDevices extends Context.Service<PushDevices, {
  /** POST /mobile_push/register. */
  register(principal: Principal, registration: DeviceRegistration): Effect.Effect<void, RegistrationError>
  /** Register's `push_devices`: the caller's devices by `push_account_id`. */
  registerState(principal: Principal): Effect.Effect<Record<string, ApiPushDevice>>
}>()("teamchat/core/services/PushDevices") {
  static readonly layer = Layer.effect(
    PushDevices,
    Effect.gen(function*() {
      const repo = yield* PushDeviceRepo
      const events = yield* Events
      const tx = yield* Transactor
      const bouncer = yield* PushBouncer
      // Forwards outlive the request that started them, not the server.
      const scope = yield* Effect.scope

      /** Writes the bouncer's answer on the pending row and announces it. */
      const settle = (realmId: RealmId, device: PushDevice, answer: BouncerAnswer) =>
        tx.withTransaction(Effect.gen(function*() {
          const settled = yield* repo.settle(
            device.user_id,
            device.push_account_id,
            answer._tag === "Registered"
              ? { _tag: "Registered", bouncer_device_id: answer.device_id }
              : { _tag: "Failed", error_code: answer.error_code }
          )
          if (settled === undefined) return
          yield* events.publish(realmId, deviceEvent(settled), Audience.users([settled.user_id]))
        }))

      const forward = (client: PushBouncerClient, realmId: RealmId, device: PushDevice) =>
        client.register({
          push_account_id: device.push_account_id,
          bouncer_public_key: device.bouncer_public_key,
          encrypted_push_registration: device.encrypted_push_registration
        }).pipe(
          Effect.flatMap((answer) => settle(realmId, device, answer)),
          Effect.catchCause((cause) => Effect.logError("push device registration not settled; it stays pending", cause)),
          Effect.withSpan("PushDevices.forward")
        )

      const register = Effect.fn("PushDevices.register")(function*(principal: Principal, registration: DeviceRegistration) {
        if (principal.user.is_bot) return yield* new BotsNotAllowed()
        if (!isStandardBase64(registration.push_public_key)) {
          return yield* new InvalidParameter({ var_name: "push_public_key" })
        }
        if (!isStandardBase64(registration.encrypted_push_registration)) {
          return yield* new InvalidParameter({ var_name: "encrypted_push_registration" })
        }
        if (bouncer === undefined) return yield* new PushServiceNotConfigured()
        const client = bouncer
        yield* tx.withTransaction(Effect.gen(function*() {
          const existing = yield* repo.find(principal.user.id, registration.push_account_id)
          // Pending or active: registered already.
          if (existing !== undefined && existing.error_code === null) return
          const device: PushDevice = {
            user_id: principal.user.id,
            push_account_id: registration.push_account_id,
            token_kind: registration.token_kind,
            push_public_key: registration.push_public_key,
            bouncer_public_key: registration.bouncer_public_key,
            encrypted_push_registration: registration.encrypted_push_registration,
            bouncer_device_id: null,
            error_code: null
          }
          yield* repo.upsert(device)
          yield* events.publish(principal.realm.id, deviceEvent(device), Audience.users([device.user_id]))
          yield* tx.afterCommit(Effect.asVoid(Effect.forkIn(forward(client, principal.realm.id, device), scope)))
        }))
      })

      const registerState = Effect.fn("PushDevices.registerState")(function*(principal: Principal) {
        const out: Record<string, ApiPushDevice> = {}
        for (const device of yield* repo.listByUser(principal.user.id)) out[String(device.push_account_id)] = toApi(device)
        return out
      })

      // What a previous run left pending goes out again.
      if (bouncer !== undefined) {
        for (const { device, realm_id } of yield* repo.listPending()) {
          yield* Effect.forkIn(forward(bouncer, realm_id, device), scope)
        }
      }

      return PushDevices.of({ register, registerState })
    })
  )
}
