/**
 * The `subscriptions` group: the caller's channel subscriptions.
 *
 * - GET /users/me/subscriptions lists them (with subscriber lists on request);
 * - POST /users/me/subscriptions subscribes the caller, or the `principals`,
 *   creating channels that do not exist yet;
 * - DELETE /users/me/subscriptions unsubscribes;
 * - POST /users/me/subscriptions/properties changes personal properties
 *   (color, muting, pinning, notifications).
 *
 * Each change emits its events (`subscription` add/remove/peer_add/
 * peer_remove/update, `stream` create/delete) through the core.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { EventPayload, Subscriptions } from "@teamchat/core"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"
import { IncludeSubscribers } from "./Events.ts"

/** A subscription: the channel and the caller's properties, as `subscription add` announces it. @category schemas */
export const Subscription = EventPayload.EventSubscription

const { MaxPrincipalsPerRequest, MaxPropertyChangesPerRequest, MaxSubscriptionPairsPerRequest, MaxSubscriptionsPerRequest } =
  Subscriptions

/** User ids (preferred) or API email addresses. @category schemas */
export const Principals = Params.json(
  Params.Value.atMost(
    MaxPrincipalsPerRequest,
    Params.Value.oneOf(Params.Value.list(Params.Value.integer), Params.Value.list(Params.Value.string))
  ),
  `JSON list of at most ${MaxPrincipalsPerRequest} user ids (preferred) or API email addresses; absent: the caller.`
)

const subscriptionRequests = Params.Value.list(
  Params.Value.struct({ name: Params.Value.string, description: Schema.optionalKey(Params.Value.string) }),
  MaxSubscriptionsPerRequest
)

const propertyChanges = Params.Value.list(
  Params.Value.struct({
    stream_id: Params.Value.integer,
    property: Params.Value.string,
    value: Params.Value.oneOf(Params.Value.boolean, Params.Value.string)
  }),
  MaxPropertyChangesPerRequest
)

const namesByUser = Schema.Record(Schema.String, Schema.Array(Schema.String)).annotate({
  description: "Channel names by user id (a string)."
})

/** @category groups */
export class SubscriptionsApi extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.get("list", "/users/me/subscriptions", {
      query: { include_subscribers: Schema.optionalKey(IncludeSubscribers) },
      success: Envelope.Success({ subscriptions: Schema.Array(Subscription) })
    }).annotate(OpenApi.Summary, "Get subscribed channels"),
    HttpApiEndpoint.post("subscribe", "/users/me/subscriptions", {
      query: {
        subscriptions: Params.json(
          subscriptionRequests,
          `JSON list of at most ${MaxSubscriptionsPerRequest} \`{"name": …, "description": …}\`; channels that do not exist are created (at most ${MaxSubscriptionPairsPerRequest} channels × principals).`
        ),
        principals: Schema.optionalKey(Principals),
        authorization_errors_fatal: Schema.optionalKey(Params.JsonBoolean),
        announce: Schema.optionalKey(Params.JsonBoolean),
        invite_only: Schema.optionalKey(Params.JsonBoolean),
        is_web_public: Schema.optionalKey(Params.JsonBoolean),
        is_default_stream: Schema.optionalKey(Params.JsonBoolean),
        history_public_to_subscribers: Schema.optionalKey(Params.JsonBoolean)
      },
      success: Envelope.Success({
        subscribed: namesByUser,
        already_subscribed: namesByUser,
        unauthorized: Schema.optionalKey(Schema.Array(Schema.String))
      })
    }).annotate(OpenApi.Summary, "Subscribe to channels"),
    HttpApiEndpoint.delete("unsubscribe", "/users/me/subscriptions", {
      query: {
        subscriptions: Params.json(
          Params.Value.list(Params.Value.string, MaxSubscriptionsPerRequest),
          `JSON list of at most ${MaxSubscriptionsPerRequest} channel names.`
        ),
        principals: Schema.optionalKey(Principals)
      },
      success: Envelope.Success({
        removed: Schema.Array(Schema.String),
        not_removed: Schema.Array(Schema.String)
      })
    }).annotate(OpenApi.Summary, "Unsubscribe from channels"),
    HttpApiEndpoint.post("updateProperties", "/users/me/subscriptions/properties", {
      query: {
        subscription_data: Params.json(
          propertyChanges,
          `JSON list of at most ${MaxPropertyChangesPerRequest} \`{"stream_id": …, "property": …, "value": …}\`.`
        )
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update subscription settings")
  )
  .middleware(Authentication)
{}
