/**
 * The `userGroups` group: user groups and their members (Zulip's
 * `/user_groups` endpoints).
 *
 * - GET /user_groups (`include_deactivated_groups`);
 * - POST /user_groups/create: name, description, members, subgroups and
 *   the six group settings, each a group-setting value (JSON);
 * - PATCH /user_groups/{id}: name, description, each setting as JSON
 *   `{"new": value, "old": value}` (`old` optional, compared first), and
 *   `deactivated` (`false` reactivates);
 * - POST /user_groups/{id}/deactivate;
 * - GET and POST /user_groups/{id}/members (add, delete, add_subgroups,
 *   delete_subgroups), GET /user_groups/{id}/members/{user_id};
 * - GET and POST /user_groups/{id}/subgroups (add, delete).
 *
 * Every change sends `user_group` events to the whole organization.
 *
 * @since 0.1.0
 */
import { Errors, EventPayload } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** A user group as GET /user_groups lists it. @category schemas */
export const UserGroup = EventPayload.EventUserGroup

const settingValue = Params.Value.oneOf(
  Params.Value.integer,
  Params.Value.struct({
    direct_members: Params.Value.list(Params.Value.integer),
    direct_subgroups: Params.Value.list(Params.Value.integer)
  })
)

/** A group-setting value: a group id, or `{"direct_members": [...], "direct_subgroups": [...]}`. @category schemas */
export const SettingValue = Params.json(
  settingValue,
  "Group-setting value (JSON): a user group id, or `{\"direct_members\": [user ids], \"direct_subgroups\": [group ids]}`."
)

/** An update of a group-setting value with its expected current value. @category schemas */
export const SettingValueUpdate = Params.json(
  Params.Value.struct({ new: settingValue, old: Schema.optionalKey(settingValue) }),
  "JSON `{\"new\": value, \"old\": value}`; `old`, optional, must equal the current value."
)

const groupId = {
  user_group_id: Params.PathId(() => new Errors.InvalidUserGroup(), "The user group's id.")
}

const ids = (description: string) => Schema.optionalKey(Params.JsonIntegerList.annotate({ description }))

/** @category groups */
export class UserGroupsApi extends HttpApiGroup.make("userGroups")
  .add(
    HttpApiEndpoint.get("list", "/user_groups", {
      query: { include_deactivated_groups: Params.optionalBoolean(false, "Whether deactivated groups are listed.") },
      success: Envelope.Success({ user_groups: Schema.Array(UserGroup) })
    }).annotate(OpenApi.Summary, "Get user groups"),
    HttpApiEndpoint.post("create", "/user_groups/create", {
      query: {
        name: Schema.String,
        description: Schema.String,
        members: Params.JsonIntegerList,
        subgroups: ids("JSON list of the initial subgroups' ids."),
        can_add_members_group: Schema.optionalKey(SettingValue),
        can_join_group: Schema.optionalKey(SettingValue),
        can_leave_group: Schema.optionalKey(SettingValue),
        can_manage_group: Schema.optionalKey(SettingValue),
        can_mention_group: Schema.optionalKey(SettingValue),
        can_remove_members_group: Schema.optionalKey(SettingValue)
      },
      success: Envelope.Success({ group_id: Schema.Int })
    }).annotate(OpenApi.Summary, "Create a user group"),
    HttpApiEndpoint.patch("update", "/user_groups/:user_group_id", {
      params: groupId,
      query: {
        name: Schema.optionalKey(Schema.String),
        description: Schema.optionalKey(Schema.String),
        can_add_members_group: Schema.optionalKey(SettingValueUpdate),
        can_join_group: Schema.optionalKey(SettingValueUpdate),
        can_leave_group: Schema.optionalKey(SettingValueUpdate),
        can_manage_group: Schema.optionalKey(SettingValueUpdate),
        can_mention_group: Schema.optionalKey(SettingValueUpdate),
        can_remove_members_group: Schema.optionalKey(SettingValueUpdate),
        deactivated: Schema.optionalKey(Params.JsonBoolean)
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update a user group"),
    HttpApiEndpoint.post("deactivate", "/user_groups/:user_group_id/deactivate", {
      params: groupId,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Deactivate a user group"),
    HttpApiEndpoint.get("members", "/user_groups/:user_group_id/members", {
      params: groupId,
      query: { direct_member_only: Params.optionalBoolean(false, "Only direct members, not those of subgroups.") },
      success: Envelope.Success({ members: Schema.Array(Schema.Int) })
    }).annotate(OpenApi.Summary, "Get user group members"),
    HttpApiEndpoint.post("updateMembers", "/user_groups/:user_group_id/members", {
      params: groupId,
      query: {
        add: ids("JSON list of user ids to add."),
        delete: ids("JSON list of user ids to remove."),
        add_subgroups: ids("JSON list of group ids to add as subgroups."),
        delete_subgroups: ids("JSON list of subgroup ids to remove.")
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update user group members"),
    HttpApiEndpoint.get("isMember", "/user_groups/:user_group_id/members/:user_id", {
      params: {
        ...groupId,
        user_id: Params.PathId(() => new Errors.NoSuchUser(), "The user's id.")
      },
      query: { direct_member_only: Params.optionalBoolean(false, "Only direct membership, not through subgroups.") },
      success: Envelope.Success({ is_user_group_member: Schema.Boolean })
    }).annotate(OpenApi.Summary, "Get user group membership status"),
    HttpApiEndpoint.get("subgroups", "/user_groups/:user_group_id/subgroups", {
      params: groupId,
      query: { direct_subgroup_only: Params.optionalBoolean(false, "Only direct subgroups.") },
      success: Envelope.Success({ subgroups: Schema.Array(Schema.Int) })
    }).annotate(OpenApi.Summary, "Get subgroups of a user group"),
    HttpApiEndpoint.post("updateSubgroups", "/user_groups/:user_group_id/subgroups", {
      params: groupId,
      query: {
        add: ids("JSON list of group ids to add as subgroups."),
        delete: ids("JSON list of subgroup ids to remove.")
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update subgroups of a user group")
  )
  .middleware(Authentication)
{}
