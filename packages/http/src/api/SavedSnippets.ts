/**
 * The `savedSnippets` group: titled pieces of Markdown a user keeps.
 *
 * - GET /saved_snippets lists the caller's snippets;
 * - POST /saved_snippets creates one (`title`, `content`) and returns its
 *   `saved_snippet_id`;
 * - PATCH /saved_snippets/{saved_snippet_id} changes its title and/or
 *   content (neither: nothing happens);
 * - DELETE /saved_snippets/{saved_snippet_id} deletes one.
 *
 * Each change sends a `saved_snippets` event (`add`, `update`, `remove`) to
 * the caller's queues.
 *
 * @since 0.1.0
 */
import { Errors } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** A saved snippet as the API shows it. @category schemas */
export const ApiSavedSnippet = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  content: Schema.String,
  date_created: Schema.Int
})

const Title = Schema.String.annotate({ description: "Stripped; 1 to 60 characters." })
const Content = Schema.String.annotate({ description: "Markdown, stripped; 1 to 10000 characters." })

const id = {
  saved_snippet_id: Params.PathId(() => new Errors.SavedSnippetNotFound(), "The saved snippet's id.")
}

/** @category groups */
export class SavedSnippetsApi extends HttpApiGroup.make("savedSnippets")
  .add(
    HttpApiEndpoint.get("list", "/saved_snippets", {
      success: Envelope.Success({ saved_snippets: Schema.Array(ApiSavedSnippet) })
    }).annotate(OpenApi.Summary, "Get all saved snippets"),
    HttpApiEndpoint.post("create", "/saved_snippets", {
      query: { title: Title, content: Content },
      success: Envelope.Success({ saved_snippet_id: Schema.Int })
    }).annotate(OpenApi.Summary, "Create a saved snippet"),
    HttpApiEndpoint.patch("edit", "/saved_snippets/:saved_snippet_id", {
      params: id,
      query: { title: Schema.optionalKey(Title), content: Schema.optionalKey(Content) },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Edit a saved snippet"),
    HttpApiEndpoint.delete("remove", "/saved_snippets/:saved_snippet_id", {
      params: id,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete a saved snippet")
  )
  .middleware(Authentication)
{}
