/**
 * The authorization matrix's vocabulary: principals, the fixture rows build
 * requests from, what a row states, and the refusals Zulip gives on many
 * routes, written out once (texts from Zulip's exceptions and decorators).
 */
import type * as Effect from "effect/Effect"
import type { Credentials, Server } from "../Harness.ts"

/** Who calls: nobody, a deactivated user, or an active account of a role. */
export type Principal = "anonymous" | "deactivated" | "owner" | "admin" | "moderator" | "member" | "guest" | "bot"

export const principals: ReadonlyArray<Principal> = [
  "anonymous",
  "deactivated",
  "owner",
  "admin",
  "moderator",
  "member",
  "guest",
  "bot"
]

/** A principal that has an account. */
export type Account = Exclude<Principal, "anonymous">

export interface AccountFixture extends Credentials {
  readonly userId: number
}

/** A channel made for the matrix, with one message in it (sent by its first subscriber). */
export interface ChannelFixture {
  readonly id: number
  readonly name: string
  readonly messageId: number
  readonly topic: string
}

/**
 * What the matrix adds to the demo organization: two accounts (the
 * deactivated user, the member's bot) and channels.
 */
export interface Fixture {
  readonly server: Server["Service"]
  readonly accounts: Record<Account, AccountFixture>
  /** A demo member who is none of the principals: the only subscriber of channels no principal is in. */
  readonly bystander: AccountFixture
  /** A public channel every principal (the guest too) is subscribed to. */
  readonly everyoneChannel: ChannelFixture
  /** A public channel only the bystander is in. */
  readonly publicChannel: ChannelFixture
  /** A private channel only the bystander is in. */
  readonly privateChannel: ChannelFixture
  /** A name no other call got: fresh channels, topics, words. */
  readonly unique: (prefix: string) => string
  /**
   * A new channel (public unless `inviteOnly`) made by the owner, these
   * accounts subscribed, and one message by the first of them.
   */
  readonly channel: (
    subscribers: ReadonlyArray<Account | "bystander">,
    options?: { readonly inviteOnly?: boolean }
  ) => Effect.Effect<ChannelFixture>
  /** `make`'s result, made once per key: state one row's cases share (each principal changes only its own part). */
  readonly once: <A>(key: string, make: Effect.Effect<A>) => Effect.Effect<A>
  /** Sends a request as the account (or the bystander) and expects a success; its body. */
  readonly call: (as: Account | "bystander", method: string, path: string, call: Call) => Effect.Effect<any>
  /** The server's clock, in seconds (the manual clock the harness serves on). */
  readonly nowSeconds: () => number
}

/** A request: the path with its ids filled in, and its parameters. */
/** A file part of a multipart body. */
export interface FilePart {
  readonly field: string
  readonly name: string
  readonly type: string
  readonly content: string
}

export interface Call {
  /** The path under /api/v1 (a row's `outsideApi` path as is), ids filled in. Defaults to the operation's path. */
  readonly path?: string
  readonly query?: Record<string, string>
  readonly form?: Record<string, string>
  /** A multipart body of these files. */
  readonly files?: ReadonlyArray<FilePart>
  /** What the request builder made that the expectations refer to (not sent). */
  readonly made?: Record<string, any>
}

/** A body that names what the request made (ids, names). */
export type BodyOf = (fixture: Fixture, as: Principal, call: Call) => unknown

/** What a principal gets: an exact body, or a success with these facts. */
export type Expected =
  | {
    readonly status: number
    readonly body: unknown | BodyOf
    readonly headers?: Record<string, string>
  }
  | {
    readonly status: number
    /** A body that is not JSON (a download, its HTML refusals), exactly. */
    readonly text: string
    readonly headers?: Record<string, string>
  }
  | {
    readonly status: 200
    /** Keys of the body and their exact values; `result` and `msg` are checked too. */
    readonly facts: (fixture: Fixture, as: Principal, call: Call) => Record<string, unknown>
    readonly headers?: Record<string, string>
  }

/** One case of an operation: how to build its request, and what each principal gets. */
export interface Row {
  /** `METHOD /path` as the served document names it, without `/api/v1`. */
  readonly operation: string
  /** The operation is served outside /api/v1 (the download of uploads): its path is sent as is. */
  readonly outsideApi?: boolean
  /** What is special about this case, when an operation has several. */
  readonly scenario?: string
  /**
   * The request `as` sends (for nobody and the deactivated user, the one the
   * member would send). Runs before the request, once per principal, so it
   * can make fresh state.
   */
  readonly request: (fixture: Fixture, as: Account, principal: Principal) => Effect.Effect<Call>
  /**
   * Facts a success's body shows only through a summary (the names of the
   * matrix's channels in a list, whether a queue id was given); `facts` keys
   * are looked up here before the body.
   */
  readonly digest?: (body: any, fixture: Fixture, call: Call) => Record<string, unknown>
  readonly expect: Record<Principal, Expected>
  /**
   * Puts back what the case changed that later cases rely on (a principal
   * that deactivated itself is reactivated). Runs after each case, whatever
   * its outcome.
   */
  readonly restore?: (fixture: Fixture) => Effect.Effect<void>
}

// -----------------------------------------------------------------------------
// expected answers

const error = (status: number, msg: string, code = "BAD_REQUEST", extra: Record<string, unknown> = {}) => ({
  status,
  body: { result: "error", msg, code, ...extra }
})

/** A refusal with Zulip's default status (400) and code (BAD_REQUEST) unless given. */
export const refused = (msg: string, code = "BAD_REQUEST", extra: Record<string, unknown> = {}): Expected =>
  error(400, msg, code, extra)

/** A 400 whose text names what the request made (a channel's name, an id). */
export const refusedWith = (
  msg: (fixture: Fixture, as: Principal, call: Call) => string,
  code = "BAD_REQUEST",
  extra: (call: Call) => Record<string, unknown> = () => ({})
): Expected => ({
  status: 400,
  body: (fixture: Fixture, as: Principal, call: Call) => ({
    result: "error",
    msg: msg(fixture, as, call),
    code,
    ...extra(call)
  })
})

/** No credentials on an authenticated route (Zulip's MissingAuthenticationError). */
export const notLoggedIn: Expected = {
  ...error(401, "Not logged in: API authentication or user session required", "UNAUTHORIZED"),
  headers: { "www-authenticate": "Basic realm=\"zulip\"" }
}

/** A deactivated account's key (validate_account_and_subdomain). */
export const accountDeactivated: Expected = error(401, "Account is deactivated", "USER_DEACTIVATED")

/** require_member_or_admin on a guest. */
export const notForGuests: Expected = refused("Not allowed for guest users")

/** require_member_or_admin / human_users_only on a bot. */
export const notForBots: Expected = refused("This endpoint does not accept bot requests.")

export const administratorRequired: Expected = refused("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")

/** A success with these facts of the body. */
export const ok = (
  facts: (fixture: Fixture, as: Principal, call: Call) => Record<string, unknown> = () => ({})
): Expected => ({
  status: 200,
  facts
})

/** A success whose whole body is `{"result":"success","msg":""}` plus `extra`. */
export const success = (extra: Record<string, unknown> = {}): Expected => ({
  status: 200,
  body: { result: "success", msg: "", ...extra }
})

/**
 * The expectations of an authenticated route: nobody gets 401 "Not logged
 * in", the deactivated user 401 "Account is deactivated", and each role what
 * is given.
 */
export const authenticated = (roles: Record<Role, Expected>): Record<Principal, Expected> => ({
  anonymous: notLoggedIn,
  deactivated: accountDeactivated,
  ...roles
})

/** An active account's role. */
export type Role = Exclude<Account, "deactivated">

/** Each role's answer. */
export const eachRole = (expected: (role: Role) => Expected): Record<Role, Expected> => ({
  owner: expected("owner"),
  admin: expected("admin"),
  moderator: expected("moderator"),
  member: expected("member"),
  guest: expected("guest"),
  bot: expected("bot")
})

/** Every principal the same answer (routes that need no credentials). */
export const everyone = (expected: Expected): Record<Principal, Expected> => ({
  anonymous: expected,
  deactivated: expected,
  ...allRoles(expected)
})

/** Every role the same answer. */
export const allRoles = (expected: Expected): Record<Role, Expected> => ({
  owner: expected,
  admin: expected,
  moderator: expected,
  member: expected,
  guest: expected,
  bot: expected
})
