/**
 * Who is calling: HTTP Basic credentials (`email:api_key`), the password
 * login of POST /fetch_api_key, and the demo-only dev login.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { RealmId } from "../domain/Ids.ts"
import { isAdministrator } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import {
  AuthenticationFailed,
  DevAuthNotEnabled,
  InvalidApiKey,
  InvalidEmailAddress,
  MalformedApiKey,
  PasswordAuthDisabled,
  RealmDeactivated,
  UserDeactivated
} from "../errors/Errors.ts"
import { hasDevLogin } from "../permissions/DevLogin.ts"
import { makeCachedKeyLookup } from "./internal/access.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { RealmRepo, UserRepo } from "../ports/Repositories.ts"
import { isWellFormedApiKey } from "./KeyGenerator.ts"
import { Users } from "./Users.ts"
import type { Principal } from "../domain/Principal.ts"

/** The response of POST /fetch_api_key and /dev_fetch_api_key. @category models */
export interface ApiKeyGrant {
  readonly api_key: string
  readonly email: string
  readonly user_id: number
}

/** GET /dev_list_users entry. @category models */
export interface DevListedUser {
  readonly email: string
  readonly realm_url: string
}

/**
 * `a === b` in time that depends only on the length, for the well-formed
 * (ASCII) keys it compares; no buffers, as it runs on every request.
 */
const constantTimeEquals = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** @category services */
export class Authentication extends Context.Service<Authentication, {
  /** Zulip's order: key format, key lookup, email match, organization, then account. */
  basic(
    email: string,
    apiKey: string,
    /**
     * The request checks the organization's access version itself
     * (`Messages.fetchDeferred`): the principal may come from the kept read
     * unchecked (`Principal.access.unverified`, see `AccessCache.deferrable`).
     */
    options?: { readonly deferAccessCheck?: boolean }
  ): Effect.Effect<Principal, MalformedApiKey | InvalidApiKey | RealmDeactivated | UserDeactivated>
  fetchApiKey(
    realmId: RealmId,
    username: string,
    password: string
  ): Effect.Effect<ApiKeyGrant, AuthenticationFailed | UserDeactivated | RealmDeactivated | PasswordAuthDisabled | InvalidEmailAddress>
  /** The demo organization's only (`DevLogin.hasDevLogin`); elsewhere `DevAuthNotEnabled`. */
  devFetchApiKey(
    realmId: RealmId,
    username: string
  ): Effect.Effect<
    ApiKeyGrant,
    DevAuthNotEnabled | AuthenticationFailed | UserDeactivated | RealmDeactivated | InvalidEmailAddress
  >
  /**
   * Whether a refusal of a request by `principal` may come from a kept read
   * another process's change has made stale (its notice still on its way):
   * the organization's access version in the database is no longer the
   * read's. Then the request is to be authenticated again and answered
   * afresh; a refused request wrote nothing. False for a principal without
   * a kept read, and on one process (memory).
   */
  refusalIsStale(principal: Principal): Effect.Effect<boolean>
  /** The demo organization's only, as `devFetchApiKey`. */
  devListUsers(realmId: RealmId): Effect.Effect<{
    readonly direct_admins: ReadonlyArray<DevListedUser>
    readonly direct_users: ReadonlyArray<DevListedUser>
  }, DevAuthNotEnabled>
}>()("teamchat/core/services/Authentication") {
  static readonly layer = Layer.effect(
    Authentication,
    Effect.gen(function*() {
      const userRepo = yield* UserRepo
      const realms = yield* RealmRepo
      const users = yield* Users
      const cache = yield* Effect.serviceOption(AccessCache)
      const cachedKeys = Option.isSome(cache) ? makeCachedKeyLookup(cache.value) : undefined
      const findByApiKey: (key: string, deferCheck?: boolean) => Effect.Effect<Principal | undefined> = cachedKeys === undefined
        ? userRepo.findByApiKeyWithRealm
        : (key: string, deferCheck = false) =>
          Effect.flatMap(cachedKeys.find(key, deferCheck), (cached) =>
            cached !== undefined ? Effect.succeed(cached) : Effect.map(userRepo.findByApiKeyWithRealm(key), (found) => {
              if (found !== undefined) cachedKeys.remember(found.user.api_key, found.realm.id)
              return found
            }))

      // The hottest path of the API (every authenticated request): plain
      // combinators, no span or generator.
      const basic = (
        email: string,
        apiKey: string,
        options?: { readonly deferAccessCheck?: boolean }
      ): Effect.Effect<Principal, MalformedApiKey | InvalidApiKey | RealmDeactivated | UserDeactivated> => {
        const key = apiKey.trim()
        if (!isWellFormedApiKey(key)) return Effect.fail(new MalformedApiKey())
        if (options?.deferAccessCheck === true) {
          return Effect.flatMap(findByApiKey(key, true), (found) =>
            found?.access?.unverified === true
              // Refused by a read nobody checked: asked again with the check,
              // as the read may be what refuses.
              ? Effect.catch(check(found, email, key), () => Effect.flatMap(findByApiKey(key), (again) => check(again, email, key)))
              : check(found, email, key))
        }
        return Effect.flatMap(findByApiKey(key), (found) => check(found, email, key))
      }

      const check = (
        found: Principal | undefined,
        email: string,
        key: string
      ): Effect.Effect<Principal, InvalidApiKey | RealmDeactivated | UserDeactivated> => {
        // Compare again in constant time: the index lookup alone would leak
        // nothing useful, but a key must never match on a prefix or by case.
        if (found === undefined || !constantTimeEquals(found.user.api_key, key)) return Effect.fail(new InvalidApiKey())
        const { realm, user } = found
        if (user.delivery_email.toLowerCase() !== email.trim().toLowerCase()) return Effect.fail(new InvalidApiKey())
        if (realm.deactivated) return Effect.fail(new RealmDeactivated())
        if (!user.is_active) return Effect.fail(new UserDeactivated())
        // With the access state the cache found current, when it did (see `accessOfRequest`).
        return Effect.succeed(found)
      }

      const login = Effect.fnUntraced(function*(realmId: RealmId, username: string) {
        const email = username.trim()
        if (!emailPattern.test(email)) return yield* new InvalidEmailAddress()
        const realm = yield* realms.findById(realmId)
        if (realm === undefined) return yield* new AuthenticationFailed()
        const user = yield* userRepo.findByDeliveryEmail(realmId, email)
        return { realm, user }
      })

      const grant = (user: User): ApiKeyGrant => ({ api_key: user.api_key, email: user.delivery_email, user_id: user.id })

      const fetchApiKey = Effect.fn("Authentication.fetchApiKey")(function*(realmId: RealmId, username: string, password: string) {
        const { realm, user } = yield* login(realmId, username)
        if (!realm.settings.email_auth_enabled) return yield* new PasswordAuthDisabled()
        // One password verification for every address (unknown, a bot, an
        // account without a password, deactivated), so how long the answer
        // takes does not tell them apart. As in Zulip, a deactivated account,
        // then a deactivated organization, is said so whatever the password
        // (the account is looked up before the password is checked); an empty
        // password is refused before any lookup.
        const candidate = user === undefined || user.is_bot ? undefined : user
        const verified = yield* users.checkPassword(candidate, password)
        if (password === "" || user === undefined) return yield* new AuthenticationFailed()
        if (!user.is_active) return yield* new UserDeactivated()
        if (realm.deactivated) return yield* new RealmDeactivated()
        if (!verified || candidate === undefined) return yield* new AuthenticationFailed()
        return grant(candidate)
      })

      /** The organization, when it has the dev login; checked first, as where the login does not exist. */
      const devRealm = Effect.fnUntraced(function*(realmId: RealmId) {
        const realm = yield* realms.findById(realmId)
        if (realm === undefined || !hasDevLogin(realm)) return yield* new DevAuthNotEnabled()
        return realm
      })

      const devFetchApiKey = Effect.fn("Authentication.devFetchApiKey")(function*(realmId: RealmId, username: string) {
        yield* devRealm(realmId)
        const { realm, user } = yield* login(realmId, username)
        if (realm.deactivated) return yield* new RealmDeactivated()
        if (user === undefined) return yield* new AuthenticationFailed()
        if (!user.is_active) return yield* new UserDeactivated()
        return grant(user)
      })

      const devListUsers = Effect.fn("Authentication.devListUsers")(function*(realmId: RealmId) {
        const realm = yield* devRealm(realmId)
        const people = (yield* userRepo.listByRealm(realmId))
          .filter((u) => u.is_active && !u.is_bot)
          .sort((a, b) => (a.delivery_email < b.delivery_email ? -1 : a.delivery_email > b.delivery_email ? 1 : 0))
        const entry = (u: User): DevListedUser => ({ email: u.delivery_email, realm_url: realm.url })
        return {
          direct_admins: people.filter((u) => isAdministrator(u.role)).map(entry),
          direct_users: people.filter((u) => !isAdministrator(u.role)).map(entry)
        }
      })

      const refusalIsStale = (principal: Principal): Effect.Effect<boolean> => {
        const access = principal.access
        if (Option.isNone(cache) || access === undefined) return Effect.succeed(false)
        return Effect.map(cache.value.verify(principal.realm.id), (current) => current !== access.version)
      }
      return Authentication.of({ basic, fetchApiKey, devFetchApiKey, devListUsers, refusalIsStale })
    })
  )
}
