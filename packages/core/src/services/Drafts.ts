/**
 * Drafts: GET/POST /drafts, PATCH/DELETE /drafts/{id}, register's `drafts`
 * and the `drafts` events (to the owner's clients only).
 *
 * Every endpoint is refused while the user's `enable_drafts_synchronization`
 * setting is off ("User has disabled synchronizing drafts."); turning it off
 * deletes the stored drafts (`UserSettings`). A batch is checked draft by
 * draft, in order, and written in one transaction: one bad draft writes
 * none. Each draft is checked as Zulip's `further_validated_draft_dict`
 * checks it: the content (as a message's: no NUL, trailing whitespace
 * dropped, cut at the limit), the time (filled from the Clock when absent,
 * never negative), then the address: a channel draft needs exactly one
 * channel, not archived, that the user can read, and keeps its topic (cut at 60 characters, no
 * NUL); a direct draft needs existing, active users the sender can access;
 * anything else is unaddressed (`""`, no `to`, no topic).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { editTime, MaxDraftsInRegister, toApiDraft } from "../domain/Draft.ts"
import { DraftId } from "../domain/Draft.ts"
import type { ApiDraft, Draft, DraftType } from "../domain/Draft.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { ChannelId, UserId } from "../domain/Ids.ts"
import { MaxTopicLength } from "../domain/Message.ts"
import type { Principal } from "../domain/Principal.ts"
import type { User } from "../domain/User.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import {
  BadRequest,
  DraftChannelCount,
  DraftNotFound,
  DraftsSyncDisabled,
  InvalidChannelId,
  InvalidUserId,
  TimestampNegative,
  TopicNullBytes
} from "../errors/Errors.ts"
import { DraftRepo } from "../ports/DraftRepo.ts"
import type { Insert } from "../ports/Repositories.ts"
import { UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { accessOfRequest, canAccessUser, canReadChannel, makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { normalizeContent } from "./Messages.ts"

/** A draft as a client sends it (the API's Draft without `id`). @category models */
export interface DraftInput {
  readonly type: DraftType
  readonly to: ReadonlyArray<number>
  readonly topic: string
  readonly content: string
  /** Seconds since the epoch, fractions allowed; absent or null: now. */
  readonly timestamp?: number | null | undefined
}

/** GET /drafts. @category models */
export interface DraftList {
  readonly count: number
  readonly drafts: ReadonlyArray<ApiDraft>
}

/** Why a draft is refused. @category errors */
export type DraftError =
  | DraftsSyncDisabled
  | TimestampNegative
  | DraftChannelCount
  | InvalidChannelId
  | InvalidUserId
  | TopicNullBytes
  | BadRequest

/** @category services */
export class Drafts extends Context.Service<Drafts, {
  /** Fails when the user has turned drafts syncing off; every endpoint checks it first. */
  requireSync(principal: Principal): Effect.Effect<void, DraftsSyncDisabled>
  /** GET /drafts: the user's drafts, oldest edit first. */
  list(principal: Principal): Effect.Effect<DraftList, DraftsSyncDisabled>
  /** POST /drafts: all or nothing; the ids in the order given. */
  create(principal: Principal, drafts: ReadonlyArray<DraftInput>): Effect.Effect<ReadonlyArray<DraftId>, DraftError>
  /** PATCH /drafts/{id}: replaces the draft. */
  edit(principal: Principal, id: number, draft: DraftInput): Effect.Effect<void, DraftError | DraftNotFound>
  /** DELETE /drafts/{id}. */
  remove(principal: Principal, id: number): Effect.Effect<void, DraftsSyncDisabled | DraftNotFound>
  /** Register's `drafts`: the newest {@link MaxDraftsInRegister}, newest first. */
  registerState(principal: Principal): Effect.Effect<ReadonlyArray<ApiDraft>>
}>()("teamchat/core/services/Drafts") {
  static readonly layer = Layer.effect(
    Drafts,
    Effect.gen(function*() {
      const repo = yield* DraftRepo
      const settingsRepo = yield* UserSettingsRepo
      const events = yield* Events
      const tx = yield* Transactor
      const loadAccess = yield* makeAccessLoader

      const requireSync = Effect.fn("Drafts.requireSync")(function*(principal: Principal) {
        const settings = resolveSettings(yield* settingsRepo.get(principal.user.id))
        if (settings.enable_drafts_synchronization !== true) return yield* new DraftsSyncDisabled()
      })

      const publish = (principal: Principal, event: EventOf<"drafts">) =>
        events.publish(principal.realm.id, event, Audience.users([principal.user.id]))

      /** Zulip's `truncate_topic`: at most 60 characters, cut with "...". */
      const truncateTopic = (topic: string): string => {
        const chars = Array.from(topic)
        return chars.length > MaxTopicLength ? chars.slice(0, MaxTopicLength - 3).join("") + "..." : topic
      }

      /** The `to` of a direct draft: the participants other than the user, or the user alone. */
      const directTo = Effect.fnUntraced(function*(ctx: AccessContext, sender: User, to: ReadonlyArray<number>) {
        const ids = Array.from(new Set(to)).sort((a, b) => a - b)
        const users: Array<User> = []
        for (const id of ids) {
          const user = UserId.makeOption(id).pipe(
            Option.flatMapNullishOr((userId) => ctx.state.usersById.get(userId)),
            Option.getOrUndefined
          )
          if (user === undefined) return yield* new InvalidUserId({ user_id: id })
          users.push(user)
        }
        for (const user of users) {
          if (!user.is_active) return yield* new BadRequest({ msg: `'${user.email}' is no longer using Zulip.` })
        }
        if (users.some((user) => !canAccessUser(ctx, sender, user))) {
          return yield* new BadRequest({ msg: "You do not have permission to access some of the recipients." })
        }
        const others = users.filter((user) => user.id !== sender.id).map((user) => user.id as number)
        return others.length === 0 ? [sender.id as number] : others
      })

      /** Zulip's `further_validated_draft_dict`: the row to write, or why not. */
      const validate = Effect.fnUntraced(function*(ctx: AccessContext, sender: User, input: DraftInput) {
        const content = yield* normalizeContent(input.content)
        const seconds = input.timestamp ?? (yield* Clock.currentTimeMillis) / 1000
        const last_edit_time = editTime(seconds)
        if (last_edit_time < 0) return yield* new TimestampNegative()
        const row = { user_id: sender.id, content, last_edit_time }
        if (input.type === "stream") {
          const topic = truncateTopic(input.topic)
          if (topic.includes("\u0000")) return yield* new TopicNullBytes()
          if (input.to.length !== 1) return yield* new DraftChannelCount()
          const channel = ChannelId.makeOption(input.to[0]!).pipe(
            Option.flatMapNullishOr((id) => ctx.channelsById.get(id)),
            Option.getOrUndefined
          )
          // Zulip's access_stream_by_id: an archived channel is no address either.
          if (channel === undefined || channel.is_archived || !canReadChannel(ctx, sender, channel)) {
            return yield* new InvalidChannelId()
          }
          return { ...row, type: "stream", to: [channel.id as number], topic } satisfies Insert<Draft>
        }
        if (input.type === "private" && input.to.length > 0) {
          return { ...row, type: "private", to: yield* directTo(ctx, sender, input.to), topic: "" } satisfies Insert<Draft>
        }
        return { ...row, type: "", to: [], topic: "" } satisfies Insert<Draft>
      })

      const senderOf = (ctx: AccessContext, principal: Principal) => ctx.state.usersById.get(principal.user.id) ?? principal.user

      /** The caller's draft, locked; anyone else's is "not found". */
      const own = Effect.fnUntraced(function*(principal: Principal, id: number) {
        const row = yield* Option.match(DraftId.makeOption(id), {
          onNone: () => Effect.succeed(undefined),
          onSome: repo.lock
        })
        if (row === undefined || row.user_id !== principal.user.id) return yield* new DraftNotFound()
        return row
      })

      const list = Effect.fn("Drafts.list")(function*(principal: Principal) {
        yield* requireSync(principal)
        const drafts = (yield* repo.listByUser(principal.user.id, "oldest")).map(toApiDraft)
        return { count: drafts.length, drafts } satisfies DraftList
      })

      const create = Effect.fn("Drafts.create")(function*(principal: Principal, inputs: ReadonlyArray<DraftInput>) {
        yield* requireSync(principal)
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const sender = senderOf(ctx, principal)
        const rows: Array<Insert<Draft>> = []
        for (const input of inputs) rows.push(yield* validate(ctx, sender, input))
        return yield* tx.withTransaction(Effect.gen(function*() {
          const created = yield* repo.insertMany(rows)
          yield* publish(principal, { type: "drafts", op: "add", drafts: created.map(toApiDraft) })
          return created.map((draft) => draft.id)
        }))
      })

      const edit = Effect.fn("Drafts.edit")(function*(principal: Principal, id: number, input: DraftInput) {
        yield* requireSync(principal)
        // The organization as the request found it (as for a create); the row is read locked.
        const ctx = yield* accessOfRequest(loadAccess, principal)
        yield* tx.withTransaction(Effect.gen(function*() {
          const row = yield* own(principal, id)
          const next: Draft = { ...(yield* validate(ctx, senderOf(ctx, principal), input)), id: row.id }
          yield* repo.update(next)
          yield* publish(principal, { type: "drafts", op: "update", draft: toApiDraft(next) })
        }))
      })

      const remove = Effect.fn("Drafts.remove")(function*(principal: Principal, id: number) {
        yield* requireSync(principal)
        yield* tx.withTransaction(Effect.gen(function*() {
          const row = yield* own(principal, id)
          yield* repo.delete(row.id)
          yield* publish(principal, { type: "drafts", op: "remove", draft_id: row.id })
        }))
      })

      const registerState = Effect.fn("Drafts.registerState")(function*(principal: Principal) {
        // Drafts are deleted when syncing is turned off, so none are kept then.
        return (yield* repo.listByUser(principal.user.id, "newest", MaxDraftsInRegister)).map(toApiDraft)
      })

      return Drafts.of({ requireSync, list, create, edit, remove, registerState })
    })
  )
}
