/**
 * The emoji data clients load from `server_emoji_data_url` (the Flutter app
 * fetches it without credentials): Zulip's `emoji_api.json`, whose
 * `code_to_names` comes from core's one emoji table. Served with an ETag so a
 * client revalidating its copy gets a 304.
 *
 * @since 0.1.0
 */
import { Emoji } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { createHash } from "node:crypto"

/** Where the document is served, as in Zulip. @category constants */
export const path = Emoji.apiPath

let tagged: { readonly body: string; readonly etag: string } | undefined

const document = () => {
  if (tagged === undefined) {
    const body = Emoji.emojiApiJson()
    tagged = { body, etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"` }
  }
  return tagged
}

/** Answers GET with the document, or 304 when the client's copy is current. @category handlers */
export const handler = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { body, etag } = document()
  const headers = { etag, "cache-control": "public, max-age=86400" }
  if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
  return HttpServerResponse.text(body, { contentType: "application/json", headers })
})
