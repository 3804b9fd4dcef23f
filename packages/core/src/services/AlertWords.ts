/**
 * Alert words: GET/POST/DELETE /users/me/alert_words and the `alert_words`
 * event (the full list, to the user).
 *
 * Zulip strips each word and drops empty ones; words longer than 100
 * characters are refused on add (`alert_words[i] is too long (limit: 100
 * characters)`); duplicates are compared case-insensitively and the first
 * spelling is kept. Lists are returned sorted.
 *
 * Bounded work per request: at most {@link MaxAlertWordsPerRequest} words per
 * request (add or remove) and {@link MaxAlertWordsPerUser} per user; each
 * change is one statement whatever its length.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { UserId } from "../domain/Ids.ts"
import { BadRequest, TooLong, TooManyItems } from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import { AlertWordRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import type { Principal } from "../domain/Principal.ts"

/** @category constants */
export const MaxAlertWordLength = 100

/** The words one POST or DELETE may name. @category constants */
export const MaxAlertWordsPerRequest = 1000

/** The words one user may have. @category constants */
export const MaxAlertWordsPerUser = 1000

const checkCount = (words: ReadonlyArray<string>) =>
  words.length > MaxAlertWordsPerRequest
    ? Effect.fail(new TooManyItems({ var_name: "alert_words", max_items: MaxAlertWordsPerRequest }))
    : Effect.void

const sorted = (words: ReadonlyArray<string>): Array<string> =>
  [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

const clean = (words: ReadonlyArray<string>): Array<string> => words.map((w) => w.trim()).filter((w) => w !== "")

/** @category services */
export class AlertWords extends Context.Service<AlertWords, {
  /** GET: `{alert_words}`. */
  list(userId: UserId): Effect.Effect<ReadonlyArray<string>>
  /** POST: adds, returns the full list. */
  add(
    principal: Principal,
    words: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<string>, TooLong | TooManyItems | BadRequest>
  /** DELETE: removes, returns the full list. */
  remove(principal: Principal, words: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, TooManyItems>
}>()("teamchat/core/services/AlertWords") {
  static readonly layer = Layer.effect(
    AlertWords,
    Effect.gen(function*() {
      const repo = yield* AlertWordRepo
      const events = yield* Events
      const tx = yield* Transactor

      const list = (userId: UserId) => Effect.map(repo.list(userId), sorted)

      const change = <E>(principal: Principal, f: Effect.Effect<void, E>) =>
        tx.withTransaction(Effect.gen(function*() {
          yield* f
          const words = yield* list(principal.user.id)
          yield* events.publish(
            principal.realm.id,
            { type: "alert_words", alert_words: words },
            Audience.users([principal.user.id])
          )
          return words
        }))

      return AlertWords.of({
        list,
        add: Effect.fn("AlertWords.add")(function*(principal: Principal, words: ReadonlyArray<string>) {
          yield* checkCount(words)
          for (let i = 0; i < words.length; i++) {
            if (words[i]!.length > MaxAlertWordLength) {
              return yield* new TooLong({ var_name: `alert_words[${i}]`, max_length: MaxAlertWordLength })
            }
          }
          const cleaned = clean(words)
          return yield* change(
            principal,
            Effect.gen(function*() {
              // Words the user has already (compared case-insensitively) add nothing.
              const known = new Set((yield* repo.list(principal.user.id)).map((w) => w.toLowerCase()))
              const total = known.size
              for (const word of cleaned) known.add(word.toLowerCase())
              if (known.size > MaxAlertWordsPerUser && known.size > total) {
                return yield* new BadRequest({ msg: `You can have at most ${MaxAlertWordsPerUser} alert words.` })
              }
              yield* repo.add(principal.user.id, cleaned)
            })
          )
        }),
        remove: Effect.fn("AlertWords.remove")(function*(principal: Principal, words: ReadonlyArray<string>) {
          yield* checkCount(words)
          return yield* change(principal, repo.remove(principal.user.id, clean(words)))
        })
      })
    })
  )
}
