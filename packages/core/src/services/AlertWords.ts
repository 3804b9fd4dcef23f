/**
 * Alert words: GET/POST/DELETE /users/me/alert_words and the `alert_words`
 * event (the full list, to the user).
 *
 * Zulip strips each word and drops empty ones; words longer than 100
 * characters are refused on add (`alert_words[i] is too long (limit: 100
 * characters)`); duplicates are compared case-insensitively and the first
 * spelling is kept. Lists are returned sorted.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { UserId } from "../domain/Ids.ts"
import { TooLong } from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import { AlertWordRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import type { Principal } from "../domain/Principal.ts"

/** @category constants */
export const MaxAlertWordLength = 100

const sorted = (words: ReadonlyArray<string>): Array<string> =>
  [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

const clean = (words: ReadonlyArray<string>): Array<string> => words.map((w) => w.trim()).filter((w) => w !== "")

/** @category services */
export class AlertWords extends Context.Service<AlertWords, {
  /** GET: `{alert_words}`. */
  list(userId: UserId): Effect.Effect<ReadonlyArray<string>>
  /** POST: adds, returns the full list. */
  add(principal: Principal, words: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, TooLong>
  /** DELETE: removes, returns the full list. */
  remove(principal: Principal, words: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>>
}>()("teamchat/core/services/AlertWords") {
  static readonly layer = Layer.effect(
    AlertWords,
    Effect.gen(function*() {
      const repo = yield* AlertWordRepo
      const events = yield* Events
      const tx = yield* Transactor

      const list = (userId: UserId) => Effect.map(repo.list(userId), sorted)

      const change = (principal: Principal, f: Effect.Effect<void>) =>
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
          for (let i = 0; i < words.length; i++) {
            if (words[i]!.length > MaxAlertWordLength) {
              return yield* new TooLong({ var_name: `alert_words[${i}]`, max_length: MaxAlertWordLength })
            }
          }
          return yield* change(principal, repo.add(principal.user.id, clean(words)))
        }),
        remove: Effect.fn("AlertWords.remove")((principal: Principal, words: ReadonlyArray<string>) =>
          change(principal, repo.remove(principal.user.id, clean(words)))
        )
      })
    })
  )
}
