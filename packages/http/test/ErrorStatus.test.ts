/**
 * The HTTP status and headers of every Zulip error, chosen by the HTTP
 * adapter (core errors carry only their code, message and data fields).
 */
import { assert, describe, it } from "@effect/vitest"
import { Errors, ZulipError } from "@teamchat/core"
import * as ErrorStatus from "../src/internal/ErrorStatus.ts"
import * as HttpErrors from "../src/internal/Errors.ts"

const table: ReadonlyArray<readonly [ZulipError.ZulipError, number]> = [
  [new Errors.BadRequest({ msg: "Organization name can't be empty." }), 400],
  [new Errors.ResourceNotFound({ msg: "Reminder does not exist" }), 404],
  [new HttpErrors.NotFoundRoute(), 404],
  [new Errors.AccessDenied(), 403],
  [new Errors.InsufficientPermission(), 400],
  [new Errors.RequestVariableMissing({ var_name: "content" }), 400],
  [new Errors.RequestConfusingVar({ var_name1: "topic", var_name2: "subject" }), 400],
  [new Errors.RequestVariableInvalid({ var_name: "anchor", bad_value: "banana" }), 400],
  [new Errors.InvalidJson(), 400],
  [new Errors.NotAnInteger({ var_name: "num_before" }), 400],
  [new Errors.NotABoolean({ var_name: "dont_block" }), 400],
  [new Errors.NotAString({ var_name: "drafts[0][\"topic\"]" }), 400],
  [new Errors.NotAList({ var_name: "members" }), 400],
  [new Errors.NotADict({ var_name: "field_data" }), 400],
  [new Errors.NotAFloat({ var_name: "timestamp" }), 400],
  [new Errors.NotADate({ var_name: "Birthday" }), 400],
  [new Errors.NotAUrl({ var_name: "field_data[\"url_pattern\"]" }), 400],
  [new Errors.NotValidJson({ var_name: "to" }), 400],
  [new Errors.ArgumentNotValidJson({ var_name: "field_type" }), 400],
  [new Errors.TooSmall({ var_name: "num_after" }), 400],
  [new Errors.TooLarge({ var_name: "history_limit_days" }), 400],
  [new Errors.TooLong({ var_name: "name", max_length: 40 }), 400],
  [new Errors.TooShort({ var_name: "password" }), 400],
  [new Errors.CannotBeBlank({ var_name: "drafts[0][\"content\"]" }), 400],
  [new Errors.RequiredStringBlank({ var_name: "field_data[\"order\"]" }), 400],
  [new Errors.InvalidParameter({ var_name: "invite_as" }), 400],
  [new Errors.UnexpectedArgument({ argument: "id", var_name: "drafts[0]" }), 400],
  [new Errors.Unauthorized(), 401],
  [new Errors.MissingBasicAuthHeader(), 401],
  [new Errors.InvalidBasicAuthHeader(), 401],
  [new Errors.BasicAuthRequired(), 400],
  [new Errors.InvalidApiKey(), 401],
  [new Errors.MalformedApiKey(), 401],
  [new Errors.UserDeactivated(), 401],
  [new Errors.RealmDeactivated(), 401],
  [new Errors.AuthenticationFailed(), 401],
  [new Errors.PasswordAuthDisabled(), 401],
  [new Errors.PasswordResetRequired(), 401],
  [new Errors.AccountNotInSubdomain(), 400],
  [new Errors.WebhookBotsNotAllowed(), 400],
  [new Errors.NonexistentSubdomain(), 404],
  [new Errors.InvalidEmailAddress(), 400],
  [new Errors.DevEndpointInProduction(), 400],
  [new Errors.DevAuthNotEnabled(), 400],
  [new Errors.RateLimitHit({ retry_after_seconds: 28.706807374954224 }), 429],
  [new Errors.OrganizationAdministratorRequired(), 400],
  [new Errors.OrganizationOwnerRequired(), 400],
  [new Errors.OrganizationMemberRequired(), 400],
  [new Errors.InviteAsAdministratorRequired(), 400],
  [new Errors.NotAllowedForGuests(), 400],
  [new Errors.BotsNotAllowed(), 400],
  [new Errors.UserNotAuthorizedForQuery(), 400],
  [new Errors.CannotAdministerChannel(), 400],
  [new Errors.BadEventQueueId({ queue_id: "1375801870:2942" }), 400],
  [new Errors.EventPruned({ last_event_id: 3 }), 400],
  [new Errors.EventNotInQueue({ last_event_id: 5 }), 400],
  [new Errors.MissingQueueId(), 400],
  [new Errors.MissingLastEventId(), 400],
  [new Errors.NarrowOperatorNotSupported({ operator: "search" }), 400],
  [new Errors.NarrowOperandNotSupported({ operand: "followed" }), 400],
  [new Errors.EventQueueAllocationFailed(), 400],
  [new Errors.StreamDoesNotExist({ stream_id: 9 }), 400],
  [new Errors.StreamNameDoesNotExist({ stream: "nowhere" }), 400],
  [new Errors.InvalidChannelId(), 400],
  [new Errors.InvalidUserId({ user_id: 1234 }), 400],
  [new Errors.InvalidUserIdColon({ user_id: 1234 }), 400],
  [new Errors.NoSuchUser(), 400],
  [new Errors.TopicNullBytes(), 400],
  [new Errors.MessageNullBytes(), 400],
  [new Errors.RecipientListUserIdsOnly(), 400],
  [new Errors.ScheduledDeliveryTimeNotInFuture(), 400],
  [new Errors.NothingToChange(), 400],
  [new Errors.ScheduledRecipientRequired(), 400],
  [new Errors.ScheduledTopicRequired(), 400],
  [new Errors.ScheduledMessageAlreadySent(), 400],
  [new Errors.ScheduledMessageNotFound(), 404],
  [new Errors.ScheduledMessageDeliveryLate(), 400],
  [new Errors.InvalidUserGroup(), 400],
  [new Errors.InvalidSubgroupId({ group_id: 77 }), 400],
  [new Errors.UserGroupNameEmpty(), 400],
  [new Errors.UserGroupNameTooLong(), 400],
  [new Errors.UserGroupNameReservedPrefix({ prefix: "role:" }), 400],
  [new Errors.UserGroupNameExists({ name: "support" }), 400],
  [new Errors.UserGroupDeactivated(), 400],
  [new Errors.NoNewData(), 400],
  [new Errors.ExpectationMismatch({ field_name: "old" }), 400],
  [new Errors.GroupSettingCannotBeInternet({ setting_name: "can_manage_group" }), 400],
  [new Errors.GroupSettingCannotBeEveryone({ setting_name: "can_join_group" }), 400],
  [new Errors.SystemGroupRequired({ setting_name: "can_access_all_users_group" }), 400],
  [new Errors.GroupSettingCannotBeOwners({ setting_name: "can_mention_group" }), 400],
  [new Errors.GroupMembersNothingToDo(), 400],
  [new Errors.SubgroupsNothingToDo(), 400],
  [new Errors.SubgroupCycle({ group_id: 20 }), 400],
  [new Errors.UserAlreadyGroupMember({ user_id: 8 }), 400],
  [new Errors.UserNotGroupMember({ user_id: 8 }), 400],
  [new Errors.SubgroupAlreadyMember({ group_id: 12 }), 400],
  [new Errors.NotASubgroup({ group_id: 12 }), 400],
  [new Errors.CannotDeactivateGroupInUse({ objections: [ { type: "subgroup", supergroup_ids: [15] }, { type: "channel", channel_id: 3, settings: ["can_remove_subscribers_group"] }, { type: "user_group", group_id: 16, settings: ["can_mention_group"] }, { type: "realm", settings: ["can_create_public_channel_group"] } ] }), 400],
  [new Errors.InvalidRole(), 400],
  [new Errors.GuestCannotBeAdmin(), 400],
  [new Errors.OnlyOwner(), 400],
  [new Errors.NameTooLong(), 400],
  [new Errors.NameInvalidCharacters(), 400],
  [new Errors.NameInvalidFormat(), 400],
  [new Errors.NameNotUnique(), 400],
  [new Errors.NameEmpty(), 400],
  [new Errors.ProfileFieldNotFound({ field_id: 42 }), 400],
  [new Errors.InvalidProfileChoice({ value: "7", field_name: "Favorite editor" }), 400],
  [new Errors.ProfileUserDeactivated({ user_id: 21 }), 400],
  [new Errors.ProfileUserIsBot({ user_id: 22 }), 400],
  [new Errors.ChangeUserEmailsNotAuthorized(), 400],
  [new Errors.InvalidNewEmail(), 400],
  [new Errors.NewEmailInUse(), 400],
  [new Errors.NewEmailDeactivated(), 400],
  [new Errors.InvalidPresenceStatus({ status: "away" }), 400],
  [new Errors.NoNewValues(), 400],
  [new Errors.StatusTextTooLong(), 400],
  [new Errors.EmojiNameRequired(), 400],
  [new Errors.EmojiDoesNotExist({ emoji_name: "unicorn_sparkle" }), 400],
  [new Errors.InvalidEmojiName(), 400],
  [new Errors.InvalidEmojiCode(), 400],
  [new Errors.InvalidEmojiType(), 400],
  [new Errors.InvalidCustomEmoji(), 400],
  [new Errors.InvalidCustomEmojiName(), 400],
  [new Errors.CustomEmojiDeactivated(), 400],
  [new Errors.ProfileFieldLabelBlank(), 400],
  [new Errors.InvalidFieldType(), 400],
  [new Errors.ProfileFieldLabelExists(), 400],
  [new Errors.ProfileSummaryTypeUnsupported(), 400],
  [new Errors.ProfileSummaryLimit(), 400],
  [new Errors.SelectFieldNoChoices(), 400],
  [new Errors.SelectFieldDuplicateChoices(), 400],
  [new Errors.FieldDataNotAllowedType(), 400],
  [new Errors.FieldDataKeyMissing({ key: "order" }), 400],
  [new Errors.InvalidExternalAccountType(), 400],
  [new Errors.CustomExternalAccountUrlRequired(), 400],
  [new Errors.UrlPatternMissingUsername(), 400],
  [new Errors.DefaultFieldNotUpdatable(), 400],
  [new Errors.DraftsSyncDisabled(), 400],
  [new Errors.TimestampNegative(), 400],
  [new Errors.DraftChannelCount(), 400],
  [new Errors.DraftNotFound(), 404],
  [new Errors.SavedSnippetNotFound(), 404],
  [new Errors.SavedSnippetTitleEmpty(), 400],
  [new Errors.InvalidInviteChannel({ stream_id: 31 }), 400],
  [new Errors.CannotSubscribeOthers(), 400],
  [new Errors.InvalidFlag({ flag: "is_private" }), 400],
  [new Errors.FlagNotEditable({ flag: "mentioned" }), 400],
  [new Errors.InvalidFlagOperation({ operation: "toggle" }), 400],
  [new Errors.InvalidMessages(), 400],
  [new Errors.AnchorExcludedMidRange(), 400],
  [new Errors.InvalidAnchor(), 400],
  [new Errors.NarrowElementNotStringPair({ index: 2 }), 400],
  [new Errors.NarrowOperandMissing({ index: 0 }), 400],
  [new Errors.NarrowOperatorMissing({ index: 1 }), 400],
  [new Errors.NarrowDictOrListRequired({ index: 0 }), 400],
  [new Errors.BadNarrow({ desc: "unknown operator whatever" }), 400],
  [new Errors.InvalidNarrowCombination({ desc: "Duplicate 'with' operators." }), 400],
  [new Errors.PushServiceNotConfigured(), 400],
  // the HTTP adapter's own errors
  [new HttpErrors.PayloadTooLarge({ max_bytes: 256 }), 413],
  [new HttpErrors.NullCharacters({ var_name: "content" }), 400],
  [new HttpErrors.InternalServerError(), 500]
]

const challenge = { "WWW-Authenticate": "Basic realm=\"zulip\"" }

describe("ErrorStatus", () => {
  for (const [error, status] of table) {
    it(`${error._tag}: ${status}`, () => {
      assert.strictEqual(ErrorStatus.status(error), status)
    })
  }

  it("the table covers every core error and the adapter's own exactly once", () => {
    const tested = table.map(([error]) => error._tag).sort()
    const all = [
      ...Errors.AllErrors.map((C) => C.tag),
      "NotFoundRoute",
      "PayloadTooLarge",
      "NullCharacters",
      "InternalServerError"
    ].sort()
    assert.deepStrictEqual(tested, all)
    assert.strictEqual(new Set(all).size, all.length)
  })

  it("401 UNAUTHORIZED errors carry the Basic challenge; 429 carries Retry-After", () => {
    for (const e of [new Errors.Unauthorized(), new Errors.MissingBasicAuthHeader(), new Errors.InvalidBasicAuthHeader()]) {
      assert.deepStrictEqual(ErrorStatus.headers(e), challenge)
    }
    assert.deepStrictEqual(ErrorStatus.headers(new Errors.RateLimitHit({ retry_after_seconds: 2.5 })), { "Retry-After": "2.5" })
    assert.deepStrictEqual(ErrorStatus.headers(new Errors.InvalidApiKey()), {})
    assert.deepStrictEqual(ErrorStatus.headers(new Errors.StreamDoesNotExist({ stream_id: 1 })), {})
  })
})
