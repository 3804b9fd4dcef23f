/**
 * Presence: when each user was last connected and last active, the rules a
 * ping applies to them (Zulip's `do_update_user_presence`), and the two wire
 * formats: modern (keyed by user id: `active_timestamp`, `idle_timestamp`)
 * and legacy (keyed by API email: `aggregated` plus one `website` client).
 *
 * Times are milliseconds since the epoch; the API shows whole seconds.
 *
 * @since 0.1.0
 */
import type { RealmId, UserId } from "./Ids.ts"

/** A user's presence times; null where the user never was (active). @category models */
export interface PresenceTimes {
  readonly last_active_time: number | null
  readonly last_connected_time: number | null
}

/** A presence row. @category models */
export interface Presence extends PresenceTimes {
  readonly user_id: UserId
  readonly realm_id: RealmId
  /** The organization's presence sequence when the row was last written. */
  readonly last_update_id: number
}

/** What a client reports. @category models */
export type PresenceStatus = "active" | "idle"

/**
 * Zulip's presence timings. The first two are what register reports
 * (`server_presence_ping_interval_seconds`,
 * `server_presence_offline_threshold_seconds`).
 *
 * @category constants
 */
export const PresenceTimings = {
  pingIntervalSeconds: 60,
  offlineThresholdSeconds: 140,
  /** A ping moves a stored time only when it is at least this much newer. */
  updateMinFrequencySeconds: 55,
  /** Legacy events call a user active while last active is this close to last connected. */
  legacyActivityOffsetSeconds: 70,
  /** Organizations with more active users get no `presence` events (Zulip's quadratic-work guard). */
  userLimitForEvents: 100,
  /** How far back a fetch reaches when `history_limit_days` is not given. */
  defaultHistoryDays: 14
} as const

const second = 1000
const day = 86_400 * second

/** Whole seconds, as Zulip's `datetime_to_timestamp`. */
const seconds = (ms: number): number => Math.floor(ms / second)

/** What one ping does to the stored times. @category models */
export interface PingOutcome {
  readonly times: PresenceTimes
  /** Whether the row is written (created, or a time moved). */
  readonly write: boolean
  readonly creating: boolean
  /** Active after being away long enough that others may show the user offline. */
  readonly becameOnline: boolean
}

/**
 * A ping with `status` at `now` against the stored row (undefined: none
 * yet). Times move only when the ping is `updateMinFrequencySeconds` newer,
 * so several open clients do not write once each per minute.
 *
 * @category rules
 */
export const applyPing = (existing: PresenceTimes | undefined, now: number, status: PresenceStatus): PingOutcome => {
  const active = status === "active"
  if (existing === undefined) {
    return {
      times: { last_active_time: active ? now : null, last_connected_time: now },
      write: true,
      creating: true,
      becameOnline: active
    }
  }
  // Never active (or connected): treated as long ago.
  const sinceActive = existing.last_active_time === null ? day : now - existing.last_active_time
  const sinceConnected = existing.last_connected_time === null ? day : now - existing.last_connected_time
  const onlineGap = (PresenceTimings.offlineThresholdSeconds - PresenceTimings.pingIntervalSeconds - 10) * second
  const minGap = PresenceTimings.updateMinFrequencySeconds * second
  let { last_active_time, last_connected_time } = existing
  let write = false
  if (sinceConnected > minGap) {
    last_connected_time = now
    write = true
  }
  if (active && sinceActive > minGap) {
    last_active_time = now
    if (last_connected_time === null || now > last_connected_time) last_connected_time = now
    write = true
  }
  return {
    times: { last_active_time, last_connected_time },
    write,
    creating: false,
    becameOnline: active && sinceActive > onlineGap
  }
}

/**
 * The times a user who turns presence off is left with: idle, last
 * connected long enough ago that every client shows them offline.
 *
 * @category rules
 */
export const hiddenTimes = (now: number): PresenceTimes => ({
  last_active_time: null,
  last_connected_time: now - (PresenceTimings.offlineThresholdSeconds + 120) * second
})

/** The cut-off of a fetch going back `days` days from `now`. @category rules */
export const historyCutoff = (now: number, days: number | undefined): number =>
  now - (days ?? PresenceTimings.defaultHistoryDays) * day

/** Modern entry. @category views */
export interface ModernPresence {
  readonly active_timestamp: number
  readonly idle_timestamp: number
}

/** One client's legacy entry. @category views */
export interface LegacyClientPresence {
  readonly client: "website"
  readonly status: PresenceStatus
  readonly timestamp: number
  readonly pushable: false
}

/** Legacy entry: the most recent client, twice. @category views */
export interface LegacyPresence {
  readonly aggregated: { readonly client: "website"; readonly status: PresenceStatus; readonly timestamp: number }
  readonly website: LegacyClientPresence
}

/** Missing times read as the day the user joined (the API always has numbers). */
const resolved = (times: PresenceTimes, dateJoined: number) => ({
  active: times.last_active_time ?? dateJoined,
  connected: times.last_connected_time ?? dateJoined
})

/** @category views */
export const modernPresence = (times: PresenceTimes, dateJoined: number): ModernPresence => {
  const { active, connected } = resolved(times, dateJoined)
  return { active_timestamp: seconds(active), idle_timestamp: seconds(connected) }
}

/**
 * Zulip's `format_legacy_presence_dict`: active while last active is within
 * the offset of last connected.
 *
 * @category views
 */
export const legacyClientPresence = (times: PresenceTimes, dateJoined: number): LegacyClientPresence => {
  const { active, connected } = resolved(times, dateJoined)
  return active + PresenceTimings.legacyActivityOffsetSeconds * second >= connected
    ? { client: "website", status: "active", timestamp: seconds(active), pushable: false }
    : { client: "website", status: "idle", timestamp: seconds(connected), pushable: false }
}

/** @category views */
export const legacyPresence = (times: PresenceTimes, dateJoined: number): LegacyPresence => {
  const website = legacyClientPresence(times, dateJoined)
  return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website }
}
