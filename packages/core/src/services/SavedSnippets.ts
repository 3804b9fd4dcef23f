/**
 * Saved snippets: GET/POST /saved_snippets, PATCH/DELETE
 * /saved_snippets/{id}, register's `saved_snippets` and the
 * `saved_snippets` events (to the owner's clients only).
 *
 * Titles and contents are stripped and must keep at least one character;
 * a title holds at most 60 characters, a content at most the message limit
 * (Zulip's typed parameters, checked content first, before the snippet is
 * looked up). An edit that names neither changes nothing and sends nothing,
 * as Zulip's.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { MaxMessageLength } from "../domain/Message.ts"
import type { Principal } from "../domain/Principal.ts"
import { MaxSnippetTitleLength, SavedSnippetId, toApiSavedSnippet } from "../domain/SavedSnippet.ts"
import type { ApiSavedSnippet, SavedSnippet } from "../domain/SavedSnippet.ts"
import { CannotBeBlank, SavedSnippetNotFound, TooLong } from "../errors/Errors.ts"
import { SavedSnippetRepo } from "../ports/SavedSnippetRepo.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"

/** POST /saved_snippets. @category models */
export interface SnippetCreate {
  readonly title: string
  readonly content: string
}

/** PATCH /saved_snippets/{id}: absent fields stay. @category models */
export interface SnippetEdit {
  readonly title?: string | undefined
  readonly content?: string | undefined
}

/** Why a title or content is refused. @category errors */
export type SnippetTextError = CannotBeBlank | TooLong

/** A parameter stripped and within 1..max characters (pydantic's `StringConstraints`). */
const checkText = (name: string, max: number) => (raw: string): Effect.Effect<string, SnippetTextError> => {
  const text = raw.trim()
  const length = Array.from(text).length
  if (length === 0) return Effect.fail(new CannotBeBlank({ var_name: name }))
  if (length > max) return Effect.fail(new TooLong({ var_name: name, max_length: max }))
  return Effect.succeed(text)
}

const checkTitle = checkText("title", MaxSnippetTitleLength)
const checkContent = checkText("content", MaxMessageLength)

/** @category services */
export class SavedSnippets extends Context.Service<SavedSnippets, {
  /** GET /saved_snippets (and register's `saved_snippets`): the user's snippets by id. */
  list(principal: Principal): Effect.Effect<ReadonlyArray<ApiSavedSnippet>>
  /** POST /saved_snippets: the new snippet's id. */
  create(principal: Principal, request: SnippetCreate): Effect.Effect<SavedSnippetId, SnippetTextError>
  /** PATCH /saved_snippets/{id}. */
  edit(principal: Principal, id: number, request: SnippetEdit): Effect.Effect<void, SnippetTextError | SavedSnippetNotFound>
  /** DELETE /saved_snippets/{id}. */
  remove(principal: Principal, id: number): Effect.Effect<void, SavedSnippetNotFound>
}>()("teamchat/core/services/SavedSnippets") {
  static readonly layer = Layer.effect(
    SavedSnippets,
    Effect.gen(function*() {
      const repo = yield* SavedSnippetRepo
      const events = yield* Events
      const tx = yield* Transactor

      const publish = (principal: Principal, event: EventOf<"saved_snippets">) =>
        events.publish(principal.realm.id, event, Audience.users([principal.user.id]))

      /** The caller's snippet, locked; anyone else's is "not found". */
      const own = Effect.fnUntraced(function*(principal: Principal, id: number) {
        const row = yield* Option.match(SavedSnippetId.makeOption(id), {
          onNone: () => Effect.succeed(undefined),
          onSome: repo.lock
        })
        if (row === undefined || row.user_id !== principal.user.id) return yield* new SavedSnippetNotFound()
        return row
      })

      const list = Effect.fn("SavedSnippets.list")(function*(principal: Principal) {
        return (yield* repo.listByUser(principal.user.id)).map(toApiSavedSnippet)
      })

      const create = Effect.fn("SavedSnippets.create")(function*(principal: Principal, request: SnippetCreate) {
        const content = yield* checkContent(request.content)
        const title = yield* checkTitle(request.title)
        const date_created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const snippet = yield* repo.insert({ user_id: principal.user.id, title, content, date_created })
          yield* publish(principal, { type: "saved_snippets", op: "add", saved_snippet: toApiSavedSnippet(snippet) })
          return snippet.id
        }))
      })

      const edit = Effect.fn("SavedSnippets.edit")(function*(principal: Principal, id: number, request: SnippetEdit) {
        const content = request.content === undefined ? undefined : yield* checkContent(request.content)
        const title = request.title === undefined ? undefined : yield* checkTitle(request.title)
        // Nothing asked: nothing looked up, nothing sent.
        if (content === undefined && title === undefined) return
        yield* tx.withTransaction(Effect.gen(function*() {
          const row = yield* own(principal, id)
          const next: SavedSnippet = { ...row, ...(title === undefined ? {} : { title }), ...(content === undefined ? {} : { content }) }
          yield* repo.update(next)
          yield* publish(principal, { type: "saved_snippets", op: "update", saved_snippet: toApiSavedSnippet(next) })
        }))
      })

      const remove = Effect.fn("SavedSnippets.remove")(function*(principal: Principal, id: number) {
        yield* tx.withTransaction(Effect.gen(function*() {
          const row = yield* own(principal, id)
          yield* repo.delete(row.id)
          yield* publish(principal, { type: "saved_snippets", op: "remove", saved_snippet_id: row.id })
        }))
      })

      return SavedSnippets.of({ list, create, edit, remove })
    })
  )
}
