/**
 * Statuses: POST /users/me/status, POST /users/{user_id}/status
 * (administrators), GET /users/{user_id}/status, register's `user_status`
 * and the `user_status` event (to everyone who can access the user).
 *
 * Only the parameters passed change. The emoji is checked against the one
 * emoji table (`domain/Emoji.ts`): a name alone is looked up (custom emoji
 * first, then `zulip`, then Unicode names); a full triple must agree with
 * itself (Zulip's `check_emoji_request`). The deprecated `away` is the
 * negation of the `presence_enabled` setting and is changed through
 * `UserSettings`, in the same transaction.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ReactionType } from "../domain/Emoji.ts"
import { Audience } from "../domain/Event.ts"
import type { Principal } from "../domain/Principal.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import { emptyStatus, isUnset, MaxStatusTextLength, toApiStatus } from "../domain/UserStatus.ts"
import type { ApiUserStatus, UserStatus as StatusRecord } from "../domain/UserStatus.ts"
import {
  BadRequest,
  BotsNotAllowed,
  EmojiDoesNotExist,
  EmojiNameRequired,
  InsufficientPermission,
  InvalidCustomEmoji,
  InvalidEmojiCode,
  InvalidEmojiName,
  InvalidEmojiType,
  NoNewValues,
  NoSuchUser,
  StatusTextTooLong
} from "../errors/Errors.ts"
import { userAccessVerdict } from "../permissions/UserAccess.ts"
import type { UserAccessOptions } from "../permissions/UserAccess.ts"
import { UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { UserStatusRepo } from "../ports/UserStatusRepo.ts"
import { Events } from "./events/Events.ts"
import { accessOfRequest, canAccessUser, hasFullUserAccess, makeAccessLoader } from "./internal/access.ts"
import { checkEmojiTriple, lookupEmoji } from "./internal/emoji.ts"
import type { AccessContext } from "./internal/access.ts"
import { UserSettings } from "./UserSettings.ts"

/** The parameters of a status change, as sent (absent: unchanged). @category models */
export interface StatusChange {
  readonly status_text?: string | undefined
  readonly emoji_name?: string | undefined
  readonly emoji_code?: string | undefined
  readonly reaction_type?: string | undefined
}

/** POST /users/me/status also takes the deprecated `away`. @category models */
export interface OwnStatusChange extends StatusChange {
  readonly away?: boolean | undefined
}

/** Failures of checking a status change. @category errors */
export type StatusChangeError =
  | NoNewValues
  | StatusTextTooLong
  | EmojiNameRequired
  | EmojiDoesNotExist
  | InvalidEmojiName
  | InvalidEmojiCode
  | InvalidEmojiType
  | InvalidCustomEmoji

/** Failures of reaching the target user. @category errors */
export type StatusTargetError = NoSuchUser | BadRequest | InsufficientPermission

/** A change checked and completed: the fields to write, emoji filled in. */
interface CheckedChange {
  readonly status_text: string | undefined
  readonly emoji: { readonly name: string; readonly code: string; readonly type: ReactionType } | undefined
}

/** `status_text` as stored: stripped, at most 60 characters. */
const checkText = (text: string | undefined): Effect.Effect<string | undefined, StatusTextTooLong> => {
  if (text === undefined) return Effect.succeed(undefined)
  const stripped = text.trim()
  return Array.from(stripped).length > MaxStatusTextLength ? Effect.fail(new StatusTextTooLong()) : Effect.succeed(stripped)
}

/** Zulip's `check_update_user_status`. */
const checkChange = Effect.fnUntraced(function*(change: StatusChange, away: boolean | undefined) {
  const status_text = yield* checkText(change.status_text)
  if (away === undefined && status_text === undefined && change.emoji_name === undefined) return yield* new NoNewValues()
  const name = change.emoji_name
  if (name === undefined) {
    if ((change.emoji_code ?? "") !== "" || (change.reaction_type ?? "") !== "") return yield* new EmojiNameRequired()
    return { status_text, emoji: undefined } satisfies CheckedChange
  }
  // An empty name clears the emoji.
  if (name === "") return { status_text, emoji: { name: "", code: "", type: "unicode_emoji" } } satisfies CheckedChange
  let code = change.emoji_code
  let type = change.reaction_type
  if (code === undefined || type === undefined) {
    const found = yield* lookupEmoji(name)
    code ??= found.code
    type ??= found.type
  }
  const checked = yield* checkEmojiTriple(name, code, type)
  return { status_text, emoji: { name, code, type: checked } } satisfies CheckedChange
})

const accessFailure = (verdict: ReturnType<typeof userAccessVerdict>): StatusTargetError | undefined => {
  switch (verdict) {
    case "ok":
      return undefined
    case "no_such_user":
      return new NoSuchUser()
    case "deactivated":
      return new BadRequest({ msg: "User is deactivated" })
    case "insufficient_permission":
      return new InsufficientPermission()
  }
}

/** @category services */
export class UserStatus extends Context.Service<UserStatus, {
  /** GET /users/{user_id}/status: the keys that are set (`{}` for none). */
  get(principal: Principal, userId: number): Effect.Effect<ApiUserStatus, StatusTargetError>
  /** POST /users/me/status. */
  updateOwn(principal: Principal, change: OwnStatusChange): Effect.Effect<void, StatusChangeError | BotsNotAllowed>
  /** POST /users/{user_id}/status (administrators). */
  updateOther(principal: Principal, userId: number, change: StatusChange): Effect.Effect<void, StatusChangeError | StatusTargetError>
  /** Register's `user_status`: the set statuses of the users the viewer can access, by user id. */
  registerState(principal: Principal): Effect.Effect<Record<string, ApiUserStatus>>
}>()("teamchat/core/services/UserStatus") {
  static readonly layer = Layer.effect(
    UserStatus,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const repo = yield* UserStatusRepo
      const settingsRepo = yield* UserSettingsRepo
      const settings = yield* UserSettings
      const events = yield* Events
      const tx = yield* Transactor

      const presenceEnabled = (userId: StatusRecord["user_id"]) =>
        Effect.map(settingsRepo.get(userId), (overrides) => resolveSettings(overrides).presence_enabled === true)

      const target = Effect.fnUntraced(function*(principal: Principal, userId: number, options: UserAccessOptions) {
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const user = ctx.state.users.find((u) => u.id === userId)
        const caller = ctx.state.usersById.get(principal.user.id) ?? principal.user
        const canAccess = user !== undefined && canAccessUser(ctx, caller, user)
        const failure = accessFailure(userAccessVerdict(caller, user, canAccess, options))
        if (failure !== undefined) return yield* Effect.fail(failure)
        return user!
      })

      /** Writes the change and announces it, inside the caller's transaction. */
      const apply = Effect.fnUntraced(function*(principal: Principal, userId: StatusRecord["user_id"], checked: CheckedChange, away: boolean | undefined) {
        if (away !== undefined) {
          // `away` is the negation of presence_enabled; a bot never gets here (refused before).
          yield* Effect.orDie(settings.update(principal, { presence_enabled: !away }))
        }
        const current = (yield* repo.find(userId)) ?? emptyStatus(userId)
        yield* repo.upsert({
          ...current,
          ...(checked.status_text === undefined ? {} : { status_text: checked.status_text }),
          ...(checked.emoji === undefined
            ? {}
            : { emoji_name: checked.emoji.name, emoji_code: checked.emoji.code, reaction_type: checked.emoji.type })
        })
        yield* events.publish(
          principal.realm.id,
          {
            type: "user_status",
            user_id: userId,
            ...(away === undefined ? {} : { away }),
            ...(checked.status_text === undefined ? {} : { status_text: checked.status_text }),
            ...(checked.emoji === undefined
              ? {}
              : { emoji_name: checked.emoji.name, emoji_code: checked.emoji.code, reaction_type: checked.emoji.type })
          },
          Audience.canAccessUser(userId)
        )
      })

      const get = Effect.fn("UserStatus.get")(function*(principal: Principal, userId: number) {
        const user = yield* target(principal, userId, { allowBots: false, allowDeactivated: false, forAdmin: false })
        const status = yield* repo.find(user.id)
        if (status === undefined) return {}
        return toApiStatus(status, yield* presenceEnabled(user.id))
      })

      const updateOwn = Effect.fn("UserStatus.updateOwn")(function*(principal: Principal, change: OwnStatusChange) {
        if (principal.user.is_bot) return yield* new BotsNotAllowed()
        const checked = yield* checkChange(change, change.away)
        yield* tx.withTransaction(apply(principal, principal.user.id, checked, change.away))
      })

      const updateOther = Effect.fn("UserStatus.updateOther")(function*(principal: Principal, userId: number, change: StatusChange) {
        // The text's length is a parameter check, made before the target is looked at.
        yield* checkText(change.status_text)
        const user = yield* target(principal, userId, { allowBots: false, allowDeactivated: false, forAdmin: true })
        const checked = yield* checkChange(change, undefined)
        yield* tx.withTransaction(apply({ user, realm: principal.realm }, user.id, checked, undefined))
      })

      const registerState = Effect.fn("UserStatus.registerState")(function*(principal: Principal) {
        const ctx: AccessContext = yield* accessOfRequest(loadAccess, principal)
        const viewer = ctx.state.usersById.get(principal.user.id) ?? principal.user
        const everyone = hasFullUserAccess(ctx, viewer)
        const out: Record<string, ApiUserStatus> = {}
        for (const { presence_enabled, status } of yield* repo.listByRealm(principal.realm.id)) {
          if (isUnset(status, presence_enabled)) continue
          if (!everyone) {
            const user = ctx.state.usersById.get(status.user_id)
            if (user === undefined || !canAccessUser(ctx, viewer, user)) continue
          }
          out[String(status.user_id)] = toApiStatus(status, presence_enabled)
        }
        return out
      })

      return UserStatus.of({ get, updateOwn, updateOther, registerState })
    })
  )
}
