/**
 * Matrix rows of the invitation routes (Zulip's views/invite.py): guests and
 * bots are refused first (require_member_or_admin); creating a reusable link
 * needs the organization's `create_multiuse_invite_group` (administrators);
 * an owner link needs an owner; revoking someone else's link needs an
 * administrator (a BAD_REQUEST "Must be an organization administrator").
 * GET /invites answers everyone else, listing only what each may manage.
 */
import * as Effect from "effect/Effect"
import type { Call, Fixture, Row } from "./Table.ts"
import { authenticated, notForBots, notForGuests, ok, refused, success } from "./Table.ts"

const linkShape = /^http:\/\/localhost:9991\/join\/[a-z0-9]{24}\/$/

/** A member link made by the owner: its URL and id. */
const ownerLink = (fixture: Fixture) =>
  Effect.gen(function*() {
    const made = yield* fixture.call("owner", "POST", "/invites/multiuse", { form: {} })
    const listed = yield* fixture.call("owner", "GET", "/invites", {})
    const invite = (listed.invites as Array<{ id: number; link_url: string }>).find((i) => i.link_url === made.invite_link)!
    return { link: made.invite_link as string, id: invite.id }
  })

const created = { status: 200 as const, facts: () => ({ wellFormed: true }) }

export const invitationsRows: ReadonlyArray<Row> = [
  {
    operation: "POST /invites/multiuse",
    request: () => Effect.succeed({ form: { invite_as: "400" } }),
    digest: (body) => ({ wellFormed: linkShape.test(body.invite_link) && Object.keys(body).length === 3 }),
    expect: authenticated({
      owner: created,
      admin: created,
      moderator: refused("Insufficient permission"),
      member: refused("Insufficient permission"),
      guest: notForGuests,
      bot: notForBots
    })
  },
  {
    operation: "POST /invites/multiuse",
    scenario: "inviting an owner",
    request: () => Effect.succeed({ form: { invite_as: "100" } }),
    digest: (body) => ({ wellFormed: linkShape.test(body.invite_link) }),
    expect: authenticated({
      owner: created,
      admin: refused("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL"),
      moderator: refused("Insufficient permission"),
      member: refused("Insufficient permission"),
      guest: notForGuests,
      bot: notForBots
    })
  },
  {
    operation: "GET /invites",
    scenario: "an owner's link",
    request: (fixture) => Effect.map(ownerLink(fixture), (made): Call => ({ made })),
    digest: (body, _fixture, call) => ({
      listed: (body.invites as Array<{ link_url: string }>).some((i) => i.link_url === call.made!.link)
    }),
    expect: authenticated({
      owner: ok(() => ({ listed: true })),
      admin: ok(() => ({ listed: true })),
      moderator: ok(() => ({ listed: false, invites: [] })),
      member: ok(() => ({ listed: false, invites: [] })),
      guest: notForGuests,
      bot: notForBots
    })
  },
  {
    operation: "DELETE /invites/multiuse/{invite_id}",
    scenario: "an owner's member link",
    request: (fixture) => Effect.map(ownerLink(fixture), (made): Call => ({ path: `/invites/multiuse/${made.id}`, made })),
    expect: authenticated({
      owner: success(),
      admin: success(),
      moderator: refused("Must be an organization administrator"),
      member: refused("Must be an organization administrator"),
      guest: notForGuests,
      bot: notForBots
    })
  }
]
