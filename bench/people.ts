/**
 * The organization the in-process endpoint benchmarks (drafts, invites,
 * presence, push) measure in: the demo organization plus `size` members,
 * each with the HTTP Basic credentials its requests carry.
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { realmId } from "@teamchat/core/domain/Ids"
import { Users } from "@teamchat/core/services/Users"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { makeWebHandler } from "@teamchat/http/Http"

/** HTTP Basic credentials: an address and its API key. */
export const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

/** Seeds the demo organization at `origin` and `size` members; returns each member's `authorization` header. */
export const seedPeople = (origin: string, size: number) =>
  Effect.gen(function*() {
    yield* DemoOrganization.seed(origin)
    const users = yield* Users
    const out: Array<string> = []
    for (let i = 0; i < size; i++) {
      const user = yield* users.create(realmId(1), { email: `person${i}@zulip.com`, full_name: `Person ${i}`, role: 400 })
      out.push(basic(user.delivery_email, user.api_key))
    }
    return out
  })

/**
 * `core` built in a scope of its own, the demo organization and `size`
 * members seeded at `origin`, and the web handler over it (no sockets): what
 * each in-process endpoint benchmark measures against. `close` disposes of
 * the handler and the core.
 */
export const openInProcess = async (
  core: Layer.Layer<any, any, never>,
  origin: string,
  size: number,
  log: (line: string) => void
) => {
  const scope = Effect.runSync(Scope.make())
  const closeScope = () => Effect.runPromise(Scope.close(scope, Exit.void))
  try {
    const context = await Effect.runPromise(Layer.buildWithScope(core, scope))
    log(`seeding the demo organization and ${size} users`)
    const auth = await Effect.runPromise(
      Effect.provideContext(seedPeople(origin, size), context as Context.Context<any>) as Effect.Effect<Array<string>>
    )
    // The ratios here put an endpoint's cost beside the cost of the plainest
    // request through the same routes.
    const { dispose, handler } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
    const close = async () => {
      await dispose()
      await closeScope()
    }
    return { auth, handler, close }
  } catch (error) {
    await closeScope()
    throw error
  }
}
