/**
 * Personal settings: register's `user_settings` object and PATCH /settings
 * (any subset; Zulip's validation texts; `user_settings` events plus the
 * legacy `update_display_settings` / `update_global_notifications` ones;
 * full name, time zone and email visibility changes announced to the users
 * who can access the user).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { valueChange } from "../domain/AuditLog.ts"
import type { AuditChange } from "../domain/AuditLog.ts"
import { isSystemBotEmail } from "../domain/EmailAddress.ts"
import * as Password from "../domain/Password.ts"
import { EmailVisibilities } from "../domain/Role.ts"
import type { EmailVisibility } from "../domain/Role.ts"
import { placeholderEmail } from "../domain/User.ts"
import type { User } from "../domain/User.ts"
import {
  AvailableNotificationSounds,
  DisplaySettingsLegacy,
  EmojisetChoices,
  isSettingName,
  Languages,
  NotificationSettingsLegacy,
  resolveSettings,
  SettingTypes,
  UserSettingDefaults
} from "../domain/UserSettings.ts"
import type { SettingName, SettingValue, StoredSettingName } from "../domain/UserSettings.ts"
import {
  BadRequest,
  BotsNotAllowed,
  InvalidEmailAddress,
  InvalidParameter,
  NameInvalidCharacters,
  NameInvalidFormat,
  NameNotUnique,
  NameTooLong,
  NotABoolean,
  NotAnInteger,
  NotAString
} from "../errors/Errors.ts"
import type { NameEmpty } from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import type { Publication } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import { makeAccessLoader, usersWhoCanAccess } from "./internal/access.ts"
import { DraftRepo } from "../ports/DraftRepo.ts"
import { RealmRepo, UserRepo, UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { canAccessDeliveryEmail } from "../views/UserView.ts"
import { AuditLog } from "./AuditLog.ts"
import { PasswordHasher } from "./PasswordHasher.ts"
import { Presence } from "./Presence.ts"
import { checkFullName, nameTaken, Users } from "./Users.ts"
import type { Principal } from "../domain/Principal.ts"

/** PATCH /settings parameters, decoded from their JSON text; keys absent are unchanged. @category models */
export type SettingsUpdate = Readonly<Record<string, unknown>> & {
  readonly full_name?: string
  readonly email?: string
  readonly old_password?: string
  readonly new_password?: string
}

/** @category errors */
export type UpdateSettingsError =
  | BadRequest
  | BotsNotAllowed
  | InvalidParameter
  | NotABoolean
  | NotAnInteger
  | NotAString
  | InvalidEmailAddress
  | NameEmpty
  | NameTooLong
  | NameInvalidCharacters
  | NameInvalidFormat
  | NameNotUnique

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const isValidTimezone = (tz: string): boolean => {
  if (tz === "") return true
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz })
    return true
  } catch {
    return false
  }
}

/** @category services */
export class UserSettings extends Context.Service<UserSettings, {
  /** Register's `user_settings` object (every setting, plus the choice lists). */
  get(user: User): Effect.Effect<Record<string, unknown>>
  /** The user's settings values only (no choice lists). */
  values(user: User): Effect.Effect<Record<SettingName, SettingValue>>
  /** PATCH /settings. Returns the response data (empty). */
  update(principal: Principal, changes: SettingsUpdate): Effect.Effect<Record<string, never>, UpdateSettingsError>
}>()("teamchat/core/services/UserSettings") {
  static readonly layer = Layer.effect(
    UserSettings,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const repo = yield* UserSettingsRepo
      const userRepo = yield* UserRepo
      const realms = yield* RealmRepo
      const usersService = yield* Users
      const events = yield* Events
      const tx = yield* Transactor
      const hasher = yield* PasswordHasher
      const presence = yield* Presence
      const drafts = yield* DraftRepo
      const audit = yield* AuditLog

      const values = Effect.fn("UserSettings.values")(function*(user: User) {
        const stored = resolveSettings(yield* repo.get(user.id))
        return {
          ...stored,
          timezone: user.timezone,
          email_address_visibility: user.email_address_visibility
        } as Record<SettingName, SettingValue>
      })

      const get = Effect.fn("UserSettings.get")(function*(user: User) {
        return {
          ...(yield* values(user)),
          emojiset_choices: EmojisetChoices,
          available_notification_sounds: AvailableNotificationSounds
        } as Record<string, unknown>
      })

      const checkType = (name: SettingName, value: unknown) => {
        const type = SettingTypes[name]
        switch (type._tag) {
          case "bool":
          case "nullableBool":
            return typeof value === "boolean" || (type._tag === "nullableBool" && value === null)
              ? Effect.void
              : Effect.fail(new NotABoolean({ var_name: name }))
          case "int":
            if (typeof value !== "number" || !Number.isInteger(value)) return Effect.fail(new NotAnInteger({ var_name: name }))
            return type.choices !== undefined && !type.choices.includes(value)
              ? Effect.fail(new InvalidParameter({ var_name: name }))
              : Effect.void
          case "string":
            if (typeof value !== "string") return Effect.fail(new NotAString({ var_name: name }))
            return type.choices !== undefined && !type.choices.includes(value)
              ? Effect.fail(new InvalidParameter({ var_name: name }))
              : Effect.void
        }
      }

      const update = Effect.fn("UserSettings.update")(function*(principal: Principal, changes: SettingsUpdate) {
        if (principal.user.is_bot) return yield* new BotsNotAllowed()
        // Types first (the typed endpoint's checks), in request order.
        for (const [key, value] of Object.entries(changes)) {
          if (key === "full_name" || key === "email" || key === "old_password" || key === "new_password") {
            if (typeof value !== "string") return yield* new NotAString({ var_name: key })
          } else if (isSettingName(key)) {
            yield* checkType(key, value)
          }
        }
        // check_settings_values.
        const language = changes.default_language as string | undefined
        if (language !== undefined && !(language in Languages)) {
          return yield* new BadRequest({ msg: "Invalid default_language" })
        }
        const sound = changes.notification_sound as string | undefined
        if (sound !== undefined && !AvailableNotificationSounds.includes(sound) && sound !== "none") {
          return yield* new BadRequest({ msg: `Invalid notification sound '${sound}'` })
        }
        const period = changes.email_notifications_batching_period_seconds as number | undefined
        if (period !== undefined && (period <= 0 || period > 7 * 24 * 60 * 60)) {
          return yield* new BadRequest({ msg: `Invalid email batching period: ${period} seconds` })
        }
        const timezone = changes.timezone as string | undefined
        if (timezone !== undefined && !isValidTimezone(timezone)) {
          return yield* new BadRequest({ msg: "Not a recognized time zone" })
        }
        // The new password's hash is made here, as hashing is slow, but it is
        // written below with everything else: a refused change keeps it unset.
        let passwordHash: string | undefined
        if (changes.new_password !== undefined) {
          const ok = changes.old_password !== undefined &&
            (yield* usersService.checkPassword(principal.user, changes.old_password))
          if (!ok) return yield* new BadRequest({ msg: "Wrong password!" })
          // The join page's rule, with this endpoint's own text.
          if (Password.isTooWeak(changes.new_password)) return yield* new BadRequest({ msg: "New password is too weak!" })
          passwordHash = yield* hasher.hash(changes.new_password)
        }

        return yield* tx.withTransaction(Effect.gen(function*() {
          // Under the row lock: the request rewrites the row and the stored
          // overrides from this read, so a concurrent change waits for it.
          let user = (yield* userRepo.findByIdForUpdate(principal.user.id)) ?? principal.user
          const realm = (yield* realms.findById(user.realm_id)) ?? principal.realm
          const publications: Array<Publication> = []
          const audited: Array<AuditChange> = []
          const toUser = (event: Publication["event"]): Publication => ({ event, audience: Audience.users([user.id]) })

          if (changes.email !== undefined) {
            const email = changes.email.trim()
            if (email !== user.delivery_email) {
              if (!emailPattern.test(email)) return yield* new InvalidEmailAddress()
              if (isSystemBotEmail(email)) return yield* new BadRequest({ msg: "Reserved for system bots." })
              if ((yield* userRepo.findByDeliveryEmail(realm.id, email)) !== undefined) {
                return yield* new BadRequest({ msg: "Already has an account." })
              }
              // Zulip mails a confirmation link; the address changes once it
              // is followed. Confirmation mail is not implemented yet.
            }
          }

          if (changes.full_name !== undefined && changes.full_name !== user.full_name) {
            const raw = changes.full_name
            const trimmed = raw.trim()
            if (trimmed.length > 100) return yield* new NameTooLong()
            if (trimmed.length < 2) return yield* new BadRequest({ msg: "Name too short!" })
            const name = yield* checkFullName(raw)
            if (realm.settings.require_unique_names) {
              if (nameTaken(yield* userRepo.listByRealm(realm.id), name, user.id)) return yield* new NameNotUnique()
            }
            if (name !== user.full_name) {
              audited.push({
                event_type: "user_full_name_changed",
                modified_user_id: user.id,
                extra_data: valueChange(user.full_name, name)
              })
              user = { ...user, full_name: name }
              yield* userRepo.update(user)
              publications.push({
                event: { type: "realm_user", op: "update", person: { user_id: user.id, full_name: name } },
                audience: Audience.canAccessUser(user.id)
              })
            }
          }

          // Every check above has passed: from here on the request only writes.
          if (passwordHash !== undefined) {
            user = { ...user, password_hash: passwordHash }
            yield* userRepo.update(user)
            audited.push({ event_type: "user_password_changed", modified_user_id: user.id })
          }

          const storedOverrides = { ...(yield* repo.get(user.id)) }
          const current = resolveSettings(storedOverrides)
          let overridesChanged = false
          let presenceEnabled: boolean | undefined
          const order = Object.keys(SettingTypes) as Array<SettingName>
          for (const name of order) {
            if (!(name in changes)) continue
            const value = changes[name] as SettingValue
            const previous = name === "timezone"
              ? user.timezone
              : name === "email_address_visibility"
              ? user.email_address_visibility
              : current[name as StoredSettingName]
            if (previous === value) continue
            audited.push({
              event_type: "user_setting_changed",
              modified_user_id: user.id,
              extra_data: valueChange(previous, value, name)
            })
            const before = user
            if (name === "timezone") {
              user = { ...user, timezone: value as string }
              yield* userRepo.update(user)
            } else if (name === "email_address_visibility") {
              const visibility = value as EmailVisibility
              user = {
                ...user,
                email_address_visibility: visibility,
                email: user.is_bot || visibility === EmailVisibilities.everyone
                  ? user.delivery_email
                  : placeholderEmail(user.id, realm.fake_email_domain)
              }
              yield* userRepo.update(user)
            } else {
              if (value === UserSettingDefaults[name as StoredSettingName]) delete storedOverrides[name]
              else storedOverrides[name] = value
              overridesChanged = true
              if (name === "presence_enabled") presenceEnabled = value as boolean
              // Zulip stops keeping drafts: the stored ones go, with no
              // `drafts` event (the clients keep their own copies).
              if (name === "enable_drafts_synchronization" && value === false) yield* drafts.deleteByUser(user.id)
            }
            const languageName = name === "default_language" ? { language_name: Languages[value as string] } : {}
            publications.push(toUser({ type: "user_settings", op: "update", property: name, value, ...languageName }))
            if (DisplaySettingsLegacy.includes(name) || name === "timezone") {
              publications.push(toUser({
                type: "update_display_settings",
                user: user.email,
                setting_name: name,
                setting: value,
                ...languageName
              }))
            }
            if (NotificationSettingsLegacy.includes(name)) {
              publications.push(toUser({
                type: "update_global_notifications",
                user: user.email,
                notification_name: name,
                setting: value
              }))
            }
            if (name === "timezone") {
              publications.push({
                event: {
                  type: "realm_user",
                  op: "update",
                  person: { email: user.email, user_id: user.id, timezone: user.timezone }
                },
                audience: Audience.canAccessUser(user.id)
              })
            }
            if (name === "email_address_visibility") {
              publications.push(...(yield* visibilityEvents(realm, before, user)))
            }
          }
          if (overridesChanged) yield* repo.set(user.id, storedOverrides)
          yield* audit.record(realm.id, user.id, audited)
          yield* events.publishAll(realm.id, publications)
          // Others see the change at once: online now, or offline from now on.
          if (presenceEnabled !== undefined) yield* presence.presenceEnabledChanged(user, presenceEnabled)
          return {} as Record<string, never>
        }))
      })

      /** realm_user updates when a user's email visibility changes (new_email, then delivery_email). */
      const visibilityEvents = Effect.fnUntraced(function*(realm: Principal["realm"], before: User, after: User) {
        const ctx = yield* loadAccess(realm)
        const viewers = usersWhoCanAccess(ctx, after).map((id) => ctx.state.usersById.get(id)!)
        const out: Array<Publication> = []
        if (before.email !== after.email) {
          out.push({
            event: { type: "realm_user", op: "update", person: { user_id: after.id, new_email: after.email } },
            audience: Audience.users(viewers.map((v) => v.id))
          })
        }
        const gained = viewers.filter((v) => v.id !== after.id && !canAccessDeliveryEmail(v, before) && canAccessDeliveryEmail(v, after))
        const lost = viewers.filter((v) => v.id !== after.id && canAccessDeliveryEmail(v, before) && !canAccessDeliveryEmail(v, after))
        if (gained.length > 0) {
          out.push({
            event: { type: "realm_user", op: "update", person: { user_id: after.id, delivery_email: after.delivery_email } },
            audience: Audience.users(gained.map((v) => v.id))
          })
        }
        if (lost.length > 0) {
          out.push({
            event: { type: "realm_user", op: "update", person: { user_id: after.id, delivery_email: null } },
            audience: Audience.users(lost.map((v) => v.id))
          })
        }
        return out
      })

      return UserSettings.of({ get, values, update })
    })
  )
}
