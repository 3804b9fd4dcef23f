/**
 * Matrix rows of the personal visibility settings. POST /user_topics is open
 * to every account (bots too); policies 1-3 need content access to the
 * channel ("Invalid channel ID" otherwise: the guest outside a public
 * channel, everyone outside a private one), clearing needs only the channel
 * to exist. The legacy PATCH /users/me/subscriptions/muted_topics follows
 * the same rules (`add` as policy 1, `remove` as 0), an unknown channel on
 * `remove` being "Topic is not muted". Muting and unmuting take any user the caller can access (bots
 * and deactivated users too); oneself is "Cannot mute self".
 */
import * as Effect from "effect/Effect"
import type { Account, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, refused, refusedWith, success } from "./Table.ts"

const mutedPath = (fixture: Fixture) => `/users/me/muted_users/${fixture.bystander.userId}`

/** Sets the account's mute of the bystander to `muted`, whatever it was (either answer is fine). */
const setMute = (fixture: Fixture, as: Account, muted: boolean) =>
  Effect.asVoid(fixture.server.fetch(muted ? "POST" : "DELETE", `/api/v1${mutedPath(fixture)}`, { as: fixture.accounts[as] }))

const topicForm = (channelId: number, topic: string, policy: number) => ({
  stream_id: String(channelId),
  topic,
  visibility_policy: String(policy)
})

export const mutingRows: ReadonlyArray<Row> = [
  {
    operation: "POST /user_topics",
    scenario: "muting a topic of a channel every principal is in",
    request: (fixture) => Effect.succeed({ form: topicForm(fixture.everyoneChannel.id, fixture.unique("muted"), 1) }),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "POST /user_topics",
    scenario: "following a topic of a public channel the principal is not in",
    request: (fixture) => Effect.succeed({ form: topicForm(fixture.publicChannel.id, fixture.unique("followed"), 3) }),
    expect: authenticated({ ...allRoles(success()), guest: refused("Invalid channel ID") })
  },
  {
    operation: "POST /user_topics",
    scenario: "unmuting a topic of a private channel only the bystander is in",
    request: (fixture) => Effect.succeed({ form: topicForm(fixture.privateChannel.id, fixture.unique("unmuted"), 2) }),
    expect: authenticated(allRoles(refused("Invalid channel ID")))
  },
  {
    operation: "POST /user_topics",
    scenario: "clearing a topic's policy in a private channel only the bystander is in",
    request: (fixture) => Effect.succeed({ form: topicForm(fixture.privateChannel.id, fixture.unique("cleared"), 0) }),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "PATCH /users/me/subscriptions/muted_topics",
    scenario: "add, a topic of a channel every principal is in, by id",
    request: (fixture) =>
      Effect.succeed({ form: { stream_id: String(fixture.everyoneChannel.id), topic: fixture.unique("legacy"), op: "add" } }),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "PATCH /users/me/subscriptions/muted_topics",
    scenario: "add, a topic of a public channel the principal is not in, by name",
    request: (fixture) =>
      Effect.succeed({ form: { stream: fixture.publicChannel.name, topic: fixture.unique("legacy"), op: "add" } }),
    expect: authenticated({
      ...allRoles(success()),
      guest: refusedWith((fixture) => `Invalid channel name '${fixture.publicChannel.name}'`)
    })
  },
  {
    operation: "PATCH /users/me/subscriptions/muted_topics",
    scenario: "add, a topic of a private channel only the bystander is in",
    request: (fixture) =>
      Effect.succeed({ form: { stream_id: String(fixture.privateChannel.id), topic: fixture.unique("legacy"), op: "add" } }),
    expect: authenticated(allRoles(refused("Invalid channel ID")))
  },
  {
    operation: "PATCH /users/me/subscriptions/muted_topics",
    scenario: "remove, a topic of a private channel only the bystander is in",
    request: (fixture) =>
      Effect.succeed({ form: { stream_id: String(fixture.privateChannel.id), topic: fixture.unique("legacy"), op: "remove" } }),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "PATCH /users/me/subscriptions/muted_topics",
    scenario: "remove, in a channel that does not exist",
    request: (fixture) => Effect.succeed({ form: { stream: fixture.unique("nowhere"), topic: "t", op: "remove" } }),
    expect: authenticated(allRoles(refused("Topic is not muted")))
  },
  {
    operation: "POST /users/me/muted_users/{muted_user_id}",
    scenario: "the bystander, not muted yet",
    request: (fixture, as) => Effect.as(setMute(fixture, as, false), { path: mutedPath(fixture) }),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "POST /users/me/muted_users/{muted_user_id}",
    scenario: "the bystander, already muted",
    request: (fixture, as) => Effect.as(setMute(fixture, as, true), { path: mutedPath(fixture) }),
    expect: authenticated(allRoles(refused("User already muted")))
  },
  {
    operation: "POST /users/me/muted_users/{muted_user_id}",
    scenario: "oneself",
    request: (fixture, as) => Effect.succeed({ path: `/users/me/muted_users/${fixture.accounts[as].userId}` }),
    expect: authenticated(allRoles(refused("Cannot mute self")))
  },
  {
    operation: "DELETE /users/me/muted_users/{muted_user_id}",
    scenario: "the bystander, muted",
    request: (fixture, as) => Effect.as(setMute(fixture, as, true), { path: mutedPath(fixture) }),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /users/me/muted_users/{muted_user_id}",
    scenario: "the bystander, not muted",
    request: (fixture, as) => Effect.as(setMute(fixture, as, false), { path: mutedPath(fixture) }),
    expect: authenticated(allRoles(refused("User is not muted")))
  }
]
