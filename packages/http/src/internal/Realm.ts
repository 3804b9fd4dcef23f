/**
 * The organization an unauthenticated request addresses: the one whose URL
 * host is the request's `Host`; otherwise the only organization with users
 * (internal organizations aside); otherwise Zulip's "Invalid subdomain".
 *
 * @internal
 */
import type { Realm } from "@teamchat/core/domain/Realm"
import { NonexistentSubdomain } from "@teamchat/core/errors/Errors"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"

/** Zulip's organization for its own system bots; never chosen by default. */
const internalStringId = "zulipinternal"

const normalizeHost = (host: string): string | undefined => {
  try {
    return new URL(`http://${host.trim()}`).host.toLowerCase()
  } catch {
    return undefined
  }
}

const hostOfUrl = (url: string): string | undefined => {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return undefined
  }
}

/** The request's host: the `Host` header, else the host of an absolute request URL. */
export const requestHost = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers.host
  if (header !== undefined && header !== "") return normalizeHost(header)
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(request.originalUrl) ? hostOfUrl(request.originalUrl) : undefined
}

const anyUser = { clientGravatar: true, includeCustomProfileFields: false } as const

/** @internal */
export const resolve = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
  const organizations = yield* Organizations
  const users = yield* Users
  const realms = yield* organizations.list
  const host = requestHost(request)
  if (host !== undefined) {
    const match = realms.find((realm) => hostOfUrl(realm.url) === host)
    if (match !== undefined) return match
  }
  const populated: Array<Realm> = []
  for (const realm of realms) {
    if (realm.string_id === internalStringId) continue
    const members = yield* Effect.orDie(users.list(realm, undefined, anyUser))
    if (members.length > 0) populated.push(realm)
  }
  if (populated.length === 1) return populated[0]!
  return yield* new NonexistentSubdomain()
})
