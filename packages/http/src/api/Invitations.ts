/**
 * The `invitations` group: POST /invites/multiuse (a reusable invitation
 * link), GET /invites (the usable links the caller manages) and DELETE
 * /invites/multiuse/{invite_id} (revoke). Each change sends
 * `invites_changed` to the organization's administrators and the link's
 * maker. The link itself opens the join page (`internal/JoinPage.ts`),
 * outside /api/v1.
 *
 * @since 0.1.0
 */
import { Errors } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** An element of GET /invites' `invites` (reusable links only). @category schemas */
export const Invite = Schema.Struct({
  invited_by_user_id: Schema.Int,
  invited: Schema.Int,
  expiry_date: Schema.NullOr(Schema.Int),
  id: Schema.Int,
  link_url: Schema.String,
  invited_as: Schema.Int,
  is_multiuse: Schema.Boolean
})

const inviteId = { invite_id: Params.PathId(() => new Errors.NoSuchInvitation(), "The reusable invitation link's id.") }

/** @category groups */
export class InvitationsApi extends HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.post("createMultiuse", "/invites/multiuse", {
      query: {
        invite_expires_in_minutes: Schema.optionalKey(
          Params.json(
            Params.Value.nullOr(Params.Value.integer),
            "JSON integer or `null` (never expires); default 14400 (10 days)."
          )
        ),
        invite_as: Schema.optionalKey(
          Params.json(Params.Value.integer, "The role of the new users: 100, 200, 300, 400 (default) or 600.")
        ),
        stream_ids: Schema.optionalKey(Params.JsonIntegerList),
        group_ids: Schema.optionalKey(Params.JsonIntegerList),
        include_realm_default_subscriptions: Schema.optionalKey(Params.JsonBoolean),
        welcome_message_custom_text: Schema.optionalKey(
          Schema.String.annotate({ description: "Markdown, at most 8000 characters; administrators only." })
        )
      },
      success: Envelope.Success({ invite_link: Schema.String })
    }).annotate(OpenApi.Summary, "Create a reusable invitation link"),
    HttpApiEndpoint.get("list", "/invites", {
      success: Envelope.Success({ invites: Schema.Array(Invite) })
    }).annotate(OpenApi.Summary, "Get all invitations"),
    HttpApiEndpoint.delete("revokeMultiuse", "/invites/multiuse/:invite_id", {
      params: inviteId,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Revoke a reusable invitation link")
  )
  .middleware(Authentication)
{}
