/**
 * The page at `/`: there is no web app, so a browser pointed at the server
 * learns what it is and how to connect a Zulip client to it, instead of a
 * JSON 404.
 *
 * The server picks an organization by the request's host (`Realm.ts`). With
 * one organization any host reaches it, so the page names the URL it was
 * asked at; with several, only each organization's own URL reaches it, so
 * the page lists those (the system bots' internal organization aside).
 *
 * @internal
 */
import { Organizations } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { internalStringId, requestHost } from "./Realm.ts"

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** An organization as the page lists it. */
export interface Listed {
  readonly name: string
  readonly url: string
}

/** How a client finds the server: one URL, or one per organization. */
const connecting = (base: string | undefined): string =>
  base === undefined
    ? `<li><b>Zulip mobile app</b>: add an organization and enter its URL from the list above.</li>
<li><b>zulip-terminal</b>: run <code>zulip-term</code> and give it the organization's URL as the server, or put
<code>site=</code> and that URL in its <code>zuliprc</code> with your email and API key.</li>`
    : `<li><b>Zulip mobile app</b>: add an organization and enter this server's URL, <code>${base}</code>.</li>
<li><b>zulip-terminal</b>: run <code>zulip-term</code> and give it <code>${base}</code> as the server, or put
<code>site=${base}</code> in its <code>zuliprc</code> with your email and API key.</li>`

/**
 * The page for a server of `version`: addressed as `base` (e.g.
 * http://127.0.0.1:9991), or, given `organizations`, listing their URLs
 * instead.
 */
export const render = (options: {
  readonly version: string
  readonly zulipVersion: string
  readonly featureLevel: number
  readonly base: string
  readonly organizations?: ReadonlyArray<Listed> | undefined
}): string => {
  const listed = options.organizations
  const base = listed === undefined ? escapeHtml(options.base) : undefined
  const list = listed !== undefined
    ? `<h2>Organizations</h2>
<p>This server hosts ${listed.length} organization${listed.length === 1 ? "" : "s"}, each reached at its own URL:</p>
<ul>
${
      listed.map((o) => {
        const url = escapeHtml(o.url)
        return `<li>${escapeHtml(o.name)}: <a href="${url}">${url}</a></li>`
      }).join("\n")
    }
</ul>
`
    : ""
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>teamchat</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}code{background:#f2f2f2;padding:0 .2em}</style>
</head>
<body>
<h1>teamchat</h1>
<p>This is teamchat, a team chat server that speaks the Zulip REST API.
teamchat ${escapeHtml(options.version)}, Zulip API ${escapeHtml(options.zulipVersion)} (feature level ${options.featureLevel}).</p>
<p>There is no web app yet: use a Zulip client, or the API under <code>/api/v1</code>
(what is implemented: <a href="/api/v1/openapi.json">the OpenAPI document</a>).</p>
${list}<h2>Connecting a client</h2>
<ul>
${connecting(base)}
</ul>
<p>A phone or another machine cannot reach a server listening on 127.0.0.1 (the default). Start it with
<code>HOST=0.0.0.0</code> to listen on every address, and set <code>EXTERNAL_URL</code> to the address clients use,
e.g. <code>HOST=0.0.0.0 EXTERNAL_URL=http://192.168.1.20:9991 bash scripts/start.sh --demo</code>.
The URL a client enters must have the host of an organization's URL, which is how the server picks the organization.</p>
</body>
</html>
`
}

/**
 * GET / answered with the page: addressed by the request's Host when the
 * server has one organization, listing the organizations when it has more.
 */
export const layer = (options: { readonly version: string; readonly zulipVersion: string; readonly featureLevel: number }) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const router = yield* HttpRouter.HttpRouter
    const organizations = yield* Organizations.Organizations
    yield* router.add(
      "GET",
      "/",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const host = requestHost(request) ?? "localhost"
        const hosted = (yield* organizations.list).filter((realm) => realm.string_id !== internalStringId)
        // One organization is reached at any host (`Realm.ts`'s fallback), several only at their own.
        const listed = hosted.length <= 1
          ? undefined
          : hosted.filter((realm) => !realm.deactivated).map((realm) => ({ name: realm.name, url: realm.url }))
        return HttpServerResponse.text(render({ ...options, base: `http://${host}`, organizations: listed }), {
          contentType: "text/html; charset=utf-8"
        })
      })
    )
  }))
