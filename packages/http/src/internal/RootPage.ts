/**
 * The page at `/`: there is no web app, so a browser pointed at the server
 * learns what it is and how to connect a Zulip client to it, instead of a
 * JSON 404.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { requestHost } from "./Realm.ts"

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** The page for a server of `version`, addressed as `base` (e.g. http://127.0.0.1:9991). */
export const render = (options: {
  readonly version: string
  readonly zulipVersion: string
  readonly featureLevel: number
  readonly base: string
}): string => {
  const base = escapeHtml(options.base)
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
<h2>Connecting a client</h2>
<ul>
<li><b>Zulip mobile app</b>: add an organization and enter this server's URL, <code>${base}</code>.</li>
<li><b>zulip-terminal</b>: run <code>zulip-term</code> and give it <code>${base}</code> as the server, or put
<code>site=${base}</code> in its <code>zuliprc</code> with your email and API key.</li>
</ul>
<p>A phone or another machine cannot reach a server listening on 127.0.0.1 (the default). Start it with
<code>HOST=0.0.0.0</code> to listen on every address, and set <code>EXTERNAL_URL</code> to the address clients use,
e.g. <code>HOST=0.0.0.0 EXTERNAL_URL=http://192.168.1.20:9991 bash scripts/start.sh --demo</code>.
The URL a client enters must have the host of an organization's URL, which is how the server picks the organization.</p>
</body>
</html>
`
}

/** Answers GET / with the page, addressed by the request's Host. */
export const handler = (options: { readonly version: string; readonly zulipVersion: string; readonly featureLevel: number }) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const host = requestHost(request) ?? "localhost"
    return HttpServerResponse.text(render({ ...options, base: `http://${host}` }), {
      contentType: "text/html; charset=utf-8"
    })
  })
