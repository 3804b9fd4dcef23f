/**
 * An end-to-end encrypted push device (Zulip's `PushDevice`, feature level
 * 406): one row per user and `push_account_id`, the client's random number
 * for one account on one device.
 *
 * Its status follows from two columns, as in Zulip: a row with an
 * `error_code` is `failed`; one the bouncer gave a `device_id` is `active`;
 * any other is `pending` (registered here, not yet at the bouncer).
 *
 * @since 0.1.0
 */
import type { UserId } from "./Ids.ts"

/** Whether the token came from Firebase Cloud Messaging or Apple's service. @category constants */
export const TokenKinds = ["fcm", "apns"] as const

/** @category models */
export type TokenKind = typeof TokenKinds[number]

/** @category models */
export type PushDeviceStatus = "active" | "pending" | "failed"

/** @category models */
export interface PushDevice {
  readonly user_id: UserId
  /** Any integer the client chose; unique per user. */
  readonly push_account_id: number
  readonly token_kind: TokenKind
  /** The client's public key, standard base64. */
  readonly push_public_key: string
  /** Which bouncer key the registration was encrypted with, as sent. */
  readonly bouncer_public_key: string
  /** The registration ciphertext, standard base64, kept until the bouncer answers (then empty). */
  readonly encrypted_push_registration: string
  /** The bouncer's id for the device, once registered there. */
  readonly bouncer_device_id: number | null
  /** Zulip's error code of the failed registration. */
  readonly error_code: string | null
}

/** @category functions */
export const status = (device: Pick<PushDevice, "bouncer_device_id" | "error_code">): PushDeviceStatus =>
  device.error_code !== null ? "failed" : device.bouncer_device_id !== null ? "active" : "pending"

/** An entry of register's `push_devices`. @category models */
export interface ApiPushDevice {
  readonly status: PushDeviceStatus
  readonly error_code: string | null
}

/** @category functions */
export const toApi = (device: PushDevice): ApiPushDevice => ({ status: status(device), error_code: device.error_code })

/**
 * RFC 4648 standard base64 (section 4): the `+` and `/` alphabet, whole
 * four-character groups, `=` padding only at the end, and nothing else (no
 * line breaks, no URL-safe characters). The empty string encodes nothing,
 * which no key or ciphertext is, so it is refused too.
 *
 * @category functions
 */
export const isStandardBase64 = (text: string): boolean =>
  text.length > 0 && text.length % 4 === 0 && /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)

/**
 * The codes a registration fails with. The bouncer's own (`INVALID_BOUNCER_PUBLIC_KEY`,
 * `REQUEST_EXPIRED`, `BAD_REQUEST` for a ciphertext it cannot read) are kept
 * as it sends them; these two are this server's when the bouncer could not
 * be used (Zulip's `FailedToConnectBouncerError` and `InternalBouncerServerError`).
 *
 * @category constants
 */
export const BouncerFailureCodes = {
  /** No connection, or no answer in time, after the retries. */
  unreachable: "FAILED_TO_CONNECT_BOUNCER",
  /** A 5xx answer after the retries, or an answer that is not the bouncer's JSON. */
  serverError: "INTERNAL_SERVER_ERROR_ON_BOUNCER"
} as const
