/**
 * Seeds the demo organization (see DemoData.ts) through the normal services,
 * so the demo data obeys every rule real data does.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { ChannelId, UserId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import { EmailVisibilities } from "../domain/Role.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Channels } from "../services/Channels.ts"
import { Organizations } from "../services/Organizations.ts"
import { Users } from "../services/Users.ts"
import * as DemoData from "./DemoData.ts"

/**
 * Creates the demo organization served at `url` (e.g.
 * "http://localhost:9991"). Fails with the services' errors, for instance
 * when the organization exists already.
 *
 * @category seeding
 */
export const seed = Effect.fn("DemoOrganization.seed")(function*(url: string) {
  const tx = yield* Transactor
  // All or nothing: a seed interrupted half-way (Ctrl-C at first start) must
  // not leave a partial organization that later starts would not re-seed.
  return yield* tx.withTransaction(seedAll(url))
})

const seedAll = Effect.fnUntraced(function*(url: string) {
  const organizations = yield* Organizations
  const users = yield* Users
  const channels = yield* Channels
  const { realm, owner } = yield* organizations.create({
    string_id: DemoData.realm.string_id,
    name: DemoData.realm.name,
    description: DemoData.realm.description,
    url,
    fake_email_domain: DemoData.realm.fake_email_domain,
    settings: {
      email_address_visibility: EmailVisibilities.administrators,
      enable_spectator_access: true,
      enable_read_receipts: true,
      invite_required: false
    },
    owner: { ...DemoData.owner, password: DemoData.password },
    demo: true
  })
  const ids = new Map<string, UserId>([[DemoData.owner.email, owner!.id]])
  for (const person of DemoData.users) {
    const user = yield* users.create(realm.id, { ...person, password: DemoData.password })
    ids.set(person.email, user.id)
  }
  for (const bot of DemoData.bots) {
    const user = yield* users.create(realm.id, {
      email: bot.email,
      full_name: bot.full_name,
      role: 400,
      bot: { bot_type: bot.bot_type, owner_id: ids.get(bot.owner) ?? null }
    })
    ids.set(bot.email, user.id)
  }
  const channelIds = new Map<string, ChannelId>()
  for (const spec of DemoData.channels) {
    const channel = yield* channels.create(realm.id, { ...spec, creator_id: null })
    channelIds.set(spec.name, channel.id)
  }
  const people = [DemoData.owner, ...DemoData.users].map((u) => u.email)
  for (const [email, names] of DemoData.subscriptionPlan(people, DemoData.channels.map((c) => c.name))) {
    for (const name of names) {
      yield* channels.subscribe(channelIds.get(name)!, [ids.get(email)!])
    }
  }
  return realm satisfies Realm
})
