/**
 * The push notification bouncer (port): the service that holds the devices'
 * FCM and APNs tokens and forwards encrypted notifications to them. The
 * server hands it a device's encrypted registration and gets the device's
 * id there, or Zulip's reason why not.
 *
 * Unset (the default) means no push service is configured: registrations
 * are refused with `PUSH_SERVICE_NOT_CONFIGURED`. The HTTP package provides
 * the client of a bouncer at a URL.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** What is sent to the bouncer for one device (Zulip's `push/e2ee/register` fields). @category models */
export interface BouncerRegistration {
  readonly push_account_id: number
  readonly bouncer_public_key: string
  readonly encrypted_push_registration: string
}

/**
 * The bouncer's answer: the device's id there, or the error code the
 * registration failed with (the bouncer's, or `FAILED_TO_CONNECT_BOUNCER` /
 * `INTERNAL_SERVER_ERROR_ON_BOUNCER` when it could not be used).
 *
 * @category models
 */
export type BouncerAnswer =
  | { readonly _tag: "Registered"; readonly device_id: number }
  | { readonly _tag: "Failed"; readonly error_code: string }

/** @category models */
export interface PushBouncerClient {
  /** Never fails: every failure is an answer with its error code. */
  register(registration: BouncerRegistration): Effect.Effect<BouncerAnswer>
}

/**
 * The configured bouncer, or undefined for none.
 *
 * @category services
 */
export const PushBouncer = Context.Reference<PushBouncerClient | undefined>("teamchat/core/ports/PushBouncer", {
  defaultValue: () => undefined
})
