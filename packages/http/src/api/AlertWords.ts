/**
 * The `alertWords` group: GET, POST and DELETE /users/me/alert_words. Each
 * answers with the caller's whole list, sorted; changes send an
 * `alert_words` event with the new list to the caller's queues.
 *
 * @since 0.1.0
 */
import { AlertWords } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

const words = Params.json(
  Params.Value.list(Params.Value.string, AlertWords.MaxAlertWordsPerRequest),
  `JSON list of at most ${AlertWords.MaxAlertWordsPerRequest} words or phrases, each at most ${AlertWords.MaxAlertWordLength} characters; a user has at most ${AlertWords.MaxAlertWordsPerUser}.`
)

const list = Envelope.Success({ alert_words: Schema.Array(Schema.String) })

/** @category groups */
export class AlertWordsApi extends HttpApiGroup.make("alertWords")
  .add(
    HttpApiEndpoint.get("list", "/users/me/alert_words", { success: list })
      .annotate(OpenApi.Summary, "Get all alert words"),
    HttpApiEndpoint.post("add", "/users/me/alert_words", { query: { alert_words: words }, success: list })
      .annotate(OpenApi.Summary, "Add alert words"),
    HttpApiEndpoint.delete("remove", "/users/me/alert_words", { query: { alert_words: words }, success: list })
      .annotate(OpenApi.Summary, "Remove alert words")
  )
  .middleware(Authentication)
{}
