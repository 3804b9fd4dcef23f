/**
 * The client of a push notification bouncer at a URL (the core's
 * `PushBouncer` port): POST `<url>/api/v1/remotes/push/e2ee/register` with
 * the JSON fields Zulip's server sends (`push_account_id`,
 * `bouncer_public_key`, `encrypted_push_registration`); a 2xx answer holds
 * the bouncer's `device_id`.
 *
 * Each attempt has a timeout. A connection failure, a timeout and a 5xx
 * answer are retried with exponential backoff; once the retries are spent
 * the registration fails with `FAILED_TO_CONNECT_BOUNCER` (no answer) or
 * `INTERNAL_SERVER_ERROR_ON_BOUNCER` (5xx). A 4xx answer is final and
 * carries the bouncer's error code (`INVALID_BOUNCER_PUBLIC_KEY`,
 * `REQUEST_EXPIRED`, `BAD_REQUEST`…). An answer that is not the bouncer's
 * JSON (not JSON, no `device_id`) is `INTERNAL_SERVER_ERROR_ON_BOUNCER`
 * without retrying.
 *
 * @since 0.1.0
 */
import { PushDevice, PushDevices } from "@teamchat/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"

/** @category models */
export interface PushBouncerOptions {
  /** The bouncer's base URL, e.g. https://push.example.com. */
  readonly url: string
  /** The longest wait for one attempt's answer. */
  readonly timeoutMillis: number
  /** Attempts after the first, for failures that may pass. */
  readonly retries: number
  /** The first backoff; each next one doubles. */
  readonly retryBaseMillis: number
}

/** @category constants */
export const defaults = { timeoutMillis: 15_000, retries: 3, retryBaseMillis: 1_000 } as const

/** The path of Zulip's E2EE registration endpoint on the bouncer. @category constants */
export const registerPath = "api/v1/remotes/push/e2ee/register"

/** A failure worth another attempt, with the code it ends in when none is left. */
class Retryable extends Data.TaggedError("Retryable")<{ readonly code: string; readonly reason: string }> {}

const failed = (error_code: string): PushDevices.BouncerAnswer => ({ _tag: "Failed", error_code })

/** The endpoint under the base URL, whether or not the base ends with a slash or has a path. */
export const endpointOf = (base: string): string => new URL(registerPath, base.endsWith("/") ? base : `${base}/`).toString()

/** Reads one answer's status and body. */
const interpret = (status: number, text: string): Effect.Effect<PushDevices.BouncerAnswer, Retryable> => {
  if (status >= 500) {
    return Effect.fail(new Retryable({ code: PushDevice.BouncerFailureCodes.serverError, reason: `status ${status}` }))
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return Effect.succeed(failed(PushDevice.BouncerFailureCodes.serverError))
  }
  const answer = body as Record<string, unknown>
  if (status >= 200 && status < 300) {
    const id = answer.device_id
    return Effect.succeed(
      typeof id === "number" && Number.isSafeInteger(id)
        ? { _tag: "Registered", device_id: id }
        : failed(PushDevice.BouncerFailureCodes.serverError)
    )
  }
  if (status >= 400) {
    const code = answer.code
    return Effect.succeed(failed(typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "BAD_REQUEST"))
  }
  return Effect.succeed(failed(PushDevice.BouncerFailureCodes.serverError))
}

/** @category constructors */
export const make = (options: PushBouncerOptions) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const endpoint = endpointOf(options.url)

    const attempt = (registration: PushDevices.BouncerRegistration) =>
      HttpClientRequest.post(endpoint).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyJsonUnsafe({
          push_account_id: registration.push_account_id,
          bouncer_public_key: registration.bouncer_public_key,
          encrypted_push_registration: registration.encrypted_push_registration
        }),
        client.execute,
        Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text }))),
        Effect.timeout(options.timeoutMillis),
        Effect.catch((error) =>
          Effect.fail(new Retryable({ code: PushDevice.BouncerFailureCodes.unreachable, reason: String(error) }))
        ),
        Effect.flatMap(({ status, text }) => interpret(status, text))
      )

    const register = (registration: PushDevices.BouncerRegistration) =>
      attempt(registration).pipe(
        Effect.retry({ schedule: Schedule.exponential(options.retryBaseMillis), times: options.retries }),
        Effect.catchTag("Retryable", (error) =>
          Effect.as(
            Effect.logWarning("push bouncer registration failed", error.reason),
            failed(error.code)
          )),
        Effect.tap((answer) =>
          answer._tag === "Failed"
            ? Effect.logInfo("push bouncer refused a registration", answer.error_code)
            : Effect.void
        ),
        Effect.withSpan("PushBouncerClient.register")
      )

    return { register } satisfies PushDevices.PushBouncerClient
  })

/**
 * The `PushBouncer` of the bouncer at `options.url`, over effect's fetch
 * client (or the `HttpClient` given).
 *
 * @category layers
 */
export const layer = (
  options: Pick<PushBouncerOptions, "url"> & Partial<PushBouncerOptions>,
  httpClient: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer
) => Layer.effect(PushDevices.PushBouncer, make({ ...defaults, ...options })).pipe(Layer.provide(httpClient))
