/**
 * The `drafts` group: drafts kept on the server for the user's clients.
 *
 * - GET /drafts lists the caller's drafts, oldest edit first, with `count`;
 * - POST /drafts creates a JSON list of drafts, all or nothing, and returns
 *   their `ids` in the order given;
 * - PATCH /drafts/{draft_id} replaces a draft (`draft`: one JSON draft);
 * - DELETE /drafts/{draft_id} deletes one.
 *
 * A user who turned `enable_drafts_synchronization` off is refused before
 * any parameter is read, so `drafts` and `draft` are declared as text and
 * decoded by the handler (`DraftsParam`, `DraftParam`). Each change sends a
 * `drafts` event (`add`, `update`, `remove`) to the caller's queues.
 *
 * @since 0.1.0
 */
import { Draft, Errors, EventPayload } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** A draft as the API shows it. @category schemas */
export const ApiDraft = EventPayload.EventDraft

/** A draft as a client sends it (Zulip's `DraftData`: no `id`, no other key). */
const draftValue = Params.Value.struct({
  type: Params.Value.literal(Draft.DraftTypes),
  to: Params.Value.list(Params.Value.integer),
  topic: Params.Value.string,
  content: Params.Value.nonBlank,
  timestamp: Schema.optionalKey(Params.Value.nullOr(Params.Value.number(Draft.MaxDraftTimestamp)))
})

const draftDescription = "`type` (`\"\"`, `stream` or `private`), `to` (a channel id, or user ids), `topic`, " +
  "`content` and optionally `timestamp` (seconds; absent: now)."

/** POST /drafts' parameters, decoded by the handler. @category schemas */
export const DraftsParam = Schema.Struct({
  drafts: Params.json(Params.Value.list(draftValue), `JSON list of drafts: ${draftDescription}`, { nul: "allow" })
})

/** PATCH /drafts/{draft_id}'s parameters, decoded by the handler. @category schemas */
export const DraftParam = Schema.Struct({
  draft: Params.json(draftValue, `JSON draft: ${draftDescription}`, { nul: "allow" })
})

const id = { draft_id: Params.PathId(() => new Errors.DraftNotFound(), "The draft's id.") }

/** @category groups */
export class DraftsApi extends HttpApiGroup.make("drafts")
  .add(
    HttpApiEndpoint.get("list", "/drafts", {
      success: Envelope.Success({ count: Schema.Int, drafts: Schema.Array(ApiDraft) })
    }).annotate(OpenApi.Summary, "Get drafts"),
    HttpApiEndpoint.post("create", "/drafts", {
      query: {
        drafts: Schema.optionalKey(Schema.String.annotate({ description: `JSON list of drafts: ${draftDescription}` }))
      },
      success: Envelope.Success({ ids: Schema.Array(Schema.Int) })
    }).annotate(OpenApi.Summary, "Create drafts"),
    HttpApiEndpoint.patch("edit", "/drafts/:draft_id", {
      params: id,
      query: {
        draft: Schema.optionalKey(Schema.String.annotate({ description: `JSON draft: ${draftDescription}` }))
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Edit a draft"),
    HttpApiEndpoint.delete("remove", "/drafts/:draft_id", {
      params: id,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete a draft")
  )
  .middleware(Authentication)
{}
