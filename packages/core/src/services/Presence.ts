/**
 * Presence: POST /users/me/presence (a client's ping, and the others'
 * presence since what it holds), GET /users/{user_id_or_email}/presence, GET
 * /realm/presence, register's `presences`, and `presence` events.
 *
 * A ping moves the user's times by the rules of `domain/Presence.ts` and
 * writes only when one moved (each write takes the organization's next
 * presence update id). Users who turned `presence_enabled` off are not
 * updated: they keep the times that show them offline, written when they
 * turned it off. A `presence` event goes out when a user first reports or
 * comes back online, to every user of an organization of at most
 * `PresenceTimings.userLimitForEvents` active users (Zulip's guard against
 * quadratic work in big organizations); a change of `presence_enabled` is
 * always announced. Presence is shared with everyone in the organization,
 * as Zulip does by default (its `CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE`
 * is off).
 *
 * A ping writes only the presence tables, which do not move the
 * organization's access version: the cached access state stays valid.
 * Most pings (the user's row exists, nothing to announce) are decided on
 * the row the repository last read and written with one conditional
 * statement, without a lock held while deciding; the rest, and any whose row moved
 * meanwhile, take a transaction with the row locked. The answer is read
 * after the write has committed.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Audience } from "../domain/Event.ts"
import {
  applyPing,
  hiddenTimes,
  historyCutoff,
  legacyClientPresence,
  legacyPresence,
  modernPresence,
  PresenceTimings
} from "../domain/Presence.ts"
import type {
  LegacyPresence,
  ModernPresence,
  Presence as PresenceRecord,
  PresenceStatus,
  PresenceTimes
} from "../domain/Presence.ts"
import type { Principal } from "../domain/Principal.ts"
import type { User } from "../domain/User.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import { BadRequest, BotsNotAllowed, InvalidPresenceStatus, NoSuchUser } from "../errors/Errors.ts"
import { PresenceRepo } from "../ports/PresenceRepo.ts"
import { UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { accessOfRequest, activeUsers, makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"

/** POST /users/me/presence, decoded. @category models */
export interface PresencePing {
  readonly status: string
  readonly last_update_id?: number | undefined
  readonly history_limit_days?: number | undefined
  readonly ping_only: boolean
  readonly new_user_input: boolean
  readonly slim_presence: boolean
}

/** What register and the presence endpoints answer with. @category models */
export interface PresenceSnapshot {
  readonly presences: Record<string, ModernPresence | LegacyPresence>
  readonly presence_last_update_id: number
  /** Seconds, with the milliseconds as a fraction. */
  readonly server_timestamp: number
}

/** POST /users/me/presence's answer: the snapshot, or with `ping_only` the id alone. @category models */
export type PingReply = PresenceSnapshot | { readonly presence_last_update_id: number }

/** GET /users/{user_id_or_email}/presence in the legacy form: no `client`, no `pushable`. @category models */
export interface UserPresenceLegacy {
  readonly aggregated: { readonly status: PresenceStatus | "offline"; readonly timestamp: number }
  readonly website: { readonly status: PresenceStatus; readonly timestamp: number }
}

/** Which rows a fetch reads: the client's last update id and history window. @category models */
export interface PresenceFetch {
  readonly slim: boolean
  readonly lastUpdateId?: number | undefined
  readonly historyLimitDays?: number | undefined
}

/** A legacy entry and the objects inside it, frozen. */
const deepFreeze = (entry: LegacyPresence): LegacyPresence => {
  Object.freeze(entry.aggregated)
  Object.freeze(entry.website)
  return Object.freeze(entry)
}

const isStatus = (status: string): status is PresenceStatus => status === "active" || status === "idle"

/** @category services */
export class Presence extends Context.Service<Presence, {
  /** POST /users/me/presence: the response body's data. */
  ping(principal: Principal, ping: PresencePing): Effect.Effect<PingReply, InvalidPresenceStatus | BotsNotAllowed>
  /** The organization's presence as register and GET /realm/presence read it. */
  snapshot(principal: Principal, fetch: PresenceFetch): Effect.Effect<PresenceSnapshot>
  /** GET /users/{user_id_or_email}/presence. */
  ofUser(
    principal: Principal,
    key: number | string,
    slim: boolean
  ): Effect.Effect<ModernPresence | UserPresenceLegacy, NoSuchUser | BadRequest>
  /**
   * The user turned `presence_enabled` on or off (inside the caller's
   * transaction): on, they are active now; off, they are left looking
   * offline. Announced whatever the organization's size.
   */
  presenceEnabledChanged(user: User, enabled: boolean): Effect.Effect<void>
}>()("teamchat/core/services/Presence") {
  static readonly layer = Layer.effect(
    Presence,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const repo = yield* PresenceRepo
      const settings = yield* UserSettingsRepo
      const events = yield* Events
      const tx = yield* Transactor

      /** The `presence` event, in the form each queue's client asked for. */
      const announce = (user: User, times: PresenceTimes, now: number) =>
        events.publishAll(user.realm_id, [
          {
            event: {
              type: "presence",
              email: user.email,
              user_id: user.id,
              server_timestamp: now / 1000,
              presence: { website: legacyClientPresence(times, user.date_joined) }
            },
            audience: Audience.realm,
            requires: { simplified_presence_events: false }
          },
          {
            event: { type: "presence", presences: { [String(user.id)]: modernPresence(times, user.date_joined) } },
            audience: Audience.realm,
            requires: { simplified_presence_events: true }
          }
        ])

      /** Zulip's `do_update_user_presence`: the times after the ping, written when one moved. */
      const record = Effect.fnUntraced(function*(user: User, status: PresenceStatus, now: number) {
        const outcome = applyPing(yield* repo.find(user.id), now, status)
        if (outcome.write) yield* repo.write(user.realm_id, user.id, outcome.times)
        return outcome
      })

      /**
       * Each row's entries as last built. A row is never changed (a write
       * replaces it) and a user's join date never moves, so an entry is built
       * once per write and reused by every later answer while the row lives;
       * entries are frozen, which lets the HTTP encoder keep their JSON text
       * too (Envelope.respond).
       */
      const modernViews = new WeakMap<PresenceRecord, ModernPresence>()
      const legacyViews = new WeakMap<PresenceRecord, LegacyPresence>()
      const viewOf = <V>(views: WeakMap<PresenceRecord, V>, row: PresenceRecord, build: () => V): V => {
        let view = views.get(row)
        if (view === undefined) views.set(row, view = build())
        return view
      }

      /**
       * The rows of active people, in the form asked for: their addresses and
       * join dates come from the organization's access state (which presence
       * writes leave in place).
       */
      const rowsView = (ctx: AccessContext, rows: ReadonlyArray<PresenceRecord>, slim: boolean) => {
        const presences: Record<string, ModernPresence | LegacyPresence> = {}
        let newest = -1
        for (const presence of rows) {
          const user = ctx.state.usersById.get(presence.user_id)
          if (user === undefined || !user.is_active || user.is_bot) continue
          // A user id is an array index: an element of the record, kept in id order.
          if (slim) {
            presences[presence.user_id] = viewOf(modernViews, presence, () =>
              Object.freeze(modernPresence(presence, user.date_joined)))
          } else {
            presences[user.email] = viewOf(legacyViews, presence, () =>
              deepFreeze(legacyPresence(presence, user.date_joined)))
          }
          if (presence.last_update_id > newest) newest = presence.last_update_id
        }
        return { presences, newest }
      }

      /** Zulip's `get_presence_dict_by_realm`. */
      const snapshot = Effect.fn("Presence.snapshot")(function*(
        principal: Principal,
        fetch: PresenceFetch,
        /** The update id of the caller's own committed write, if any (see `PresenceRepo.list`). */
        committedThrough?: number
      ) {
        const now = yield* Clock.currentTimeMillis
        const after = fetch.lastUpdateId
        // A client holding data (an id above 0) needs no time window: the id bounds the rows.
        const connectedSince = after === undefined || after <= 0 ? historyCutoff(now, fetch.historyLimitDays) : undefined
        const rows = fetch.historyLimitDays === 0
          ? []
          : yield* repo.list(principal.realm.id, { afterUpdateId: after, connectedSince }, committedThrough)
        const { newest, presences } = rowsView(yield* accessOfRequest(loadAccess, principal), rows, fetch.slim)
        return {
          presences,
          presence_last_update_id: newest >= 0 ? newest : (after ?? -1),
          server_timestamp: now / 1000
        } satisfies PresenceSnapshot
      })

      const ping = Effect.fn("Presence.ping")(function*(principal: Principal, request: PresencePing) {
        if (principal.user.is_bot) return yield* new BotsNotAllowed()
        const status = request.status
        if (!isStatus(status)) return yield* new InvalidPresenceStatus({ status })
        // Passing last_update_id is the modern protocol: modern entries.
        const slim = request.slim_presence || request.last_update_id !== undefined
        const now = yield* Clock.currentTimeMillis
        // Zulip's guard against quadratic work: big organizations get no presence events.
        const announced = Effect.map(
          accessOfRequest(loadAccess, principal),
          (ctx) => activeUsers(ctx).length <= PresenceTimings.userLimitForEvents
        )
        const user = principal.user
        // The common ping (a minute after the last, nothing to announce) is
        // decided on the row this process last read and written by one
        // conditional statement; anything else, or a row that moved
        // meanwhile, takes the locked transaction below.
        const known = yield* repo.latest(user.realm_id, user.id)
        const guess = known === undefined ? undefined : applyPing(known, now, status)
        let written: number | undefined
        const settled = guess !== undefined && !(guess.becameOnline && (yield* announced)) && (
          !guess.write ||
          (written = yield* repo.writeIfUnchanged(user.realm_id, user.id, known!.last_update_id, guess.times)) !==
            undefined
        )
        if (!settled) yield* locked(principal.user, status, now, announced)
        if (request.ping_only) return { presence_last_update_id: request.last_update_id ?? -1 } satisfies PingReply
        // Read once the write has committed (as Zulip does): the answer holds
        // committed rows only, which the SQL repository can keep between
        // pings, up to this ping's own write at least.
        return yield* snapshot(principal, {
          slim,
          lastUpdateId: request.last_update_id,
          historyLimitDays: request.history_limit_days
        }, written)
      })

      /** A ping in a transaction, with the user's row locked: Zulip's `do_update_user_presence`. */
      const locked = (user: User, status: PresenceStatus, now: number, announced: Effect.Effect<boolean>) =>
        tx.withTransaction(Effect.gen(function*() {
          const enabled = resolveSettings(yield* settings.get(user.id)).presence_enabled === true
          if (!enabled) return
          const outcome = yield* record(user, status, now)
          if ((outcome.creating || outcome.becameOnline) && (yield* announced)) yield* announce(user, outcome.times, now)
        }))

      const ofUser = Effect.fn("Presence.ofUser")(function*(principal: Principal, key: number | string, slim: boolean) {
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const wanted = typeof key === "string" ? key.trim().toLowerCase() : undefined
        const target = ctx.state.users.find((u) =>
          u.is_active && (typeof key === "number" ? u.id === key : u.email.toLowerCase() === wanted)
        )
        if (target === undefined) return yield* new NoSuchUser()
        if (target.is_bot) return yield* new BadRequest({ msg: "Presence is not supported for bot users." })
        const row = yield* repo.findOfUser(target.id)
        if (row === undefined) return yield* new BadRequest({ msg: `No presence data for ${key}` })
        if (slim) return modernPresence(row.presence, row.date_joined)
        const now = yield* Clock.currentTimeMillis
        const { aggregated, website } = legacyPresence(row.presence, row.date_joined)
        const offline = Math.floor(now / 1000) - aggregated.timestamp > PresenceTimings.offlineThresholdSeconds
        return {
          aggregated: { status: offline ? "offline" : aggregated.status, timestamp: aggregated.timestamp },
          website: { status: website.status, timestamp: website.timestamp }
        } satisfies UserPresenceLegacy
      })

      const presenceEnabledChanged = Effect.fn("Presence.presenceEnabledChanged")(function*(user: User, enabled: boolean) {
        const now = yield* Clock.currentTimeMillis
        let times: PresenceTimes
        if (enabled) {
          times = (yield* record(user, "active", now)).times
        } else {
          times = hiddenTimes(now)
          // The user's row is locked before the sequence row, in the order a
          // ping takes them, so the two never deadlock.
          yield* repo.find(user.id)
          yield* repo.write(user.realm_id, user.id, times)
        }
        yield* announce(user, times, now)
      })

      return Presence.of({ ping, snapshot, ofUser, presenceEnabledChanged })
    })
  )
}
