/**
 * The fuzz suite, written once and run on every core backend. It reads the
 * served `/api/v1/openapi.json` and sends every operation in it bad input, in
 * two tests:
 *
 * - the sweep: every parameter, one at a time, with the values its kind
 *   (read from the document: JSON integer, boolean, list, free text …) most
 *   likely gets wrong (unsafe and fractional numbers, NUL bytes, lone
 *   surrogates, broken JSON, a megabyte, 100,000 ids), and every path
 *   parameter with odd ids (`-1`, `0`, `1.5`, `1e3`, `%00`, 100 digits …);
 * - generated cases (effect/Arbitrary, a fixed seed per operation): up to
 *   three mutations at once (missing, duplicated, unknown and wrongly typed
 *   parameters), over query strings, form and multipart bodies, JSON and
 *   text/plain bodies, and broken multipart (wrong or missing boundary, cut
 *   short), as an administrator, a member or nobody.
 *
 * For every request it asserts:
 *
 * - no 5xx and no hang, and the body is JSON;
 * - an error is Zulip-shaped (`result: "error"`, a string `msg` and `code`)
 *   and short (no megabyte echoed back), a success says `result: "success"`;
 * - the server still answers (GET /users/me succeeds afterwards);
 * - a refused request wrote nothing: a fingerprint of the organization's
 *   observable state (event log high-water mark, realms, users, groups,
 *   channels, subscriptions, and the actors' settings, alert words,
 *   scheduled messages, message rows and event queues) is the same after it.
 *
 * Operations come from the document, so a new endpoint is fuzzed without new
 * code. Failures are collected over all operations and reported together,
 * each with the exact request (values percent-encoded, long ones cut), and
 * for generated cases the seed and replay token. `TEAMCHAT_FUZZ_SEED` changes
 * the seed and `TEAMCHAT_FUZZ_RUNS` scales the number of generated cases.
 */
import { assert, describe, layer } from "@effect/vitest"
import { userId } from "@teamchat/core/domain/Ids"
import { EventStore } from "@teamchat/core/ports/EventStore"
import type { UserId } from "@teamchat/core/domain/Ids"
import { AlertWordRepo, MessageRepo, UserRepo, UserSettingsRepo } from "@teamchat/core/ports/Repositories"
import { ScheduledMessageRepo } from "@teamchat/core/ports/ScheduledMessageRepo"
import { Users } from "@teamchat/core/services/Users"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Backend, Credentials } from "../support/Harness.ts"
import { changedParts, fingerprint } from "../support/Fingerprint.ts"
import {
  accounts,
  basic,
  demoLayer,
  demoPassword,
  epoch,
  layerServer,
  realmUrl,
  Server,
  withEventQueuesConfig
} from "../support/Harness.ts"

// -----------------------------------------------------------------------------
// settings

/** The base seed; each operation's seed is this plus the operation. */
export const fuzzSeed = process.env.TEAMCHAT_FUZZ_SEED ?? "teamchat-fuzz-1"

/** Scales the number of runs per operation (`TEAMCHAT_FUZZ_RUNS=4` searches four times deeper). */
const runScale = Number(process.env.TEAMCHAT_FUZZ_RUNS ?? 1)

/** Memory is quick, so it searches further; SQL backends stay under a minute on two cores. */
const backendScale: Record<Backend, number> = { memory: 3, PGlite: 1, PostgreSQL: 1 }

/**
 * Generated cases for an operation: more parameters, more cases, bounded so
 * a backend's run stays short (the sweep already tries each parameter alone).
 */
const runsFor = (operation: Operation, backend: Backend) =>
  Math.max(1, Math.round(runScale * backendScale[backend] * Math.min(10 + operation.parameters.length, 30)))

/** A request that has not answered by then is reported as a hang. */
const answerTimeout = "20 seconds"

// -----------------------------------------------------------------------------
// the document

interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "body"
  readonly required: boolean
  readonly schema: { readonly type?: string; readonly enum?: ReadonlyArray<unknown> }
  readonly description: string
}

interface Operation {
  readonly method: string
  /** The path template, e.g. `/api/v1/messages/{message_id}`. */
  readonly path: string
  readonly parameters: ReadonlyArray<Parameter>
}

const methods = ["get", "post", "put", "patch", "delete"]

/** Every operation of an OpenAPI 3 document, with its parameters and form/JSON body properties. */
const operationsOf = (document: any): ReadonlyArray<Operation> => {
  const out: Array<Operation> = []
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of methods) {
      const op = item[method]
      if (op === undefined) continue
      const parameters: Array<Parameter> = []
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const resolved = p.$ref === undefined ? p : resolveRef(document, p.$ref)
        if (resolved.in !== "path" && resolved.in !== "query") continue
        const schema = resolveSchema(document, resolved.schema ?? {})
        parameters.push({
          name: resolved.name,
          in: resolved.in,
          required: resolved.required === true,
          schema,
          description: `${resolved.description ?? ""} ${schema.description ?? ""}`
        })
      }
      for (const media of Object.values<any>(op.requestBody?.content ?? {})) {
        const schema = resolveSchema(document, media.schema ?? {})
        const required = new Set<string>(schema.required ?? [])
        for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
          if (parameters.some((p) => p.name === name)) continue
          const resolved = resolveSchema(document, property)
          parameters.push({
            name,
            in: "body",
            required: required.has(name),
            schema: resolved,
            description: resolved.description ?? ""
          })
        }
      }
      out.push({ method: method.toUpperCase(), path, parameters })
    }
  }
  return out
}

const resolveRef = (document: any, ref: string): any =>
  ref.replace(/^#\//, "").split("/").reduce((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document)

const resolveSchema = (document: any, schema: any): any =>
  schema?.$ref === undefined ? schema : resolveSchema(document, resolveRef(document, schema.$ref))

// -----------------------------------------------------------------------------
// values

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)
const raw = (...octets: Array<number>): Uint8Array => Uint8Array.from(octets)
const concat = (...parts: Array<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const megabyte = 1 << 20
const manyIds = `[${Array.from({ length: 100_000 }, (_, i) => i + 1).join(",")}]`

/**
 * Bad values, as the bytes sent (percent-encoded in URLs and form bodies,
 * raw in multipart): numbers no id or count may be, broken JSON, wrong JSON
 * types, NUL bytes, a lone surrogate (in UTF-8 and as a JSON escape),
 * invalid UTF-8, and megabytes.
 */
const badValues: ReadonlyArray<Uint8Array> = [
  bytes(""),
  bytes("1.5"),
  bytes("-1"),
  bytes("0"),
  bytes("1e20"),
  bytes("9007199254740993"),
  bytes("9223372036854775808"),
  bytes("-9223372036854775808"),
  bytes("NaN"),
  bytes("Infinity"),
  bytes("-Infinity"),
  bytes("1e309"),
  bytes("1e3"),
  bytes("0x10"),
  bytes(" 1"),
  bytes("1".padEnd(100, "0")),
  bytes("true"),
  bytes("null"),
  bytes("abc"),
  bytes("["),
  bytes("{\"a\":"),
  bytes("[1,"),
  bytes("{}"),
  bytes("[]"),
  bytes("[[]]"),
  bytes("[{}]"),
  bytes("[null]"),
  bytes("[1.5]"),
  bytes("[1e20]"),
  bytes("[-1]"),
  bytes("[9007199254740993]"),
  bytes("[\"a\"]"),
  bytes("\"\\u0000\""),
  bytes("[\"\\ud800\"]"),
  bytes("[{\"name\":\"\\u0000\"}]"),
  bytes("[{\"name\":\"\\ud800\"}]"),
  bytes("[{\"name\":1e20}]"),
  bytes("[{\"stream_id\":1.5,\"property\":\"color\",\"value\":\"#000000\"}]"),
  bytes("[[\"channel\",\"\\u0000\"]]"),
  bytes("[{\"operator\":\"id\",\"operand\":1e20}]"),
  raw(0),
  bytes("a\u0000b"),
  raw(0xed, 0xa0, 0x80),
  concat(bytes("a"), raw(0xed, 0xa0, 0x80), bytes("b")),
  raw(0xff, 0xfe),
  bytes("\u202e\u{1f642}"),
  bytes("x".repeat(megabyte)),
  bytes("9".repeat(megabyte)),
  bytes(`"${"x".repeat(megabyte)}"`),
  bytes(manyIds),
  bytes("[".repeat(100_000)),
  bytes(`${"[".repeat(5_000)}${"]".repeat(5_000)}`)
]

/** Names no endpoint declares, including ones that are special on JavaScript objects. */
const unknownNames: ReadonlyArray<Uint8Array> = [
  bytes("fuzz_unknown"),
  bytes("__proto__"),
  bytes("constructor"),
  bytes("toString"),
  bytes(""),
  bytes("a\u0000b"),
  raw(0xed, 0xa0, 0x80),
  bytes("n".repeat(megabyte))
]

/** Path segments, already encoded; the first few name things that exist or at least look like ids. */
const pathSegments = (valid: string): ReadonlyArray<string> => [
  valid,
  "-1",
  "0",
  "1.5",
  "1e3",
  "%00",
  "1".padEnd(100, "0"),
  "abc",
  "9007199254740993",
  "9223372036854775808",
  "NaN",
  "%ED%A0%80",
  "%FF",
  "%20",
  "x".repeat(megabyte)
]

const segmentCount = pathSegments("1").length

// -----------------------------------------------------------------------------
// cases

/** Who sends a request. */
type Actor = "admin" | "member" | "nobody"

interface Fixture {
  readonly credentials: Record<"admin" | "member", Credentials & { readonly userId: number }>
  /** An event queue of each actor (POST /register at the start). */
  readonly queues: Record<"admin" | "member", string>
}

/** Plausible values for well-known parameter names (any other name is read from the document). */
const hintsFor = (plan: Pick<Plan, "actor" | "variant">, fixture: Fixture): Record<string, string> => {
  const who = plan.actor === "nobody" ? "admin" : plan.actor
  const userId = fixture.credentials[who].userId
  return {
    queue_id: fixture.queues[who],
    username: accounts[who],
    password: "not the password",
    // The real password, so a refused settings change has a password change beside it to leave undone.
    old_password: demoPassword,
    new_password: "fuzz: a new password",
    narrow: "[]",
    anchor: "newest",
    num_before: "1",
    num_after: "1",
    op: "add",
    flag: "read",
    // A channel id or a list of users, as `type` (an enum, so it follows the variant) may want.
    to: plan.variant % 2 === 1 ? "1" : `[${userId}]`,
    content: "fuzz",
    topic: "fuzz",
    topic_name: "fuzz",
    scheduled_delivery_timestamp: String(Math.floor(epoch / 1000) + 86_400),
    subscription_data: "[{\"stream_id\":1,\"property\":\"pin_to_top\",\"value\":true}]",
    user_id_or_email: String(userId)
  }
}

/**
 * A plausible value for a parameter, so that one bad parameter is seen
 * beside good ones and requests reach the handlers: a hint for a well-known
 * name, else read from the document's schema and description.
 */
const plausible = (parameter: Parameter, plan: Pick<Plan, "actor" | "variant">, fixture: Fixture): string => {
  const hints = hintsFor(plan, fixture)
  if (Object.hasOwn(hints, parameter.name)) return hints[parameter.name]!
  const members = parameter.schema.enum
  if (members !== undefined && members.length > 0) return String(members[plan.variant % members.length])
  const description = parameter.description
  if (/JSON boolean/.test(description)) return "true"
  if (/JSON integer/.test(description)) return "1"
  if (/JSON list of integers|list of user ids/i.test(description)) return "[1]"
  if (/\{\\?"name\\?"/.test(description)) return "[{\"name\":\"fuzz\"}]"
  if (/JSON list/.test(description)) return "[\"fuzz\"]"
  if (/JSON object/.test(description)) return "{}"
  if (parameter.in === "path") return "1"
  return "fuzz"
}

/** How the parameters travel. */
const transports = [
  "query",
  "form",
  "multipart",
  /** Query and form body alternately, so a duplicate may sit in both. */
  "split",
  /** A JSON body, which Zulip does not read. */
  "json",
  /** A form body labelled text/plain. */
  "text/plain",
  /** A multipart body whose boundary is not the one the header names. */
  "multipart: wrong boundary",
  /** A multipart body cut before its closing boundary. */
  "multipart: truncated",
  /** A multipart content type without a boundary. */
  "multipart: no boundary",
  /** A form body followed by broken percent-escapes and empty pairs. */
  "form: broken escapes"
] as const

/** What a mutation does to the plausible request. */
const mutationKinds = [
  /** Leaves the parameter out. */
  "drop",
  /** Gives the parameter a bad value. */
  "bad",
  /** Sends the parameter twice: plausible, then bad. */
  "duplicate: bad last",
  /** Sends the parameter twice: bad, then plausible. */
  "duplicate: bad first",
  /** Adds a parameter no endpoint declares. */
  "unknown",
  /** Adds an optional parameter with a plausible value. */
  "plausible"
] as const

const Pool = (n: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Math.max(0, n - 1) }))

/** A generated case: indexes into the pools above, so shrinking moves toward the first (simplest) entries. */
const Case = Schema.Struct({
  /** Index into `senders`. */
  actor: Pool(5),
  transport: Pool(transports.length),
  /** Which member every enum parameter takes (e.g. a channel or a direct message). */
  variant: Pool(8),
  /** Whether the usual optional parameters start plausible (see `Plan`). */
  optional: Schema.Boolean,
  /** Which segment every path parameter gets (index into `pathSegments`; half the cases keep the plausible one). */
  segment: Pool(2 * segmentCount),
  mutations: Schema.Array(Schema.Struct({
    kind: Pool(mutationKinds.length),
    /** Which parameter (modulo the operation's count). */
    parameter: Pool(128),
    value: Pool(Math.max(badValues.length, unknownNames.length))
  })).check(Schema.isMinLength(1), Schema.isMaxLength(3))
})
type Case = typeof Case.Type

const cases = Arbitrary.schema(Case)

/** One request to send, before it is built against an operation. */
interface Plan {
  readonly actor: Actor
  readonly transport: (typeof transports)[number]
  readonly variant: number
  /**
   * Whether the optional parameters a client usually sends (typed ones and
   * those with a hint, not other free text such as names) start plausible
   * too; otherwise only the required ones do.
   */
  readonly optional: boolean
  /** The segment each path parameter gets (index into `pathSegments`; 0 is the plausible one). */
  readonly segment: (parameter: Parameter) => number
  readonly mutations: ReadonlyArray<{
    readonly kind: (typeof mutationKinds)[number]
    readonly parameter: number
    readonly value: Uint8Array
    /** The name an `unknown` mutation adds. */
    readonly name: Uint8Array
  }>
}

/** Who sends a generated case: mostly someone, so that most requests get past authentication. */
const senders: ReadonlyArray<Actor> = ["admin", "member", "admin", "member", "nobody"]

const planOf = (input: Case): Plan => ({
  actor: senders[input.actor]!,
  optional: input.optional,
  transport: transports[input.transport]!,
  variant: input.variant,
  segment: () => (input.segment < segmentCount ? input.segment : 0),
  mutations: input.mutations.map((m) => ({
    kind: mutationKinds[m.kind]!,
    parameter: m.parameter,
    value: badValues[m.value % badValues.length]!,
    name: unknownNames[m.value % unknownNames.length]!
  }))
})

/**
 * What a parameter holds, read from the document (its description says
 * "JSON integer", "JSON boolean", "JSON list of integers" …), for the sweep.
 */
const classOf = (parameter: Parameter) => {
  if (parameter.in === "path") return "path"
  if (parameter.schema.enum !== undefined) return "enum"
  const description = parameter.description
  if (/JSON boolean/.test(description)) return "boolean"
  if (/JSON integer/.test(description)) return "integer"
  if (/JSON list of integers|list of user ids/i.test(description)) return "integers"
  if (/JSON (list|object)/.test(description)) return "json"
  return "string"
}

type ValueClass = Exclude<ReturnType<typeof classOf>, "path">

/**
 * The sweep's values per class: what each kind of parameter is most likely
 * to get wrong. The sweep alternates baselines by position (see `sweepOf`),
 * so each kind of value sits at an even and at an odd position.
 */
const sweepValues: Record<ValueClass, ReadonlyArray<Uint8Array>> = {
  integer: [bytes("1.5"), bytes("1e20"), bytes("9007199254740993"), bytes("-1"), bytes("NaN"), bytes("0.5")],
  /** Lists of ids; Zulip's list parameters often take a lone id too. */
  integers: [
    bytes("1.5"),
    bytes("1e20"),
    bytes("9223372036854775808"),
    bytes("[1.5]"),
    bytes("[1e20]"),
    bytes("[9223372036854775808]"),
    bytes(manyIds),
    bytes("[")
  ],
  /** Every boolean goes through one codec; one wrong value each is enough. */
  boolean: [bytes("\"\\u0000\"")],
  json: [
    bytes("["),
    bytes("[\"\\u0000\"]"),
    bytes("[{\"name\":\"\\ud800\"}]"),
    bytes(`${"[".repeat(5_000)}${"]".repeat(5_000)}`),
    bytes(manyIds)
  ],
  enum: [bytes("a\u0000b"), bytes("x".repeat(megabyte))],
  string: [
    bytes("a\u0000b"),
    raw(0),
    concat(bytes("a"), raw(0xed, 0xa0, 0x80), bytes("b")),
    bytes("x".repeat(megabyte)),
    bytes("1.5"),
    bytes("9223372036854775808")
  ]
}

/**
 * The sweep: every parameter of the operation with each value of its class
 * (and every path parameter with each odd segment), one at a time, beside
 * plausible values for the rest. Values alternate actors, transports,
 * variants and baselines (the values are ordered so each kind meets both),
 * so e.g. `to` meets both channel and direct messages, and `queue_id` a
 * request with and without `last_event_id`.
 */
const sweepOf = (operation: Operation): ReadonlyArray<{ readonly plan: Plan; readonly label: string }> => {
  const out: Array<{ readonly plan: Plan; readonly label: string }> = []
  const valueParameters = operation.parameters.filter((p) => p.in !== "path")
  const bodyTransports = operation.method === "GET" ? ["query"] as const : ["query", "form", "multipart"] as const
  const plan = (i: number, rest: Pick<Plan, "segment" | "mutations">): Plan => ({
    actor: i % 2 === 0 ? "admin" : "member",
    optional: i % 2 === 1,
    transport: bodyTransports[i % bodyTransports.length]!,
    variant: i,
    ...rest
  })
  for (const p of operation.parameters) {
    if (p.in === "path") {
      for (let i = 1; i < segmentCount; i++) {
        out.push({ plan: plan(i, { segment: (q) => (q === p ? i : 0), mutations: [] }), label: `${p.name} #${i}` })
      }
      continue
    }
    const values = sweepValues[classOf(p) as ValueClass]
    const index = valueParameters.indexOf(p)
    values.forEach((value, i) => {
      out.push({
        plan: plan(i, { segment: () => 0, mutations: [{ kind: "bad", parameter: index, value, name: value }] }),
        label: `${p.name} #${i}`
      })
    })
  }
  return out
}

// -----------------------------------------------------------------------------
// requests

const percentEscapes = Array.from({ length: 256 }, (_, byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
const encoded = new WeakMap<Uint8Array, string>()

/** Percent-encodes every byte outside the unreserved set (remembered: values come from fixed pools and are large). */
const encode = (value: Uint8Array): string => {
  const known = encoded.get(value)
  if (known !== undefined) return known
  const text = Buffer.from(value.buffer, value.byteOffset, value.length)
    .toString("latin1")
    .replace(/[^A-Za-z0-9\-._~]/g, (c) => percentEscapes[c.charCodeAt(0)]!)
  encoded.set(value, text)
  return text
}

/** A value as a failure message shows it: percent-encoded, long ones cut. */
const show = (value: Uint8Array): string => {
  const text = encode(value)
  return text.length <= 60 ? text : `${text.slice(0, 40)}…(${value.length} bytes)`
}

type Pair = readonly [name: Uint8Array, value: Uint8Array]

interface Built {
  readonly request: Request
  /** The request as a failure message shows it. */
  readonly description: string
}

const multipartBody = (boundary: string, pairs: ReadonlyArray<Pair>, close: boolean): Uint8Array =>
  concat(
    ...pairs.flatMap(([name, value]) => [
      bytes(`--${boundary}\r\nContent-Disposition: form-data; name="`),
      name,
      bytes("\"\r\n\r\n"),
      value,
      bytes("\r\n")
    ]),
    bytes(close ? `--${boundary}--\r\n` : "")
  )

const formBody = (pairs: ReadonlyArray<Pair>): string => pairs.map(([n, v]) => `${encode(n)}=${encode(v)}`).join("&")

const build = (operation: Operation, plan: Plan, fixture: Fixture): Built => {
  const actor = plan.actor
  const parameters = operation.parameters
  const pathParameters = parameters.filter((p) => p.in === "path")
  const valueParameters = parameters.filter((p) => p.in !== "path")

  // The path, each parameter from the odd segments.
  let path = operation.path
  for (const p of pathParameters) {
    const segments = pathSegments(encode(bytes(plausible(p, plan, fixture))))
    path = path.replace(`{${p.name}}`, segments[plan.segment(p) % segments.length]!)
  }

  // The plausible parameters: the required ones, and the usual optional ones if asked.
  const hinted = hintsFor(plan, fixture)
  const pairs: Array<Pair> = valueParameters
    .filter((p) => p.required || (plan.optional && (classOf(p) !== "string" || Object.hasOwn(hinted, p.name))))
    .map((p) => [bytes(p.name), bytes(plausible(p, plan, fixture))] as const)
  for (const mutation of plan.mutations) {
    const kind = mutation.kind
    if (kind === "unknown") {
      pairs.push([mutation.name, mutation.value])
      continue
    }
    if (valueParameters.length === 0) continue
    const p = valueParameters[mutation.parameter % valueParameters.length]!
    const name = bytes(p.name)
    const good = bytes(plausible(p, plan, fixture))
    const bad = mutation.value
    const at = pairs.findIndex(([n]) => new TextDecoder().decode(n) === p.name)
    const without = () => {
      if (at >= 0) pairs.splice(at, 1)
    }
    switch (kind) {
      case "drop":
        without()
        break
      case "bad":
        if (at >= 0) pairs[at] = [name, bad]
        else pairs.push([name, bad])
        break
      case "duplicate: bad last":
        without()
        pairs.push([name, good], [name, bad])
        break
      case "duplicate: bad first":
        without()
        pairs.push([name, bad], [name, good])
        break
      case "plausible":
        if (at < 0) pairs.push([name, good])
        break
    }
  }

  const hasBody = operation.method !== "GET" && operation.method !== "HEAD"
  const transport = hasBody ? plan.transport : "query"
  const headers = new Headers()
  if (actor !== "nobody") {
    const credentials = fixture.credentials[actor]
    headers.set("authorization", basic(credentials.email, credentials.apiKey))
  }
  const queryPairs: Array<Pair> = []
  let body: Uint8Array | undefined
  let shownBody = ""
  const boundary = "fuzzboundary7MA4YWxkTrZu0gW"
  switch (transport) {
    case "query":
      queryPairs.push(...pairs)
      break
    case "form":
    case "text/plain":
    case "form: broken escapes": {
      const suffix = transport === "form: broken escapes" ? "&%ZZ=%E0%A4%A&=&&==&%" : ""
      body = bytes(formBody(pairs) + suffix)
      headers.set(
        "content-type",
        transport === "text/plain" ? "text/plain" : "application/x-www-form-urlencoded"
      )
      shownBody = pairs.map(([n, v]) => `${show(n)}=${show(v)}`).join("&") + suffix
      break
    }
    case "split": {
      const inBody = pairs.filter((_, i) => i % 2 === 1)
      queryPairs.push(...pairs.filter((_, i) => i % 2 === 0))
      body = bytes(formBody(inBody))
      headers.set("content-type", "application/x-www-form-urlencoded")
      shownBody = inBody.map(([n, v]) => `${show(n)}=${show(v)}`).join("&")
      break
    }
    case "json": {
      const record: Record<string, string> = {}
      for (const [n, v] of pairs) record[new TextDecoder().decode(n)] = new TextDecoder().decode(v)
      body = bytes(JSON.stringify(record))
      headers.set("content-type", "application/json")
      shownBody = `JSON ${pairs.map(([n, v]) => `${show(n)}=${show(v)}`).join(", ")}`
      break
    }
    case "multipart":
    case "multipart: wrong boundary":
    case "multipart: truncated":
    case "multipart: no boundary": {
      body = multipartBody(boundary, pairs, transport !== "multipart: truncated")
      headers.set(
        "content-type",
        transport === "multipart: wrong boundary"
          ? "multipart/form-data; boundary=notTheBoundary"
          : transport === "multipart: no boundary"
          ? "multipart/form-data"
          : `multipart/form-data; boundary=${boundary}`
      )
      shownBody = `multipart ${pairs.map(([n, v]) => `${show(n)}=${show(v)}`).join(", ")}`
      break
    }
  }
  const query = queryPairs.length === 0 ? "" : `?${formBody(queryPairs)}`
  const url = `${realmUrl}${path}${query}`
  const request = new Request(url, { method: operation.method, headers, ...(body === undefined ? {} : { body }) })
  const shownQuery = queryPairs.length === 0 ? "" : `?${queryPairs.map(([n, v]) => `${show(n)}=${show(v)}`).join("&")}`
  const shownPath = path.length <= 200 ? path : `${path.slice(0, 60)}…(${path.length} chars)`
  const description = [
    `${operation.method} ${shownPath}${shownQuery}`,
    `  as ${actor === "nobody" ? "nobody (no credentials)" : accounts[actor]}, ${transport}`,
    ...(shownBody === "" ? [] : [`  content-type: ${headers.get("content-type")}`, `  body: ${shownBody}`])
  ].join("\n")
  return { request, description }
}

// -----------------------------------------------------------------------------
// the checks

interface Answer {
  readonly status: number
  readonly text: string
  readonly json: unknown
}

const excerpt = (text: string) => (text.length <= 200 ? text : `${text.slice(0, 200)}…(${text.length} chars)`)

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined // reported by the checks: every answer must be JSON
  }
}

const send = (handler: (request: Request) => Promise<Response>, request: Request) =>
  Effect.tryPromise({
    try: async (): Promise<Answer> => {
      const response = await handler(request)
      const text = await response.text()
      return { status: response.status, text, json: parseJson(text) }
    },
    catch: (cause) => `the handler threw: ${String(cause)}`
  }).pipe(
    Effect.timeoutOrElse({
      duration: answerTimeout,
      orElse: () => Effect.fail(`no answer within ${answerTimeout}`)
    })
  )

/** Zulip's error texts are short; a longer one echoes a (megabyte) input whole. */
const maxErrorLength = 10_000

/**
 * The answers of the download of uploads (GET /user_uploads/{realm_id}/…,
 * outside /api/v1) and of its temporary URL (GET /api/v1/user_uploads/…,
 * which refuses as the download does, before it would answer JSON) that are
 * not JSON, as Zulip's: its HTML 404 and 403.
 */
const downloadAnswers: ReadonlyMap<number, string> = new Map([
  [404, "<p>This file does not exist or has been deleted.</p>"],
  [403, "<p>You are not authorized to view this file.</p>"]
])

/** Why an answer is wrong, or undefined. */
const wrongAnswer = (answer: Answer, operation?: Operation): string | undefined => {
  if (answer.status >= 500) return `status ${answer.status}`
  const isFile = operation !== undefined &&
    (operation.path.startsWith("/user_uploads/") || operation.path.startsWith("/api/v1/user_uploads/"))
  if (isFile && answer.json === undefined) {
    // A file's bytes are its own; a refusal is one of Zulip's two HTML answers.
    if (answer.status < 300) return undefined
    return downloadAnswers.get(answer.status) === answer.text ? undefined : "the download's refusal is not Zulip's HTML"
  }
  const body = answer.json as Record<string, unknown> | undefined
  if (body === undefined || typeof body !== "object" || body === null) return "the body is not a JSON object"
  if (answer.status >= 400) {
    if (body.result !== "error" || typeof body.msg !== "string" || typeof body.code !== "string") {
      return "the error is not Zulip-shaped (result: \"error\", msg and code strings)"
    }
    if (answer.text.length > maxErrorLength) {
      return `the error is ${answer.text.length} characters long: it echoes the input uncut`
    }
    return undefined
  }
  if (body.result !== "success" || typeof body.msg !== "string") return "the success is not Zulip-shaped"
  return undefined
}

/** The fingerprint of support/Fingerprint.ts with the actors' own rows. */
const actorsFingerprint = (fixture: Fixture) =>
  fingerprint((["admin", "member"] as const).flatMap((actor) => {
    const id = userId(fixture.credentials[actor].userId)
    return [
      [`${actor} settings`, UserSettingsRepo.use((settings) => settings.get(id))],
      [`${actor} alert words`, AlertWordRepo.use((words) => words.list(id))],
      [`${actor} scheduled messages`, ScheduledMessageRepo.use((scheduled) => scheduled.listUndelivered(id))],
      [
        `${actor} message flags`,
        MessageRepo.use((messages) =>
          Effect.map(messages.listByFlags(id, 0, 0), (rows) => rows.map((row) => [row.message.id, row.flags]))
        )
      ],
      [`${actor} event queue`, EventStore.use((events) => events.findQueue(fixture.queues[actor]))]
    ] as const
  }))

// -----------------------------------------------------------------------------
// the suite

/** What both tests share: the operations, the actors and a way to send one planned request and check it. */
const makeFuzzer = Effect.gen(function*() {
  const server = yield* Server
  const document = yield* server.fetch("GET", "/api/v1/openapi.json")
  assert.strictEqual(document.status, 200, document.text)
  const operations = operationsOf(document.json)
  assert.isAbove(operations.length, 0, "the document lists operations")

  const admin = yield* server.login(accounts.admin)
  const member = yield* server.login(accounts.member)
  const register = (credentials: Credentials) =>
    Effect.map(server.fetch("POST", "/api/v1/register", { as: credentials }), (reply) => {
      assert.strictEqual(reply.status, 200, reply.text)
      return reply.json.queue_id as string
    })
  const fixture: Fixture = {
    credentials: { admin, member },
    queues: { admin: yield* register(admin), member: yield* register(member) }
  }

  /**
   * The state before the next request: taken after each refused one (which
   * must have left it as it was), dropped after anything else.
   */
  let known: Record<string, string> | undefined
  const state = server.core(actorsFingerprint(fixture))

  /**
   * DELETE /users/me deactivates its sender and the bots they own; who was
   * active among them before it is reactivated after it, so the fuzz goes on
   * as that actor.
   */
  const selfDeactivation = (operation: Operation) => operation.method === "DELETE" && operation.path === "/api/v1/users/me"
  const activeAccountsOf = (actor: "admin" | "member") =>
    server.core(Effect.gen(function*() {
      const repo = yield* UserRepo
      const me = (yield* repo.findById(userId(fixture.credentials[actor].userId)))!
      const all = yield* repo.listByRealm(me.realm_id)
      return all.filter((u) => u.is_active && (u.id === me.id || u.bot_owner_id === me.id)).map((u) => u.id)
    }))
  const reactivateAll = (ids: ReadonlyArray<UserId>) =>
    server.core(Effect.gen(function*() {
      const users = yield* Users
      for (const id of ids) if ((yield* users.findById(id))?.is_active === false) yield* users.reactivate(id)
    }).pipe(Effect.orDie))

  /** Sends the planned request and checks it; fails with what went wrong and the request. */
  const check = (operation: Operation, plan: Plan): Effect.Effect<boolean, string> =>
    Effect.gen(function*() {
      const restore = plan.actor !== "nobody" && selfDeactivation(operation) ? yield* activeAccountsOf(plan.actor) : []
      const { description, request } = build(operation, plan, fixture)
      const fail = (why: string, answer?: Answer) =>
        Effect.fail(
          `${why}\n${description}` +
            (answer === undefined ? "" : `\n  → ${answer.status} ${excerpt(answer.text)}`)
        )
      const before = known ?? (yield* state)
      known = undefined
      const answer = yield* Effect.mapError(send(server.handler, request), (why) => `${why}\n${description}`)
      if (answer.status < 400) yield* reactivateAll(restore)
      const wrong = wrongAnswer(answer, operation)
      if (wrong !== undefined) return yield* fail(wrong, answer)
      if (answer.status >= 400) {
        const after = yield* state
        const changed = changedParts(before, after)
        if (changed.length > 0) return yield* fail(`a refused request wrote: ${changed.join(", ")}`, answer)
        known = after
      }
      const who = plan.actor === "nobody" ? admin : fixture.credentials[plan.actor]
      const me = yield* server.fetch("GET", "/api/v1/users/me", { as: who })
      if (me.status !== 200) {
        return yield* fail(`the server no longer answers GET /users/me (${me.status} ${excerpt(me.text)})`, answer)
      }
      return true
    })

  return { operations, check }
})

const report = (backend: Backend, what: string, operations: number, failures: ReadonlyArray<string>) =>
  `${failures.length} failures in ${what} over ${operations} operations on ${backend}` +
  ` (TEAMCHAT_FUZZ_SEED=${fuzzSeed}):\n\n${failures.join("\n\n")}\n`

/** Blocking polls get their heartbeat at once instead of after 45 s. */
export const fuzzEventQueues = { heartbeatMinMs: 10, heartbeatMaxMs: 20 }

/**
 * The suite on `backend`, served by `server` (by default one server over
 * the demo organization; the PostgreSQL run passes two workers).
 */
export const fuzzSuite = (
  backend: Backend,
  server: Layer.Layer<Server, unknown> = layerServer((clock) =>
    withEventQueuesConfig(demoLayer(backend, clock), fuzzEventQueues)
  )
) =>
  describe(`fuzz over HTTP on ${backend}`, () => {
    layer(
      server,
      { timeout: "180 seconds", excludeTestServices: true }
    )((it) => {
      it.effect(
        "every parameter and path id of the served OpenAPI document, one bad value at a time",
        () =>
          Effect.gen(function*() {
            const { check, operations } = yield* makeFuzzer
            const failures: Array<string> = []
            for (const operation of operations) {
              // One failure per parameter is enough to report; the other failing values are named.
              const failed = new Map<string, { first: string; others: Array<string> }>()
              for (const { label, plan } of sweepOf(operation)) {
                const parameter = label.split(" #")[0]!
                const error = yield* Effect.match(check(operation, plan), {
                  onFailure: (why) => why,
                  onSuccess: () => undefined
                })
                if (error === undefined) continue
                const seen = failed.get(parameter)
                if (seen === undefined) failed.set(parameter, { first: error, others: [] })
                else seen.others.push(label)
              }
              for (const [parameter, { first, others }] of failed) {
                failures.push(
                  `${operation.method} ${operation.path}, ${parameter}:\n${first}` +
                    (others.length === 0 ? "" : `\n  (also failing: ${others.join(", ")})`)
                )
              }
            }
            assert.strictEqual(failures.length, 0, report(backend, "the sweep", operations.length, failures))
          }),
        { timeout: 600_000 }
      )

      it.effect(
        "every operation of the served OpenAPI document survives generated bad input",
        () =>
          Effect.gen(function*() {
            const { check, operations } = yield* makeFuzzer
            const failures: Array<string> = []
            for (const operation of operations) {
              const seed = `${fuzzSeed}:${operation.method} ${operation.path}`
              const result = yield* Arbitrary.checkEffect(cases, (input) => check(operation, planOf(input)), {
                seed,
                runs: runsFor(operation, backend),
                maxShrinks: 12
              })
              if (result._tag === "Passed") continue
              const why = result._tag === "Falsified" && result.failure._tag === "PropertyError"
                ? result.failure.error
                : Arbitrary.formatCheckFailure(result)
              failures.push(
                `${operation.method} ${operation.path} (seed "${seed}"` +
                  (result._tag === "Falsified" ? `, run ${result.runs}, replay ${result.replay}` : "") +
                  `):\n${why}`
              )
            }
            assert.strictEqual(failures.length, 0, report(backend, "generated cases", operations.length, failures))
          }),
        { timeout: 600_000 }
      )
    })
  })
