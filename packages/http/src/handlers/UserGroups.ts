/**
 * The `/user_groups` endpoints: each decodes, calls core `UserGroups` once
 * and wraps the result.
 *
 * @since 0.1.0
 */
import { UserGroups } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "userGroups",
  Effect.fn(function*(handlers) {
    const groups = yield* UserGroups.UserGroups
    const done = Effect.as({})
    const respondList = Envelope.respond(Api.groups.userGroups.endpoints.list)
    return handlers.handleAll({
      list: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (p) => groups.list(p, { includeDeactivated: query.include_deactivated_groups })).pipe(
          Effect.flatMap((user_groups) => respondList({ user_groups }))
        ),
      create: ({ query: { name, description, members, subgroups, ...settings } }) =>
        Effect.flatMap(CurrentPrincipal, (p) => groups.create(p, { name, description, members, subgroups, settings })).pipe(
          Effect.map((id) => ({ group_id: id as number })),
          Envelope.wrap
        ),
      update: ({ params, query: { name, description, deactivated, ...settings } }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          groups.update(p, params.user_group_id, { name, description, deactivated, settings })).pipe(done, Envelope.wrap),
      deactivate: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (p) => groups.deactivate(p, params.user_group_id)).pipe(done, Envelope.wrap),
      members: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          groups.members(p, params.user_group_id, { directOnly: query.direct_member_only })).pipe(
            Effect.map((members) => ({ members })),
            Envelope.wrap
          ),
      updateMembers: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (p) => groups.updateMembers(p, params.user_group_id, query)).pipe(done, Envelope.wrap),
      isMember: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          groups.isMember(p, params.user_group_id, params.user_id, { directOnly: query.direct_member_only })).pipe(
            Effect.map((is_user_group_member) => ({ is_user_group_member })),
            Envelope.wrap
          ),
      subgroups: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          groups.subgroups(p, params.user_group_id, { directOnly: query.direct_subgroup_only })).pipe(
            Effect.map((subgroups) => ({ subgroups })),
            Envelope.wrap
          ),
      updateSubgroups: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (p) => groups.updateSubgroups(p, params.user_group_id, query)).pipe(done, Envelope.wrap)
    })
  })
)
