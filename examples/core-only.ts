/**
 * The teamchat domain without HTTP: `@teamchat/core` used directly from a
 * TypeScript program, e.g. a provisioning script or another server's
 * back end. It creates an organization with its owner, two channels and a
 * member, then lists the channels as that member sees them through the API.
 *
 *   . scripts/env.sh     # once per shell, from the repository root: Node 22 on PATH
 *   node examples/core-only.ts
 *
 * Everything runs in memory; to keep the data, provide
 * `Teamchat.layerServices` with `Persistence.layerPglite(dir)` or
 * `Persistence.layerPostgres(url)` instead (docs/embedding.md, "Choosing a
 * backend"). examples/send-and-read.ts sends and reads messages.
 */
import { Channels, Organizations, Teamchat, Users } from "@teamchat/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"

export const program = Effect.gen(function*() {
  const organizations = yield* Organizations.Organizations
  const users = yield* Users.Users
  const channels = yield* Channels.Channels

  const { owner, realm } = yield* organizations.create({
    string_id: "acme",
    name: "Acme",
    url: "https://chat.acme.test",
    owner: { email: "boss@acme.test", full_name: "The Boss", password: "correct horse battery staple" }
  })
  const general = yield* channels.create(realm.id, { name: "general", description: "Everything", creator_id: owner!.id })
  yield* channels.create(realm.id, { name: "leadership", description: "Owners only", invite_only: true, creator_id: owner!.id })

  const ann = yield* users.create(realm.id, { email: "ann@acme.test", full_name: "Ann", role: 400 })
  yield* channels.subscribe(general.id, [owner!.id, ann.id])

  // What GET /api/v1/streams would answer Ann: the private channel is hidden.
  const visible = yield* channels.list({ user: ann, realm }, Channels.defaultListChannelsOptions)
  yield* Console.log(`${realm.name} (${realm.url}): ${ann.full_name}'s API key is ${ann.api_key}`)
  for (const channel of visible) yield* Console.log(`  #${channel.name}: ${channel.description}`)
  return visible.map((c) => c.name)
}).pipe(Effect.provide(Teamchat.layerMemory()))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  Effect.runPromise(program).catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
