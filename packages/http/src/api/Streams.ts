/**
 * The `streams` group: GET /streams, the channels the user can access.
 *
 * @since 0.1.0
 */
import { GroupSetting, Realm } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** A channel as GET /streams lists it. @category schemas */
export const Channel = Schema.Struct({
  stream_id: Schema.Int,
  name: Schema.String,
  is_archived: Schema.Boolean,
  description: Schema.String,
  rendered_description: Schema.String,
  date_created: Schema.Int,
  creator_id: Schema.NullOr(Schema.Int),
  invite_only: Schema.Boolean,
  is_web_public: Schema.Boolean,
  stream_post_policy: Schema.Literals([1, 2, 3, 4]),
  is_announcement_only: Schema.Boolean,
  message_retention_days: Schema.NullOr(Schema.Int),
  history_public_to_subscribers: Schema.Boolean,
  topics_policy: Realm.TopicsPolicy,
  first_message_id: Schema.NullOr(Schema.Int),
  folder_id: Schema.NullOr(Schema.Int),
  is_recently_active: Schema.Boolean,
  can_add_subscribers_group: GroupSetting.GroupSettingValue,
  can_remove_subscribers_group: GroupSetting.GroupSettingValue,
  can_administer_channel_group: GroupSetting.GroupSettingValue,
  can_delete_any_message_group: GroupSetting.GroupSettingValue,
  can_delete_own_message_group: GroupSetting.GroupSettingValue,
  can_move_messages_out_of_channel_group: GroupSetting.GroupSettingValue,
  can_move_messages_within_channel_group: GroupSetting.GroupSettingValue,
  can_send_message_group: GroupSetting.GroupSettingValue,
  can_subscribe_group: GroupSetting.GroupSettingValue,
  can_resolve_topics_group: GroupSetting.GroupSettingValue,
  subscriber_count: Schema.Int,
  stream_weekly_traffic: Schema.NullOr(Schema.Int),
  is_default: Schema.optionalKey(Schema.Boolean)
})

/** @category groups */
export class StreamsApi extends HttpApiGroup.make("streams")
  .add(
    HttpApiEndpoint.get("list", "/streams", {
      query: {
        include_public: Params.optionalBoolean(true),
        include_web_public: Params.optionalBoolean(false),
        include_subscribed: Params.optionalBoolean(true),
        exclude_archived: Params.optionalBoolean(true),
        include_all: Params.optionalBoolean(false),
        include_default: Params.optionalBoolean(false),
        include_owner_subscribed: Params.optionalBoolean(false),
        include_can_access_content: Params.optionalBoolean(false),
        include_all_active: Params.optionalBoolean(false, "Deprecated alias of include_all.")
      },
      success: Envelope.Success({ streams: Schema.Array(Channel) })
    }).annotate(OpenApi.Summary, "Get channels")
  )
  .middleware(Authentication)
{}
