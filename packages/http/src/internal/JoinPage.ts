/**
 * The join page of a reusable invitation link, `<organization URL>/join/<key>/`
 * (outside /api/v1, like the page at `/`).
 *
 * GET shows a plain HTML form (full name, email, password), or a page saying
 * why the link cannot be used: 404 for a key that names no invitation, 410
 * for an expired or revoked link, or one whose maker may no longer invite
 * with it (deactivated or demoted; checked again as the account is made). POST makes the account through core
 * `Invitations.join` and shows a success page; bad input shows the form
 * again with the reason (400) and writes nothing.
 *
 * - Every text that comes from outside (names, addresses, organization
 *   names, keys) is HTML-escaped.
 * - Cross-site request forgery: a double-submit token. GET sets a random
 *   token (32 bytes from the system's CSPRNG) in an HttpOnly, SameSite=Strict cookie and
 *   in a hidden field; POST must carry both, equal (compared in constant
 *   time), or it is refused with 403.
 * - POSTs are rate limited per client address (`joinRateLimit`); over the
 *   limit the answer is 429 with `Retry-After`.
 * - The pages are never cached, never framed and send no `Referer` (the key
 *   is in the URL).
 *
 * @internal
 */
import { Errors, Invitation, Invitations, Password } from "@teamchat/core"
import type { Realm, ZulipError } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as ErrorStatus from "./ErrorStatus.ts"
import { escapeHtml } from "./Html.ts"
import { RateLimiter } from "./RateLimiter.ts"
import type { Rule } from "./RateLimiter.ts"
import * as RealmResolver from "./Realm.ts"

/** The route of the page (`:key` is the invitation key). @category constants */
export const routes = ["/join/:key/"] as const

/** The name of the CSRF cookie and of the form's hidden field. @category constants */
export const csrfName = "teamchat_join_csrf"

const role = (invitedAs: number): string => {
  switch (invitedAs) {
    case 100:
      return "an organization owner"
    case 200:
      return "an organization administrator"
    case 300:
      return "a moderator"
    case 600:
      return "a guest"
    default:
      return "a member"
  }
}

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
label{display:block;margin-top:1rem;font-weight:600}input{display:block;width:100%;box-sizing:border-box;padding:.4rem;font:inherit}
button{margin-top:1.5rem;padding:.5rem 1rem;font:inherit}.error{color:#a00;font-weight:600}
:focus-visible{outline:3px solid #1e5bd6;outline-offset:2px}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`

interface FormValues {
  readonly full_name: string
  readonly email: string
}

/** The form, with the values sent before (never the password) and what was wrong. */
export const renderForm = (options: {
  readonly realm: Realm.Realm
  readonly invitedAs: number
  readonly csrf: string
  readonly values: FormValues
  readonly error?: string | undefined
}): string => {
  const name = escapeHtml(options.realm.name)
  const error = options.error === undefined
    ? ""
    : `<p class="error" role="alert" id="join-error">${escapeHtml(options.error)}</p>\n`
  const described = options.error === undefined ? "" : ` aria-describedby="join-error"`
  return page(
    `Join ${options.realm.name}`,
    `<h1>Join ${name}</h1>
<p>You have been invited to join ${name} as ${role(options.invitedAs)}. Choose your name and password.</p>
${error}<form method="post" novalidate>
<input type="hidden" name="${csrfName}" value="${escapeHtml(options.csrf)}">
<label for="full_name">Full name</label>
<input id="full_name" name="full_name" type="text" autocomplete="name" required maxlength="100" value="${
      escapeHtml(options.values.full_name)
    }"${described}>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(options.values.email)}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${Password.minLength}"${described}>
<button type="submit">Create account</button>
</form>`
  )
}

/** The page after joining. */
export const renderJoined = (realm: Realm.Realm, email: string): string =>
  page(
    `Welcome to ${realm.name}`,
    `<h1>Welcome to ${escapeHtml(realm.name)}!</h1>
<p role="status">Your account <strong>${escapeHtml(email)}</strong> is ready.</p>
<p>Log in from any Zulip client: enter the organization URL <code>${escapeHtml(realm.url)}</code>,
then your email and password. A welcome message is waiting for you.</p>`
  )

/** The page of a link that cannot be used, or of a refused request. */
export const renderProblem = (title: string, message: string): string =>
  page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`)

const securityHeaders = {
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

const respond = (body: string, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...securityHeaders, ...headers }
  })

const linkProblem = (error: ZulipError.ZulipError) =>
  respond(renderProblem("This invitation link cannot be used", error.message), ErrorStatus.status(error))

const csrfToken = Effect.sync(() => randomBytes(32).toString("base64url"))

const csrfCookie = (realm: Realm.Realm, token: string): string =>
  `${csrfName}=${token}; Path=/join/; HttpOnly; SameSite=Strict${realm.url.startsWith("https:") ? "; Secure" : ""}`

/** The default limit of join attempts per client address. @category constants */
export const defaultRateLimit: Rule = { requests: 10, windowSeconds: 600 }

/**
 * GET and POST of the join page (the router takes the path with or without its final slash).
 *
 * @category layers
 */
export const layer = (
  rateLimit: Rule | false
): Layer.Layer<
  never,
  never,
  HttpRouter.HttpRouter | Invitations.Invitations | RateLimiter | RealmResolverServices
> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const router = yield* HttpRouter.HttpRouter
    const invitations = yield* Invitations.Invitations
    const limiter = yield* RateLimiter
    const resolve = yield* RealmResolver.make

    const keyOf = Effect.map(HttpRouter.params, (params) => params.key ?? "")

    const show = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const realm = yield* resolve(request)
      const key = yield* keyOf
      return yield* invitations.check(realm, key).pipe(
        Effect.flatMap(({ invitation, realm: current }) =>
          Effect.map(csrfToken, (csrf) =>
            respond(
              renderForm({ realm: current, invitedAs: invitation.invited_as, csrf, values: { full_name: "", email: "" } }),
              200,
              { "set-cookie": csrfCookie(current, csrf) }
            ))
        ),
        Effect.catch((error) => Effect.succeed(linkProblem(error)))
      )
    }).pipe(Effect.catch((error) => Effect.succeed(linkProblem(error))))

    const submit = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (rateLimit !== false) {
        const address = Option.getOrElse(request.remoteAddress, () => "unknown")
        const decision = yield* limiter.check(`join:address:${address}`, rateLimit)
        if (decision.limited) {
          const retry = Math.max(1, Math.ceil(decision.secondsToFreedom))
          return respond(
            renderProblem("Too many attempts", `Too many attempts from your address. Try again in ${retry} seconds.`),
            429,
            { "retry-after": String(retry) }
          )
        }
      }
      const realm = yield* resolve(request)
      const key = yield* keyOf
      const link = yield* Effect.result(invitations.check(realm, key))
      if (link._tag === "Failure") return linkProblem(link.failure)
      const body = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as ReadonlyArray<readonly [string, string]>)
      const field = (name: string): string => {
        for (const [k, v] of body) if (k === name) return typeof v === "string" ? v : Redacted.value(v)
        return ""
      }
      const cookie = request.cookies[csrfName] ?? ""
      const sent = field(csrfName)
      if (cookie === "" || !Invitation.sameKey(cookie, sent)) {
        return respond(
          renderProblem(
            "The form could not be accepted",
            "This form has expired or was not sent from the invitation page. Open the invitation link again and resubmit."
          ),
          403
        )
      }
      const values = { full_name: field("full_name"), email: field("email") }
      const joined = yield* Effect.result(invitations.join(realm, key, { ...values, password: field("password") }))
      if (joined._tag === "Success") return respond(renderJoined(link.success.realm, joined.success.delivery_email), 200)
      const error = joined.failure
      if (
        error instanceof Errors.InvitationLinkUnknown || error instanceof Errors.InvitationLinkExpired ||
        error instanceof Errors.InvitationLinkRevoked || error instanceof Errors.InvitationLinkMakerNotAllowed
      ) {
        return linkProblem(error)
      }
      return respond(
        renderForm({
          realm: link.success.realm,
          invitedAs: link.success.invitation.invited_as,
          csrf: cookie,
          values,
          error: error.message
        }),
        400
      )
    }).pipe(Effect.catch((error) => Effect.succeed(linkProblem(error))))

    for (const path of routes) {
      yield* router.add("GET", path, show)
      yield* router.add("POST", path, submit)
    }
  }))

/** What the organization resolver needs. */
type RealmResolverServices = Effect.Services<typeof RealmResolver.make>
