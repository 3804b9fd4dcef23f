/**
 * The error catalogue: exact wire bodies and codes of every Zulip error, and
 * how the errors behave inside Effect programs. Their HTTP statuses and
 * headers are the HTTP adapter's (packages/http/test/ErrorStatus.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as E from "../../src/errors/Errors.ts"
import * as ZulipError from "../../src/errors/ZulipError.ts"

// Expected bodies are JSON text, so that the key order is checked too.
const json = String.raw

interface Row {
  readonly error: ZulipError.ZulipError
  readonly body: string
  readonly code: string
}

const row = (error: ZulipError.ZulipError, body: string): Row => ({
  error,
  body,
  code: (JSON.parse(body) as { readonly code: string }).code
})

const table: ReadonlyArray<Row> = [
  // generic
  row(new E.BadRequest({ msg: "Organization name can't be empty." }),
    json`{"result":"error","msg":"Organization name can't be empty.","code":"BAD_REQUEST"}`),
  row(new E.ResourceNotFound({ msg: "Reminder does not exist" }),
    json`{"result":"error","msg":"Reminder does not exist","code":"BAD_REQUEST"}`),
  row(new E.AccessDenied(), json`{"result":"error","msg":"Access denied","code":"BAD_REQUEST"}`),
  row(new E.InsufficientPermission(),
    json`{"result":"error","msg":"Insufficient permission","code":"BAD_REQUEST"}`),
  // parameters
  row(new E.RequestVariableMissing({ var_name: "content" }),
    json`{"result":"error","msg":"Missing 'content' argument","code":"REQUEST_VARIABLE_MISSING","var_name":"content"}`),
  row(new E.RequestConfusingVar({ var_name1: "topic", var_name2: "subject" }),
    json`{"result":"error","msg":"Can't decide between 'topic' and 'subject' arguments","code":"REQUEST_CONFUSING_VAR","var_name1":"topic","var_name2":"subject"}`),
  row(new E.IncompatibleParameters({ parameters: "stream_id, stream" }),
    json`{"result":"error","msg":"Unsupported parameter combination: stream_id, stream","code":"BAD_REQUEST","parameters":"stream_id, stream"}`),
  row(new E.RequestVariableInvalid({ var_name: "anchor", bad_value: "banana" }),
    json`{"result":"error","msg":"Bad value for 'anchor': banana","code":"REQUEST_VARIABLE_INVALID","var_name":"anchor","bad_value":"banana"}`),
  row(new E.InvalidJson(), json`{"result":"error","msg":"Malformed JSON","code":"INVALID_JSON"}`),
  row(new E.NotAnInteger({ var_name: "num_before" }),
    json`{"result":"error","msg":"num_before is not an integer","code":"BAD_REQUEST"}`),
  row(new E.NotABoolean({ var_name: "dont_block" }),
    json`{"result":"error","msg":"dont_block is not a boolean","code":"BAD_REQUEST"}`),
  row(new E.NotAString({ var_name: "drafts[0][\"topic\"]" }),
    json`{"result":"error","msg":"drafts[0][\"topic\"] is not a string","code":"BAD_REQUEST"}`),
  row(new E.NotAList({ var_name: "members" }),
    json`{"result":"error","msg":"members is not a list","code":"BAD_REQUEST"}`),
  row(new E.NotADict({ var_name: "field_data" }),
    json`{"result":"error","msg":"field_data is not a dict","code":"BAD_REQUEST"}`),
  row(new E.NotAFloat({ var_name: "timestamp" }),
    json`{"result":"error","msg":"timestamp is not a float","code":"BAD_REQUEST"}`),
  row(new E.NotADate({ var_name: "Birthday" }),
    json`{"result":"error","msg":"Birthday is not a date","code":"BAD_REQUEST"}`),
  row(new E.NotAUrl({ var_name: "field_data[\"url_pattern\"]" }),
    json`{"result":"error","msg":"field_data[\"url_pattern\"] is not a URL","code":"BAD_REQUEST"}`),
  row(new E.NotValidJson({ var_name: "to" }),
    json`{"result":"error","msg":"to is not valid JSON","code":"BAD_REQUEST"}`),
  row(new E.ArgumentNotValidJson({ var_name: "field_type" }),
    json`{"result":"error","msg":"Argument \"field_type\" is not valid JSON.","code":"BAD_REQUEST"}`),
  row(new E.TooSmall({ var_name: "num_after" }),
    json`{"result":"error","msg":"num_after is too small","code":"BAD_REQUEST"}`),
  row(new E.TooLarge({ var_name: "history_limit_days" }),
    json`{"result":"error","msg":"history_limit_days is too large","code":"BAD_REQUEST"}`),
  row(new E.TooLong({ var_name: "name", max_length: 40 }),
    json`{"result":"error","msg":"name is too long (limit: 40 characters)","code":"BAD_REQUEST"}`),
  row(new E.TooManyItems({ var_name: "alert_words", max_items: 1000 }),
    json`{"result":"error","msg":"alert_words is too long (limit: 1000 items)","code":"BAD_REQUEST"}`),
  row(new E.TooShort({ var_name: "password" }),
    json`{"result":"error","msg":"password is too short.","code":"BAD_REQUEST"}`),
  row(new E.CannotBeBlank({ var_name: "drafts[0][\"content\"]" }),
    json`{"result":"error","msg":"drafts[0][\"content\"] cannot be blank","code":"BAD_REQUEST"}`),
  row(new E.RequiredStringBlank({ var_name: "field_data[\"order\"]" }),
    json`{"result":"error","msg":"field_data[\"order\"] cannot be blank.","code":"BAD_REQUEST"}`),
  row(new E.InvalidParameter({ var_name: "invite_as" }),
    json`{"result":"error","msg":"Invalid invite_as","code":"BAD_REQUEST"}`),
  row(new E.UnexpectedArgument({ argument: "id", var_name: "drafts[0]" }),
    json`{"result":"error","msg":"Argument \"id\" at drafts[0] is unexpected","code":"BAD_REQUEST"}`),
  // authentication
  row(new E.Unauthorized(),
    json`{"result":"error","msg":"Not logged in: API authentication or user session required","code":"UNAUTHORIZED"}`),
  row(new E.MissingBasicAuthHeader(),
    json`{"result":"error","msg":"Missing authorization header for basic auth","code":"UNAUTHORIZED"}`),
  row(new E.InvalidBasicAuthHeader(),
    json`{"result":"error","msg":"Invalid authorization header for basic auth","code":"UNAUTHORIZED"}`),
  row(new E.BasicAuthRequired(),
    json`{"result":"error","msg":"This endpoint requires HTTP basic authentication.","code":"BAD_REQUEST"}`),
  row(new E.InvalidApiKey(), json`{"result":"error","msg":"Invalid API key","code":"INVALID_API_KEY"}`),
  row(new E.MalformedApiKey(), json`{"result":"error","msg":"Malformed API key","code":"INVALID_API_KEY"}`),
  row(new E.UserDeactivated(), json`{"result":"error","msg":"Account is deactivated","code":"USER_DEACTIVATED"}`),
  row(new E.RealmDeactivated(),
    json`{"result":"error","msg":"This organization has been deactivated","code":"REALM_DEACTIVATED"}`),
  row(new E.AuthenticationFailed(),
    json`{"result":"error","msg":"Your username or password is incorrect","code":"AUTHENTICATION_FAILED"}`),
  row(new E.PasswordAuthDisabled(),
    json`{"result":"error","msg":"Password authentication is disabled in this organization","code":"PASSWORD_AUTH_DISABLED"}`),
  row(new E.PasswordResetRequired(),
    json`{"result":"error","msg":"Your password has been disabled and needs to be reset","code":"PASSWORD_RESET_REQUIRED"}`),
  row(new E.AccountNotInSubdomain(),
    json`{"result":"error","msg":"Account is not associated with this subdomain","code":"BAD_REQUEST"}`),
  row(new E.WebhookBotsNotAllowed(),
    json`{"result":"error","msg":"This API is not available to incoming webhook bots.","code":"BAD_REQUEST"}`),
  row(new E.NonexistentSubdomain(),
    json`{"result":"error","msg":"Invalid subdomain","code":"NONEXISTENT_SUBDOMAIN"}`),
  row(new E.InvalidEmailAddress(),
    json`{"result":"error","msg":"Enter a valid email address.","code":"BAD_REQUEST"}`),
  row(new E.DevEndpointInProduction(),
    json`{"result":"error","msg":"Endpoint not available in production.","code":"BAD_REQUEST"}`),
  row(new E.DevAuthNotEnabled(),
    json`{"result":"error","msg":"DevAuthBackend not enabled.","code":"BAD_REQUEST"}`),
  row(new E.RateLimitHit({ retry_after_seconds: 28.706807374954224 }),
    json`{"result":"error","msg":"API usage exceeded rate limit","code":"RATE_LIMIT_HIT","retry-after":28.706807374954224}`),
  // permissions
  row(new E.OrganizationAdministratorRequired(),
    json`{"result":"error","msg":"Must be an organization administrator","code":"UNAUTHORIZED_PRINCIPAL"}`),
  row(new E.OrganizationOwnerRequired(),
    json`{"result":"error","msg":"Must be an organization owner","code":"UNAUTHORIZED_PRINCIPAL"}`),
  row(new E.OrganizationMemberRequired(),
    json`{"result":"error","msg":"Must be an organization member","code":"UNAUTHORIZED_PRINCIPAL"}`),
  row(new E.InviteAsAdministratorRequired(),
    json`{"result":"error","msg":"Must be an organization administrator","code":"BAD_REQUEST"}`),
  row(new E.NotAllowedForGuests(),
    json`{"result":"error","msg":"Not allowed for guest users","code":"BAD_REQUEST"}`),
  row(new E.BotsNotAllowed(),
    json`{"result":"error","msg":"This endpoint does not accept bot requests.","code":"BAD_REQUEST"}`),
  row(new E.UserNotAuthorizedForQuery(),
    json`{"result":"error","msg":"User not authorized for this query","code":"BAD_REQUEST"}`),
  row(new E.CannotAdministerChannel(),
    json`{"result":"error","msg":"You do not have permission to administer this channel.","code":"BAD_REQUEST"}`),
  // event queues
  row(new E.BadEventQueueId({ queue_id: "1375801870:2942" }),
    json`{"result":"error","msg":"Bad event queue ID: 1375801870:2942","code":"BAD_EVENT_QUEUE_ID","queue_id":"1375801870:2942"}`),
  row(new E.EventPruned({ last_event_id: 3 }),
    json`{"result":"error","msg":"An event newer than 3 has already been pruned!","code":"BAD_REQUEST"}`),
  row(new E.EventNotInQueue({ last_event_id: 5 }),
    json`{"result":"error","msg":"Event 5 was not in this queue","code":"BAD_REQUEST"}`),
  row(new E.MissingQueueId(),
    json`{"result":"error","msg":"Missing 'queue_id' argument","code":"BAD_REQUEST"}`),
  row(new E.MissingLastEventId(),
    json`{"result":"error","msg":"Missing 'last_event_id' argument","code":"BAD_REQUEST"}`),
  row(new E.NarrowOperatorNotSupported({ operator: "search" }),
    json`{"result":"error","msg":"Operator search not supported.","code":"BAD_REQUEST"}`),
  row(new E.NarrowOperandNotSupported({ operand: "followed" }),
    json`{"result":"error","msg":"Operand followed not supported.","code":"BAD_REQUEST"}`),
  row(new E.EventQueueAllocationFailed(),
    json`{"result":"error","msg":"Could not allocate event queue","code":"BAD_REQUEST"}`),
  // channels, users, messages
  row(new E.StreamDoesNotExist({ stream_id: 9 }),
    json`{"result":"error","msg":"Channel with ID '9' does not exist","code":"STREAM_DOES_NOT_EXIST","stream_id":9}`),
  row(new E.StreamNameDoesNotExist({ stream: "nowhere" }),
    json`{"result":"error","msg":"Channel 'nowhere' does not exist","code":"STREAM_DOES_NOT_EXIST","stream":"nowhere"}`),
  row(new E.InvalidChannelId(), json`{"result":"error","msg":"Invalid channel ID","code":"BAD_REQUEST"}`),
  row(
    new E.InvalidChannelName({ stream: "Nowhere" }),
    json`{"result":"error","msg":"Invalid channel name 'Nowhere'","code":"BAD_REQUEST"}`
  ),
  row(new E.InvalidUserId({ user_id: 1234 }),
    json`{"result":"error","msg":"Invalid user ID 1234","code":"BAD_REQUEST"}`),
  row(new E.InvalidUserIdColon({ user_id: 1234 }),
    json`{"result":"error","msg":"Invalid user ID: 1234","code":"BAD_REQUEST"}`),
  row(new E.NoSuchUser(), json`{"result":"error","msg":"No such user","code":"BAD_REQUEST"}`),
  row(new E.TopicNullBytes(),
    json`{"result":"error","msg":"Topic must not contain null bytes","code":"BAD_REQUEST"}`),
  row(new E.MessageNullBytes(),
    json`{"result":"error","msg":"Message must not contain null bytes","code":"BAD_REQUEST"}`),
  // scheduled messages
  row(new E.RecipientListUserIdsOnly(),
    json`{"result":"error","msg":"Recipient list may only contain user IDs","code":"BAD_REQUEST"}`),
  row(new E.ScheduledDeliveryTimeNotInFuture(),
    json`{"result":"error","msg":"Scheduled delivery time must be in the future.","code":"BAD_REQUEST"}`),
  row(new E.NothingToChange(), json`{"result":"error","msg":"Nothing to change","code":"BAD_REQUEST"}`),
  row(new E.ScheduledRecipientRequired(),
    json`{"result":"error","msg":"Recipient required when updating type of scheduled message.","code":"BAD_REQUEST"}`),
  row(new E.ScheduledTopicRequired(),
    json`{"result":"error","msg":"Topic required when updating scheduled message type to stream.","code":"BAD_REQUEST"}`),
  row(new E.ScheduledMessageAlreadySent(),
    json`{"result":"error","msg":"Scheduled message was already sent","code":"BAD_REQUEST"}`),
  row(new E.ScheduledMessageNotFound(),
    json`{"result":"error","msg":"Scheduled message does not exist","code":"BAD_REQUEST"}`),
  row(new E.ScheduledMessageDeliveryLate(),
    json`{"result":"error","msg":"Message could not be sent at the scheduled time.","code":"BAD_REQUEST"}`),
  // user groups
  row(new E.InvalidUserGroup(), json`{"result":"error","msg":"Invalid user group","code":"BAD_REQUEST"}`),
  row(new E.InvalidSubgroupId({ group_id: 77 }),
    json`{"result":"error","msg":"Invalid user group ID: 77","code":"BAD_REQUEST"}`),
  row(new E.UserGroupNameEmpty(),
    json`{"result":"error","msg":"User group name can't be empty!","code":"BAD_REQUEST"}`),
  row(new E.UserGroupNameTooLong(),
    json`{"result":"error","msg":"User group name cannot exceed 100 characters.","code":"BAD_REQUEST"}`),
  row(new E.UserGroupNameReservedPrefix({ prefix: "role:" }),
    json`{"result":"error","msg":"User group name cannot start with 'role:'.","code":"BAD_REQUEST"}`),
  row(new E.UserGroupNameExists({ name: "support" }),
    json`{"result":"error","msg":"User group 'support' already exists.","code":"BAD_REQUEST"}`),
  row(new E.UserGroupDeactivated(),
    json`{"result":"error","msg":"User group is deactivated.","code":"BAD_REQUEST"}`),
  row(new E.NoNewData(), json`{"result":"error","msg":"No new data supplied","code":"BAD_REQUEST"}`),
  row(new E.ExpectationMismatch({ field_name: "old" }),
    json`{"result":"error","msg":"'old' value does not match the expected value.","code":"EXPECTATION_MISMATCH","field_name":"old"}`),
  row(new E.GroupSettingCannotBeInternet({ setting_name: "can_manage_group" }),
    json`{"result":"error","msg":"'can_manage_group' setting cannot be set to 'role:internet' group.","code":"BAD_REQUEST"}`),
  row(new E.GroupSettingCannotBeEveryone({ setting_name: "can_join_group" }),
    json`{"result":"error","msg":"'can_join_group' setting cannot be set to 'role:everyone' group.","code":"BAD_REQUEST"}`),
  row(new E.GroupSettingCannotBeOwners({ setting_name: "can_mention_group" }),
    json`{"result":"error","msg":"'can_mention_group' setting cannot be set to 'role:owners' group.","code":"BAD_REQUEST"}`),
  row(new E.SystemGroupRequired({ setting_name: "can_access_all_users_group" }),
    json`{"result":"error","msg":"'can_access_all_users_group' must be a system user group.","code":"SYSTEM_GROUP_REQUIRED","setting_name":"can_access_all_users_group"}`),
  row(new E.GroupMembersNothingToDo(),
    json`{"result":"error","msg":"Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\".","code":"BAD_REQUEST"}`),
  row(new E.SubgroupsNothingToDo(),
    json`{"result":"error","msg":"Nothing to do. Specify at least one of \"add\" or \"delete\".","code":"BAD_REQUEST"}`),
  row(new E.SubgroupCycle({ group_id: 20 }),
    json`{"result":"error","msg":"User group 20 is already a subgroup of one of the passed subgroups.","code":"BAD_REQUEST"}`),
  row(new E.UserAlreadyGroupMember({ user_id: 8 }),
    json`{"result":"error","msg":"User 8 is already a member of this group","code":"BAD_REQUEST"}`),
  row(new E.UserNotGroupMember({ user_id: 8 }),
    json`{"result":"error","msg":"There is no member '8' in this user group","code":"BAD_REQUEST"}`),
  row(new E.SubgroupAlreadyMember({ group_id: 12 }),
    json`{"result":"error","msg":"User group 12 is already a subgroup of this group.","code":"BAD_REQUEST"}`),
  row(new E.NotASubgroup({ group_id: 12 }),
    json`{"result":"error","msg":"User group 12 is not a subgroup of this group.","code":"BAD_REQUEST"}`),
  row(
    new E.CannotDeactivateGroupInUse({
      objections: [
        { type: "subgroup", supergroup_ids: [15] },
        { type: "channel", channel_id: 3, settings: ["can_remove_subscribers_group"] },
        { type: "user_group", group_id: 16, settings: ["can_mention_group"] },
        { type: "realm", settings: ["can_create_public_channel_group"] }
      ]
    }),
    json`{"result":"error","msg":"Cannot deactivate user group in use.","code":"CANNOT_DEACTIVATE_GROUP_IN_USE","objections":[{"type":"subgroup","supergroup_ids":[15]},{"type":"channel","channel_id":3,"settings":["can_remove_subscribers_group"]},{"type":"user_group","group_id":16,"settings":["can_mention_group"]},{"type":"realm","settings":["can_create_public_channel_group"]}]}`
  ),
  // users
  row(new E.InvalidRole(), json`{"result":"error","msg":"Invalid role","code":"BAD_REQUEST"}`),
  row(new E.GuestCannotBeAdmin(),
    json`{"result":"error","msg":"Guests cannot be organization administrators","code":"BAD_REQUEST"}`),
  row(new E.OnlyOwner(),
    json`{"result":"error","msg":"The owner permission cannot be removed from the only organization owner.","code":"BAD_REQUEST"}`),
  row(new E.CannotDeactivateLastUser({ is_last_owner: true, entity: "organization owner" }),
    json`{"result":"error","msg":"Cannot deactivate the only organization owner.","code":"CANNOT_DEACTIVATE_LAST_USER","is_last_owner":true,"entity":"organization owner"}`),
  row(new E.NameTooLong(), json`{"result":"error","msg":"Name too long!","code":"BAD_REQUEST"}`),
  row(new E.CannotMuteSelf(), json`{"result":"error","msg":"Cannot mute self","code":"BAD_REQUEST"}`),
  row(new E.UserAlreadyMuted(), json`{"result":"error","msg":"User already muted","code":"BAD_REQUEST"}`),
  row(new E.UserNotMuted(), json`{"result":"error","msg":"User is not muted","code":"BAD_REQUEST"}`),
  row(new E.InvalidVisibilityPolicy(),
    json`{"result":"error","msg":"Invalid visibility_policy: Value error, Not in the list of possible values","code":"BAD_REQUEST"}`),
  row(new E.NameInvalidCharacters(),
    json`{"result":"error","msg":"Invalid characters in name!","code":"BAD_REQUEST"}`),
  row(new E.NameInvalidFormat(), json`{"result":"error","msg":"Invalid format!","code":"BAD_REQUEST"}`),
  row(new E.NameNotUnique(),
    json`{"result":"error","msg":"Unique names required in this organization.","code":"BAD_REQUEST"}`),
  row(new E.NameEmpty(), json`{"result":"error","msg":"Name must not be empty!","code":"BAD_REQUEST"}`),
  row(new E.ProfileFieldNotFound({ field_id: 42 }),
    json`{"result":"error","msg":"Field id 42 not found.","code":"BAD_REQUEST"}`),
  row(new E.InvalidProfileChoice({ value: "7", field_name: "Favorite editor" }),
    json`{"result":"error","msg":"'7' is not a valid choice for 'Favorite editor'.","code":"BAD_REQUEST"}`),
  row(new E.ProfileUserDeactivated({ user_id: 21 }),
    json`{"result":"error","msg":"User with ID 21 is deactivated","code":"BAD_REQUEST"}`),
  row(new E.ProfileUserIsBot({ user_id: 22 }),
    json`{"result":"error","msg":"User with ID 22 is a bot","code":"BAD_REQUEST"}`),
  row(new E.ChangeUserEmailsNotAuthorized(),
    json`{"result":"error","msg":"User not authorized to change user emails","code":"BAD_REQUEST"}`),
  row(new E.InvalidNewEmail(), json`{"result":"error","msg":"Invalid new email address.","code":"BAD_REQUEST"}`),
  row(new E.NewEmailInUse(),
    json`{"result":"error","msg":"New email value error: Already has an account.","code":"BAD_REQUEST"}`),
  row(new E.NewEmailReserved(),
    json`{"result":"error","msg":"New email value error: Reserved for system bots.","code":"BAD_REQUEST"}`),
  row(new E.NewEmailDeactivated(),
    json`{"result":"error","msg":"New email value error: Account has been deactivated.","code":"BAD_REQUEST"}`),
  // presence, status, emoji
  row(new E.InvalidPresenceStatus({ status: "away" }),
    json`{"result":"error","msg":"Invalid status: away","code":"BAD_REQUEST"}`),
  row(new E.NoNewValues(),
    json`{"result":"error","msg":"Client did not pass any new values.","code":"BAD_REQUEST"}`),
  row(new E.StatusTextTooLong(),
    json`{"result":"error","msg":"status_text is too long (limit: 60 characters)","code":"BAD_REQUEST"}`),
  row(new E.EmojiNameRequired(),
    json`{"result":"error","msg":"Client must pass emoji_name if they pass either emoji_code or reaction_type.","code":"BAD_REQUEST"}`),
  row(new E.EmojiDoesNotExist({ emoji_name: "unicorn_sparkle" }),
    json`{"result":"error","msg":"Emoji 'unicorn_sparkle' does not exist","code":"BAD_REQUEST"}`),
  row(new E.InvalidEmojiName(), json`{"result":"error","msg":"Invalid emoji name.","code":"BAD_REQUEST"}`),
  // reactions
  row(new E.ReactionAlreadyExists(),
    json`{"result":"error","msg":"Reaction already exists.","code":"REACTION_ALREADY_EXISTS"}`),
  row(new E.ReactionDoesNotExist(),
    json`{"result":"error","msg":"Reaction doesn't exist.","code":"REACTION_DOES_NOT_EXIST"}`),
  row(new E.EmojiNameOrCodeRequired(),
    json`{"result":"error","msg":"At least one of the following arguments must be present: emoji_name, emoji_code","code":"BAD_REQUEST"}`),
  row(new E.InvalidEmojiCode(), json`{"result":"error","msg":"Invalid emoji code.","code":"BAD_REQUEST"}`),
  row(new E.InvalidEmojiType(), json`{"result":"error","msg":"Invalid emoji type.","code":"BAD_REQUEST"}`),
  row(new E.InvalidCustomEmoji(), json`{"result":"error","msg":"Invalid custom emoji.","code":"BAD_REQUEST"}`),
  row(new E.InvalidCustomEmojiName(),
    json`{"result":"error","msg":"Invalid custom emoji name.","code":"BAD_REQUEST"}`),
  row(new E.CustomEmojiDeactivated(),
    json`{"result":"error","msg":"This custom emoji has been deactivated.","code":"BAD_REQUEST"}`),
  // custom profile field definitions
  row(new E.ProfileFieldLabelBlank(), json`{"result":"error","msg":"Label cannot be blank.","code":"BAD_REQUEST"}`),
  row(new E.InvalidFieldType(), json`{"result":"error","msg":"Invalid field type.","code":"BAD_REQUEST"}`),
  row(new E.ProfileFieldLabelExists(),
    json`{"result":"error","msg":"A field with that label already exists.","code":"BAD_REQUEST"}`),
  row(new E.ProfileSummaryTypeUnsupported(),
    json`{"result":"error","msg":"Field type not supported for display in profile summary.","code":"BAD_REQUEST"}`),
  row(new E.ProfileSummaryLimit(),
    json`{"result":"error","msg":"Only 2 custom profile fields can be displayed in the profile summary.","code":"BAD_REQUEST"}`),
  row(new E.SelectFieldNoChoices(),
    json`{"result":"error","msg":"Field must have at least one choice.","code":"BAD_REQUEST"}`),
  row(new E.SelectFieldDuplicateChoices(),
    json`{"result":"error","msg":"Field must not have duplicate choices.","code":"BAD_REQUEST"}`),
  row(new E.FieldDataNotAllowedType(),
    json`{"result":"error","msg":"field_data contains a value that is not an allowed_type","code":"BAD_REQUEST"}`),
  row(new E.FieldDataKeyMissing({ key: "order" }),
    json`{"result":"error","msg":"order key is missing from field_data","code":"BAD_REQUEST"}`),
  row(new E.InvalidExternalAccountType(),
    json`{"result":"error","msg":"Invalid external account type","code":"BAD_REQUEST"}`),
  row(new E.CustomExternalAccountUrlRequired(),
    json`{"result":"error","msg":"Custom external account must define URL pattern","code":"BAD_REQUEST"}`),
  row(new E.UrlPatternMissingUsername(),
    json`{"result":"error","msg":"URL pattern must contain '%(username)s'.","code":"BAD_REQUEST"}`),
  row(new E.DefaultFieldNotUpdatable(),
    json`{"result":"error","msg":"Default custom field cannot be updated.","code":"BAD_REQUEST"}`),
  // drafts, snippets
  row(new E.DraftsSyncDisabled(),
    json`{"result":"error","msg":"User has disabled synchronizing drafts.","code":"BAD_REQUEST"}`),
  row(new E.TimestampNegative(),
    json`{"result":"error","msg":"Timestamp must not be negative.","code":"BAD_REQUEST"}`),
  row(new E.DraftChannelCount(),
    json`{"result":"error","msg":"Must specify exactly 1 channel ID for channel messages","code":"BAD_REQUEST"}`),
  row(new E.DraftNotFound(), json`{"result":"error","msg":"Draft does not exist","code":"BAD_REQUEST"}`),
  row(new E.SavedSnippetNotFound(),
    json`{"result":"error","msg":"Saved snippet does not exist.","code":"BAD_REQUEST"}`),
  row(new E.SavedSnippetTitleEmpty(),
    json`{"result":"error","msg":"Title cannot be empty.","code":"BAD_REQUEST"}`),
  // invitations
  row(new E.InvalidInviteChannel({ stream_id: 31 }),
    json`{"result":"error","msg":"Invalid channel ID 31. No invites were sent.","code":"BAD_REQUEST"}`),
  row(new E.CannotSubscribeOthers(),
    json`{"result":"error","msg":"You do not have permission to subscribe other users to channels.","code":"BAD_REQUEST"}`),
  row(new E.NoSuchInvitation(), json`{"result":"error","msg":"No such invitation","code":"BAD_REQUEST"}`),
  row(new E.InvitationAlreadyRevoked(),
    json`{"result":"error","msg":"Invitation has already been revoked","code":"BAD_REQUEST"}`),
  row(new E.InvitationLinkUnknown(),
    json`{"result":"error","msg":"This invitation link is not valid. Check that you copied the whole link, or ask for a new one.","code":"BAD_REQUEST"}`),
  row(new E.InvitationLinkExpired(),
    json`{"result":"error","msg":"This invitation link has expired. Ask the person who invited you for a new one.","code":"BAD_REQUEST"}`),
  row(new E.InvitationLinkRevoked(),
    json`{"result":"error","msg":"This invitation link has been revoked. Ask the person who invited you for a new one.","code":"BAD_REQUEST"}`),
  row(new E.InvitationLinkMakerNotAllowed(),
    json`{"result":"error","msg":"The person who made this invitation link may no longer invite people with it. Ask for a new one.","code":"BAD_REQUEST"}`),
  row(new E.PasswordTooWeak(), json`{"result":"error","msg":"The password is too weak.","code":"BAD_REQUEST"}`),
  // flags and narrows
  row(new E.InvalidFlag({ flag: "is_private" }),
    json`{"result":"error","msg":"Invalid flag: 'is_private'","code":"BAD_REQUEST"}`),
  row(new E.FlagNotEditable({ flag: "mentioned" }),
    json`{"result":"error","msg":"Flag not editable: 'mentioned'","code":"BAD_REQUEST"}`),
  row(new E.InvalidFlagOperation({ operation: "toggle" }),
    json`{"result":"error","msg":"Invalid message flag operation: 'toggle'","code":"BAD_REQUEST"}`),
  row(new E.InvalidMessages(), json`{"result":"error","msg":"Invalid message(s)","code":"BAD_REQUEST"}`),
  row(new E.AnchorExcludedMidRange(),
    json`{"result":"error","msg":"The anchor can only be excluded at an end of the range","code":"BAD_REQUEST"}`),
  row(new E.InvalidAnchor(), json`{"result":"error","msg":"Invalid anchor","code":"BAD_REQUEST"}`),
  row(new E.NoSuchTopic({ topic: "Lunch" }), json`{"result":"error","msg":"No such topic 'Lunch'","code":"BAD_REQUEST"}`),
  row(new E.ReadReceiptsDisabled(),
    json`{"result":"error","msg":"Read receipts are disabled in this organization.","code":"BAD_REQUEST"}`),
  row(new E.InvalidSubmessageJson(), json`{"result":"error","msg":"Invalid json for submessage","code":"BAD_REQUEST"}`),
  row(new E.SubmessageNotAllowed(),
    json`{"result":"error","msg":"You cannot attach a submessage to this message.","code":"BAD_REQUEST"}`),
  row(new E.PrevContentMismatch(),
    json`{"result":"error","msg":"'prev_content_sha256' value does not match the expected value.","code":"EXPECTATION_MISMATCH"}`),
  row(new E.EditHistoryDisabled(),
    json`{"result":"error","msg":"Message edit history is disabled in this organization","code":"BAD_REQUEST"}`),
  row(new E.MoveTimeLimitExceeded({ first_message_id_allowed_to_move: 41, total_messages_in_topic: 5, total_messages_allowed_to_move: 2 }),
    json`{"result":"error","msg":"You only have permission to move the 2/5 most recent messages in this topic.","code":"MOVE_MESSAGES_TIME_LIMIT_EXCEEDED","first_message_id_allowed_to_move":41,"total_messages_in_topic":5,"total_messages_allowed_to_move":2}`),
  row(new E.NarrowElementNotStringPair({ index: 2 }),
    json`{"result":"error","msg":"Invalid narrow[2]: Value error, element is not a string pair","code":"BAD_REQUEST"}`),
  row(new E.NarrowOperandMissing({ index: 0 }), json`{"result":"error","msg":"Invalid narrow[0]: Value error, operand is missing","code":"BAD_REQUEST"}`),
  row(new E.NarrowOperatorMissing({ index: 1 }), json`{"result":"error","msg":"Invalid narrow[1]: Value error, operator is missing","code":"BAD_REQUEST"}`),
  row(new E.NarrowDictOrListRequired({ index: 0 }),
    json`{"result":"error","msg":"Invalid narrow[0]: Value error, dict or list required","code":"BAD_REQUEST"}`),
  row(new E.BadNarrow({ desc: "unknown operator whatever" }),
    json`{"result":"error","msg":"Invalid narrow operator: unknown operator whatever","code":"BAD_NARROW","desc":"unknown operator whatever"}`),
  row(new E.InvalidNarrowCombination({ desc: "Duplicate 'with' operators." }),
    json`{"result":"error","msg":"Invalid narrow operator combination: Duplicate 'with' operators.","code":"BAD_NARROW","desc":"Duplicate 'with' operators."}`),
  // deletion
  row(new E.CannotDeleteMessage(),
    json`{"result":"error","msg":"You don't have permission to delete this message","code":"BAD_REQUEST"}`),
  row(new E.MessageDeleteTimeLimitPassed(),
    json`{"result":"error","msg":"The time limit for deleting this message has passed","code":"BAD_REQUEST"}`),
  // push
  row(new E.PushServiceNotConfigured(),
    json`{"result":"error","msg":"Server is not configured to use push notification service.","code":"PUSH_SERVICE_NOT_CONFIGURED"}`)
]

const classOf = (error: ZulipError.ZulipError) => E.AllErrors.find((C) => error instanceof C)

describe("Errors catalogue", () => {
  for (const { body, code, error } of table) {
    it(`${error._tag}: ${code}`, () => {
      assert.strictEqual(JSON.stringify(ZulipError.toWireBody(error)), body)
      assert.deepStrictEqual(error.wire, JSON.parse(body))
      assert.strictEqual(error.code, code)
      assert.strictEqual(error.message, error.msg)
      // The class knows its code without an instance.
      const C = classOf(error)
      assert.isDefined(C)
      assert.deepStrictEqual([C?.tag, C?.code], [error._tag, code])
    })
  }

  it("errors say what went wrong, not how HTTP answers it: no status, no headers", () => {
    for (const { error } of table) {
      assert.notProperty(error, "httpStatus", error._tag)
      assert.notProperty(error, "headers", error._tag)
    }
    for (const C of E.AllErrors) assert.notProperty(C, "httpStatus", C.tag)
  })

  it("the table covers every class of AllErrors exactly once", () => {
    const tested = table.map((r) => r.error._tag).sort()
    const all = E.AllErrors.map((C) => C.tag).sort()
    assert.deepStrictEqual(tested, all)
    assert.strictEqual(new Set(all).size, all.length)
  })

  it("wireKeys lists the data fields under their wire names", () => {
    assert.deepStrictEqual(E.RateLimitHit.wireKeys, ["retry-after"])
    assert.deepStrictEqual(E.RequestConfusingVar.wireKeys, ["var_name1", "var_name2"])
    assert.deepStrictEqual(E.InvalidUserId.wireKeys, [])
  })

  it("BadNarrow constructors build Zulip's descriptions", () => {
    assert.deepStrictEqual(
      [
        E.BadNarrow.unknownOperator("foo"),
        E.BadNarrow.unknownOperand("is", "sleepy"),
        E.BadNarrow.unknownOperand("has", "video"),
        E.BadNarrow.unknownOperand("in", "attic"),
        E.BadNarrow.unknownChannel("Lost"),
        E.BadNarrow.unknownChannelsOperand("private"),
        E.BadNarrow.channelAndDirect()
      ].map((e) => e.msg),
      [
        "Invalid narrow operator: unknown operator foo",
        "Invalid narrow operator: unknown 'is' operand sleepy",
        "Invalid narrow operator: unknown 'has' operand video",
        "Invalid narrow operator: unknown 'in' operand attic",
        "Invalid narrow operator: unknown channel Lost",
        "Invalid narrow operator: unknown channels operand private",
        "Invalid narrow operator: No message can be both a channel message and direct message"
      ]
    )
  })
})

describe("Errors in Effect programs", () => {
  it.effect("yielding an error fails the effect with that error", () =>
    Effect.gen(function*() {
      const program = Effect.gen(function*() {
        return yield* new E.InvalidApiKey()
      })
      const error = yield* Effect.flip(program)
      assert.instanceOf(error, E.InvalidApiKey)
      assert.strictEqual(error._tag, "InvalidApiKey")
      assert.deepStrictEqual(error.wire, { result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" })
    }))

  it.effect("Effect.catchTag catches by tag and lets other errors through", () =>
    Effect.gen(function*() {
      const lookup = (id: number) =>
        Effect.gen(function*() {
          if (id < 0) return yield* new E.InvalidUserId({ user_id: id })
          if (id > 100) return yield* new E.StreamDoesNotExist({ stream_id: id })
          return `channel ${id}`
        }).pipe(Effect.catchTag("StreamDoesNotExist", (e) => Effect.succeed(`missing ${e.stream_id}`)))

      assert.strictEqual(yield* lookup(7), "channel 7")
      assert.strictEqual(yield* lookup(101), "missing 101")
      const other = yield* Effect.flip(lookup(-2))
      assert.strictEqual(other._tag, "InvalidUserId")
      assert.strictEqual(other.msg, "Invalid user ID -2")
    }))

  it.effect("errors are schema classes: decoding builds an instance, encoding drops the derived members", () =>
    Effect.gen(function*() {
      const decoded = yield* Schema.decodeUnknownEffect(E.StreamDoesNotExist)({
        _tag: "StreamDoesNotExist",
        stream_id: 4
      })
      assert.instanceOf(decoded, E.StreamDoesNotExist)
      assert.strictEqual(decoded.msg, "Channel with ID '4' does not exist")
      const encoded = yield* Schema.encodeEffect(E.RateLimitHit)(new E.RateLimitHit({ retry_after_seconds: 3 }))
      assert.deepStrictEqual(encoded, { _tag: "RateLimitHit", retry_after_seconds: 3 })
    }))
})

describe("isZulipError", () => {
  it("is true for every catalogue error", () => {
    for (const { error } of table) assert.isTrue(ZulipError.isZulipError(error), error._tag)
  })

  it("is false for other values", () => {
    class Other extends Schema.TaggedError<Other>()("Other", { msg: Schema.String }) {}
    const lookalike = {
      _tag: "BadRequest",
      code: "BAD_REQUEST",
      httpStatus: 400,
      msg: "x",
      wire: { result: "error", msg: "x", code: "BAD_REQUEST" }
    }
    for (const value of [new Error("boom"), new Other({ msg: "x" }), lookalike, {}, null, undefined, "BAD_REQUEST", 400]) {
      assert.isFalse(ZulipError.isZulipError(value))
    }
  })
})

describe("ZulipError.make", () => {
  it("defines a new error with data fields and params", () => {
    class Teapot extends ZulipError.make<Teapot>()("Teapot", {
      code: "TEAPOT",
      fields: { pot_id: Schema.Int },
      params: { color: Schema.String },
      message: ({ color, pot_id }) => `Pot ${pot_id} is ${color}`
    }) {}
    const e = new Teapot({ pot_id: 2, color: "blue" })
    assert.strictEqual(JSON.stringify(e.wire), `{"result":"error","msg":"Pot 2 is blue","code":"TEAPOT","pot_id":2}`)
    assert.deepStrictEqual([e._tag, e.code, e.msg], ["Teapot", "TEAPOT", "Pot 2 is blue"])
    assert.isTrue(ZulipError.isZulipError(e))
  })

  it("requires a message unless msg is a field", () => {
    assert.throws(() => ZulipError.make<never>()("NoMessage", { code: "BAD_REQUEST" }))
  })
})
