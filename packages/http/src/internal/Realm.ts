/**
 * The organization an unauthenticated request addresses: the one whose URL
 * host is the request's `Host`; otherwise the only organization with users
 * (internal organizations aside); otherwise Zulip's "Invalid subdomain".
 *
 * @internal
 */
import { Errors, LruMap, Organizations, Users } from "@teamchat/core"
import type { Realm } from "@teamchat/core"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"

/** Zulip's organization for its own system bots; never chosen by default. */
export const internalStringId = "zulipinternal"

/**
 * Memoizes a string function in a bounded map: hosts come from clients, so
 * past `max` entries the least recently used is dropped (docs/memory.md).
 */
const memo = <A>(f: (input: string) => A, max = 1024): (input: string) => A => {
  const cache = LruMap.make<string, { readonly value: A }>(max)
  return (input) => cache.getOrCompute(input, () => ({ value: f(input) })).value
}

const normalizeHost = memo((host: string): string | undefined => {
  try {
    return new URL(`http://${host.trim()}`).host.toLowerCase()
  } catch {
    return undefined
  }
})

/** The host (with port) of a URL, lower case; `undefined` when it does not parse. */
export const hostOfUrl = memo((url: string): string | undefined => {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return undefined
  }
})

const absoluteUrl = /^[a-z][a-z0-9+.-]*:\/\//i

/** The request's host: the `Host` header, else the host of an absolute request URL. */
export const requestHost = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  hostOf(request.headers.host, request.originalUrl)

/** `requestHost` from the `Host` header and the request URL as sent (node:http's `headers.host` and `url`). */
export const hostOf = (header: string | undefined, url: string): string | undefined => {
  if (header !== undefined && header !== "") return normalizeHost(header)
  return absoluteUrl.test(url) ? hostOfUrl(url) : undefined
}

const anyUser = { clientGravatar: true, includeCustomProfileFields: false } as const

/** The organization of a request, found with the services at hand. */
export type Resolve = (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Realm.Realm, Errors.NonexistentSubdomain>

const resolveWith = (
  realms: ReadonlyArray<Realm.Realm>,
  request: HttpServerRequest.HttpServerRequest,
  hasUsers: (realm: Realm.Realm) => Effect.Effect<boolean>
): Effect.Effect<Realm.Realm, Errors.NonexistentSubdomain> => {
  const host = requestHost(request)
  if (host !== undefined) {
    const match = realms.find((realm) => hostOfUrl(realm.url) === host)
    if (match !== undefined) return Effect.succeed(match)
  }
  const candidates = realms.filter((realm) => realm.string_id !== internalStringId)
  const populated: Array<Realm.Realm> = []
  const check = (i: number): Effect.Effect<Realm.Realm, Errors.NonexistentSubdomain> => {
    for (; i < candidates.length; i++) {
      const realm = candidates[i]!
      const answer = hasUsers(realm)
      if (Exit.isExit(answer)) {
        if (Exit.isSuccess(answer) && answer.value) populated.push(realm)
        else if (Exit.isFailure(answer)) return Effect.failCause(answer.cause as Cause.Cause<never>)
        continue
      }
      const next = i + 1
      return Effect.flatMap(answer, (has) => {
        if (has) populated.push(realm)
        return check(next)
      })
    }
    return populated.length === 1 ? Effect.succeed(populated[0]!) : Effect.fail(new Errors.NonexistentSubdomain())
  }
  return check(0)
}

/**
 * A resolver over the given services. Users are never deleted, so once an
 * organization is seen with users it keeps them: that answer is remembered
 * (per organization record: id, string id and creation time), and only
 * organizations not yet seen with users are looked at again.
 *
 * @internal
 */
export const make: Effect.Effect<Resolve, never, Organizations.Organizations | Users.Users> = Effect.gen(function*() {
  const organizations = yield* Organizations.Organizations
  const users = yield* Users.Users
  const populated = new Set<string>()
  const keyOf = (realm: Realm.Realm) => `${realm.id}:${realm.date_created}:${realm.string_id}`
  const known = Effect.succeed(true)
  const hasUsers = (realm: Realm.Realm): Effect.Effect<boolean> => {
    const key = keyOf(realm)
    if (populated.has(key)) return known
    return Effect.map(Effect.orDie(users.list(realm, undefined, anyUser)), (members) => {
      if (members.length === 0) return false
      if (populated.size >= 10_000) populated.clear()
      populated.add(key)
      return true
    })
  }
  return (request) => Effect.flatMap(organizations.list, (realms) => resolveWith(realms, request, hasUsers))
})
