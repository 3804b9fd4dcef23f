/**
 * POST /register: registers an event queue and builds the initial state for
 * the requested event types (Zulip's `do_events_register` /
 * `fetch_initial_state_data`).
 *
 * The queue is created first, starting at the log's newest event; the state
 * is read afterwards, so a change committed meanwhile is delivered on the
 * queue (possibly also already in the state) rather than lost. Hence
 * `last_event_id` is always -1: no event is counted as already applied.
 *
 * Keys whose feature has not landed yet are present with Zulip's empty
 * values, so strict clients (the mobile app) parse the response.
 *
 * @since 0.1.0
 */
import { MaxFileUploadSizeMib } from "../domain/Attachment.ts"
import { CustomProfileFieldTypes, DefaultExternalAccounts, toApiField } from "../domain/CustomProfileField.ts"
import type { ProfileData } from "../domain/CustomProfileField.ts"
import { ProfileFieldRepo } from "../ports/ProfileFieldRepo.ts"
import { profileDataByUser } from "./internal/profileValues.ts"
import { createHash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Channel } from "../domain/Channel.ts"
import { MaxChannelDescriptionLength, MaxChannelNameLength } from "../domain/Channel.ts"
import { apiUrl } from "../domain/Emoji.ts"
import { isNamed } from "../domain/GroupSetting.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import type { ChannelId, GroupId } from "../domain/Ids.ts"
import { isAdministrator, isGuest, isModeratorOrAbove, isOwner } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import { DisplaySettingsLegacy, NotificationSettingsLegacy } from "../domain/UserSettings.ts"
import { canAccessUser, canSeeChannel, makeAccessLoader, postPolicyGroupsIn } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { activeSubscriberIds } from "./events/subscriptionEvents.ts"
import { hasGroupPermission } from "../permissions/GroupMembership.ts"
import { messageState } from "./internal/messageState.ts"
import { AlertWordRepo, MessageRepo, SubscriptionRepo } from "../ports/Repositories.ts"
import { MutingRepo } from "../ports/MutingRepo.ts"
import { EmptyTopicDisplayName } from "../domain/Message.ts"
import { mutedTopicsList } from "./Muting.ts"
import { Drafts } from "./Drafts.ts"
import { SavedSnippets } from "./SavedSnippets.ts"
import { ScheduledMessages } from "./ScheduledMessages.ts"
import type { Principal } from "../domain/Principal.ts"
import { UserSettings } from "./UserSettings.ts"
import { PushDevices } from "./PushDevices.ts"
import { UserStatus } from "./UserStatus.ts"
import { Presence } from "./Presence.ts"
import { toApiChannel, toApiSubscription } from "../views/ChannelView.ts"
import type { PostPolicyGroups } from "../views/ChannelView.ts"
import { systemGroupIdsOf } from "../domain/UserGroup.ts"
import { toApiUserGroup } from "../views/UserGroupView.ts"
import type { ApiUserGroup } from "../views/UserGroupView.ts"
import { avatarUrl, inaccessibleUser, toApiUser } from "../views/UserView.ts"
import type { Capabilities } from "../domain/Event.ts"
import { EventQueues } from "./events/EventQueues.ts"
import type { RegisterQueueError, RegisterQueueParams } from "./events/EventQueues.ts"

/** What the server reports about itself. @category models */
export interface ServerInfo {
  readonly zulip_version: string
  readonly zulip_feature_level: number
  readonly zulip_merge_base: string
  /** Absolute base URL of this server, e.g. "http://localhost:9991" (for `server_emoji_data_url`). */
  readonly base_url: string
  /** Seconds since the epoch when this server process started. */
  readonly server_generation?: number | undefined
}

/** POST /register parameters, decoded. @category models */
export interface RegisterParams extends RegisterQueueParams {
  /** Initial state to fetch; absent: `event_types`; both absent: everything. */
  readonly fetch_event_types?: ReadonlyArray<string> | null | undefined
  /** How many days back the initial `presences` reach; absent: 14. */
  readonly presence_history_limit_days?: number | undefined
}

/** Limits reported with `realm` (`max_file_upload_size_mib`: the server's, `MaxFileUploadSizeMib`). @category constants */
export const Limits = {
  max_message_length: 10000,
  max_topic_length: 60,
  max_stream_name_length: MaxChannelNameLength,
  max_stream_description_length: MaxChannelDescriptionLength,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
  max_reminder_note_length: 1000,
  max_file_upload_size_mib: 100,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  max_bulk_new_subscription_messages: 100,
  event_queue_longpoll_timeout_seconds: 90,
  server_presence_ping_interval_seconds: 60,
  server_presence_offline_threshold_seconds: 140,
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 5000,
  server_typing_started_wait_period_milliseconds: 10000
} as const

/** @category services */
export class Register extends Context.Service<Register, {
  /** POST /register: the response body without result/msg. */
  register(principal: Principal, params: RegisterParams, server: ServerInfo): Effect.Effect<Record<string, unknown>, RegisterQueueError>
  /** The initial state alone (no queue): keys for the wanted types. */
  initialState(
    principal: Principal,
    want: (type: string) => boolean,
    options: InitialStateOptions,
    server: ServerInfo
  ): Effect.Effect<Record<string, unknown>>
}>()("teamchat/core/services/Register") {
  static readonly layer = Layer.effect(
    Register,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const queues = yield* EventQueues
      const settings = yield* UserSettings
      const subscriptions = yield* SubscriptionRepo
      const alertWords = yield* AlertWordRepo
      const profileFields = yield* ProfileFieldRepo
      const messageRepo = yield* MessageRepo
      const scheduledMessages = yield* ScheduledMessages
      const statuses = yield* UserStatus
      const presence = yield* Presence
      const drafts = yield* Drafts
      const savedSnippets = yield* SavedSnippets
      const pushDevices = yield* PushDevices
      const muting = yield* MutingRepo
      const maxFileUploadSizeMib = yield* MaxFileUploadSizeMib

      const initialState = Effect.fn("Register.initialState")(function*(
        principal: Principal,
        want: (type: string) => boolean,
        options: InitialStateOptions,
        server: ServerInfo
      ) {
        const { realm } = principal
        const ctx = yield* loadAccess(realm)
        const user = ctx.state.usersById.get(principal.user.id) ?? principal.user
        // The user's subscription rows (inactive ones too), read once for
        // `subscriptions`/`unsubscribed` and for the unread counts.
        const ownSubscriptions = yield* subscriptions.listByUser(user.id)
        const ids = systemGroupIdsOf(ctx.state.groups)
        const policy = postPolicyGroupsIn(ctx)
        const state: Record<string, unknown> = {}
        const caps = options.capabilities
        const now = yield* Clock.currentTimeMillis

        if (want("alert_words")) state.alert_words = [...(yield* alertWords.list(user.id))].sort()
        if (want("custom_profile_fields")) {
          state.custom_profile_fields = (yield* profileFields.listByRealm(realm.id)).map(toApiField)
          state.custom_profile_field_types = CustomProfileFieldTypes
        }
        if (want("drafts")) state.drafts = yield* drafts.registerState(principal)
        // The user's topic policies, read once for `user_topics`, `muted_topics` and the unread counts.
        const topicPolicies = want("muted_topics") || want("user_topic") || (want("message") && want("update_message_flags"))
          ? yield* muting.listTopics(user.id)
          : []
        // Zulip 6.0: the legacy list only when the state fetched is everything or leaves out `user_topic`.
        if (want("muted_topics") && !(options.eventTypes?.includes("user_topic") ?? false)) {
          state.muted_topics = mutedTopicsList(ctx, topicPolicies)
        }
        if (want("muted_users")) {
          state.muted_users = (yield* muting.listMuted(user.id)).map((row) => ({ id: row.muted_user_id, timestamp: row.date_muted }))
        }
        if (want("presence")) {
          Object.assign(
            state,
            yield* presence.snapshot(principal, {
              slim: options.slimPresence,
              historyLimitDays: options.presenceHistoryLimitDays
            })
          )
        }
        if (want("realm")) {
          Object.assign(state, realmState(ctx, user, ids, server, now), { max_file_upload_size_mib: maxFileUploadSizeMib })
        }
        if (want("realm_bot")) state.realm_bots = []
        if (want("realm_embedded_bots")) state.realm_embedded_bots = []
        if (want("realm_incoming_webhook_bots")) state.realm_incoming_webhook_bots = []
        if (want("realm_domains")) state.realm_domains = []
        if (want("realm_emoji")) state.realm_emoji = {}
        if (want("realm_linkifiers")) state.realm_linkifiers = []
        if (want("realm_filters")) state.realm_filters = []
        if (want("realm_playgrounds")) state.realm_playgrounds = []
        if (want("realm_user")) {
          Object.assign(state, realmUserState(ctx, user, options, yield* profileDataByUser(profileFields, realm.id)))
        }
        if (want("realm_user_groups")) state.realm_user_groups = userGroups(ctx, caps)
        if (want("realm_user_settings_defaults")) {
          const defaults = { ...(yield* settings.values(user)) } as Record<string, unknown>
          delete defaults.timezone
          state.realm_user_settings_defaults = {
            ...defaults,
            email_address_visibility: realm.settings.email_address_visibility,
            emojiset_choices: (yield* settings.get(user)).emojiset_choices,
            available_notification_sounds: (yield* settings.get(user)).available_notification_sounds
          }
        }
        if (want("reminders")) state.reminders = []
        if (want("saved_snippets")) state.saved_snippets = yield* savedSnippets.list(principal)
        if (want("scheduled_messages")) state.scheduled_messages = yield* scheduledMessages.listForUser(user.id)
        if (want("stream")) {
          state.streams = ctx.channels
            .filter((c) => (caps.archived_channels || !c.is_archived) && canSeeChannel(ctx, user, c))
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
            .map((c) => toApiChannel(c, subscriberIdsOf(ctx, c.id).length, policy))
        }
        if (want("default_streams")) {
          state.realm_default_streams = ctx.channels.filter((c) => c.is_default && canSeeChannel(ctx, user, c)).map((c) =>
            toApiChannel(c, subscriberIdsOf(ctx, c.id).length, policy)
          )
        }
        if (want("default_stream_groups")) state.realm_default_stream_groups = []
        if (want("stop_words")) state.stop_words = []
        if (want("subscription")) Object.assign(state, subscriptionStateOf(ctx, user, ownSubscriptions, options, policy))
        Object.assign(state, yield* messageState(
          messageRepo,
          user.id,
          ownSubscriptions,
          want,
          caps.empty_topic_name,
          topicPolicies
        ))
        if (want("user_settings")) state.user_settings = yield* settings.get(user)
        if (!caps.user_settings_object) {
          const values = yield* settings.get(user)
          if (want("update_display_settings")) {
            for (const key of DisplaySettingsLegacy) state[key] = values[key]
            state.timezone = values.timezone
            state.emojiset_choices = values.emojiset_choices
          }
          if (want("update_global_notifications")) {
            for (const key of NotificationSettingsLegacy) state[key] = values[key]
            state.available_notification_sounds = values.available_notification_sounds
          }
        }
        if (want("user_status")) state.user_status = yield* statuses.registerState(principal)
        if (want("user_topic")) {
          state.user_topics = topicPolicies
            .filter((row) => ctx.channelsById.get(row.channel_id)?.is_archived === false)
            .map((row) => ({
              stream_id: row.channel_id,
              topic_name: row.topic_name === "" && !caps.empty_topic_name ? EmptyTopicDisplayName : row.topic_name,
              last_updated: row.last_updated,
              visibility_policy: row.visibility_policy
            }))
        }
        if (want("video_calls")) state.has_zoom_token = false
        if (want("giphy")) state.giphy_api_key = ""
        if (want("channel_folders")) state.channel_folders = []
        if (want("navigation_views")) state.navigation_views = []
        if (want("onboarding_steps")) state.onboarding_steps = []
        if (want("push_device")) state.push_devices = yield* pushDevices.registerState(principal)
        return state
      })

      const register = Effect.fn("Register.register")(function*(
        principal: Principal,
        params: RegisterParams,
        server: ServerInfo
      ) {
        const queue = yield* queues.register(principal, params)
        const fetch = params.fetch_event_types ?? params.event_types ?? null
        const wanted = fetch === null ? undefined : new Set(fetch)
        const state = yield* initialState(
          principal,
          (type) => wanted === undefined || wanted.has(type),
          {
            capabilities: queue.options.client_capabilities,
            clientGravatar: queue.options.client_gravatar,
            includeSubscribers: queue.options.include_subscribers !== "false",
            slimPresence: queue.options.slim_presence,
            presenceHistoryLimitDays: params.presence_history_limit_days,
            // The types whose state is fetched (Zulip's `event_types` of `fetch_initial_state_data`).
            eventTypes: fetch
          },
          server
        )
        return {
          queue_id: queue.id,
          last_event_id: -1,
          zulip_version: server.zulip_version,
          zulip_feature_level: server.zulip_feature_level,
          zulip_merge_base: server.zulip_merge_base,
          ...state
        }
      })

      return Register.of({ register, initialState })
    })
  )
}

/** @category models */
export interface InitialStateOptions {
  readonly capabilities: Capabilities
  readonly clientGravatar: boolean
  readonly includeSubscribers: boolean
  readonly slimPresence: boolean
  /** How many days back `presences` reach; absent: 14. */
  readonly presenceHistoryLimitDays?: number | undefined
  /** The types whose state is fetched (`fetch_event_types`, else `event_types`); null: every type. */
  readonly eventTypes: ReadonlyArray<string> | null
}

// -----------------------------------------------------------------------------
// state sections

/**
 * `activeSubscriberIds` once per channel and access read: a register lists
 * every visible channel's subscribers (and counts them again for `streams`),
 * and the read is kept between requests while the organization does not
 * change (`AccessCache`). The lists go into responses only, never changed.
 */
const subscriberIds = new WeakMap<AccessContext, Map<ChannelId, ReadonlyArray<number>>>()
const subscriberIdsOf = (ctx: AccessContext, channelId: ChannelId): ReadonlyArray<number> => {
  let byChannel = subscriberIds.get(ctx)
  if (byChannel === undefined) subscriberIds.set(ctx, byChannel = new Map())
  let ids = byChannel.get(channelId)
  if (ids === undefined) byChannel.set(channelId, ids = activeSubscriberIds(ctx, channelId))
  return ids
}

const gravatar = (text: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(text.toLowerCase()).digest("hex")}?d=identicon`

const wildcardMentionPolicy = (value: GroupSettingValue, ids: Readonly<Record<string, GroupId>>): number => {
  if (!isNamed(value)) return 5
  if (value === ids["role:everyone"]) return 1
  if (value === ids["role:members"]) return 2
  if (value === ids["role:fullmembers"]) return 3
  if (value === ids["role:administrators"]) return 5
  if (value === ids["role:nobody"]) return 6
  if (value === ids["role:moderators"]) return 7
  return 5
}

const createPolicy = (value: GroupSettingValue, ids: Readonly<Record<string, GroupId>>): number => {
  if (value === ids["role:members"]) return 1
  if (value === ids["role:administrators"]) return 2
  if (value === ids["role:fullmembers"]) return 3
  if (value === ids["role:moderators"]) return 4
  if (value === ids["role:owners"]) return 7
  if (value === ids["role:nobody"]) return 6
  return 1
}

const realmState = (
  ctx: AccessContext,
  user: User,
  ids: Readonly<Record<string, GroupId>>,
  server: ServerInfo,
  now: number
): Record<string, unknown> => {
  const realm = ctx.state.realm
  const s = realm.settings
  const allowed = (value: GroupSettingValue) =>
    hasGroupPermission(ctx.state.index, user, value, { allowEveryoneGroup: false })
  return {
    ...Limits,
    realm_empty_topic_display_name: "general chat",
    server_emoji_data_url: apiUrl(server.base_url),
    server_generation: server.server_generation ?? Math.floor(now / 1000),
    realm_name: realm.name,
    realm_description: realm.description,
    realm_uri: realm.url,
    realm_url: realm.url,
    realm_date_created: Math.floor(realm.date_created / 1000),
    realm_icon_url: gravatar(realm.string_id),
    realm_icon_source: "G",
    realm_logo_url: `${realm.url}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_logo_source: "D",
    realm_night_logo_url: `${realm.url}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_night_logo_source: "D",
    realm_bot_domain: realm.fake_email_domain,
    realm_default_language: "en",
    realm_waiting_period_threshold: s.waiting_period_threshold,
    realm_allow_message_editing: s.allow_message_editing,
    realm_allow_edit_history: s.message_edit_history_visibility_policy !== "none",
    realm_message_edit_history_visibility_policy: s.message_edit_history_visibility_policy,
    realm_message_content_edit_limit_seconds: s.message_content_edit_limit_seconds,
    realm_message_content_delete_limit_seconds: s.message_content_delete_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: s.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds: s.move_messages_between_streams_limit_seconds === undefined
      ? 604800
      : s.move_messages_between_streams_limit_seconds,
    realm_enable_read_receipts: s.enable_read_receipts,
    realm_presence_disabled: false,
    realm_invite_required: s.invite_required,
    realm_emails_restricted_to_domains: s.emails_restricted_to_domains,
    realm_disallow_disposable_email_addresses: true,
    realm_email_auth_enabled: s.email_auth_enabled,
    realm_password_auth_enabled: s.email_auth_enabled,
    realm_authentication_methods: {
      Email: { enabled: s.email_auth_enabled, available: true },
      Dev: { enabled: true, available: true }
    },
    realm_enable_spectator_access: s.enable_spectator_access,
    realm_require_unique_names: s.require_unique_names,
    realm_name_changes_disabled: false,
    realm_email_changes_disabled: false,
    realm_avatar_changes_disabled: false,
    realm_inline_image_preview: true,
    realm_inline_url_embed_preview: false,
    realm_digest_emails_enabled: false,
    realm_digest_weekday: 1,
    realm_send_welcome_emails: true,
    realm_message_content_allowed_in_email_notifications: true,
    realm_want_advertise_in_communities_directory: false,
    realm_welcome_message_custom_text: "",
    realm_video_chat_provider: 1,
    realm_available_video_chat_providers: {
      disabled: { name: "None", id: 0 },
      jitsi_meet: { name: "Jitsi Meet", id: 1 }
    },
    // The organization names no Jitsi server, so the server's (Zulip's default) applies.
    realm_jitsi_server_url: null,
    jitsi_server_url: "https://meet.jit.si",
    server_jitsi_server_url: "https://meet.jit.si",
    realm_giphy_rating: 2,
    giphy_rating_options: {
      disabled: { name: "GIPHY integration disabled", id: 0 },
      y: { name: "Allow GIFs rated Y (Very young audience)", id: 1 },
      g: { name: "Allow GIFs rated G (General audience)", id: 2 },
      pg: { name: "Allow GIFs rated PG (Parental guidance)", id: 3 },
      "pg-13": { name: "Allow GIFs rated PG-13 (Parental guidance - under 13)", id: 4 },
      r: { name: "Allow GIFs rated R (Restricted)", id: 5 }
    },
    realm_default_code_block_language: "",
    realm_message_retention_days: s.message_retention_days === null ? -1 : s.message_retention_days,
    realm_topics_policy: s.topics_policy,
    realm_mandatory_topics: s.topics_policy === "disable_empty_topic",
    realm_org_type: 0,
    realm_plan_type: 1,
    realm_upload_quota_mib: null,
    realm_enable_guest_user_dm_warning: true,
    realm_enable_guest_user_indicator: true,
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: false,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_default_external_accounts: DefaultExternalAccounts,
    realm_wildcard_mention_policy: wildcardMentionPolicy(s.can_mention_many_users_group, ids),
    realm_create_public_stream_policy: createPolicy(s.can_create_public_channel_group, ids),
    realm_create_private_stream_policy: createPolicy(s.can_create_private_channel_group, ids),
    realm_create_web_public_stream_policy: createPolicy(s.can_create_web_public_channel_group, ids),
    realm_can_access_all_users_group: s.can_access_all_users_group,
    realm_can_add_custom_emoji_group: ids["role:members"],
    realm_can_add_subscribers_group: s.can_add_subscribers_group,
    realm_can_create_bots_group: ids["role:members"],
    realm_can_create_write_only_bots_group: ids["role:members"],
    realm_can_create_groups: s.can_create_groups,
    realm_can_create_public_channel_group: s.can_create_public_channel_group,
    realm_can_create_private_channel_group: s.can_create_private_channel_group,
    realm_can_create_web_public_channel_group: s.can_create_web_public_channel_group,
    realm_can_delete_any_message_group: s.can_delete_any_message_group,
    realm_can_delete_own_message_group: s.can_delete_own_message_group,
    realm_can_invite_users_group: s.can_invite_users_group,
    realm_can_manage_all_groups: s.can_manage_all_groups,
    realm_can_manage_billing_group: ids["role:administrators"],
    realm_can_mention_many_users_group: s.can_mention_many_users_group,
    realm_can_move_messages_between_channels_group: s.can_move_messages_between_channels_group,
    realm_can_move_messages_between_topics_group: s.can_move_messages_between_topics_group,
    realm_can_resolve_topics_group: ids["role:everyone"],
    realm_can_set_delete_message_policy_group: ids["role:moderators"],
    realm_can_set_topics_policy_group: ids["role:moderators"],
    realm_can_summarize_topics_group: ids["role:everyone"],
    realm_create_multiuse_invite_group: ids["role:administrators"],
    realm_direct_message_initiator_group: ids["role:everyone"],
    realm_direct_message_permission_group: ids["role:everyone"],
    realm_moderation_request_channel_id: -1,
    realm_new_stream_announcements_stream_id: -1,
    realm_signup_announcements_stream_id: -1,
    realm_zulip_update_announcements_stream_id: -1,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: "",
    development_environment: false,
    password_min_length: 6,
    password_max_length: 100,
    password_min_guesses: 10000,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: true,
    server_thumbnail_formats: [],
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_web_public_streams_enabled: true,
    server_can_summarize_topics: false,
    server_min_deactivated_realm_deletion_days: 14,
    server_max_deactivated_realm_deletion_days: null,
    settings_send_digest_emails: true,
    // Per-user permission summaries Zulip sends with `realm`.
    can_create_streams: allowed(s.can_create_public_channel_group) || allowed(s.can_create_private_channel_group) ||
      allowed(s.can_create_web_public_channel_group),
    can_create_public_streams: allowed(s.can_create_public_channel_group),
    can_create_private_streams: allowed(s.can_create_private_channel_group),
    can_create_web_public_streams: s.enable_spectator_access && allowed(s.can_create_web_public_channel_group),
    can_subscribe_other_users: isAdministrator(user.role) || allowed(s.can_add_subscribers_group),
    can_invite_others_to_realm: allowed(s.can_invite_users_group)
  }
}

const realmUserState = (
  ctx: AccessContext,
  user: User,
  options: InitialStateOptions,
  profileData: ReadonlyMap<number, ProfileData>
): Record<string, unknown> => {
  const realm = ctx.state.realm
  const view = { clientGravatar: options.clientGravatar, includeCustomProfileFields: true }
  const active: Array<unknown> = []
  const inactive: Array<unknown> = []
  for (const other of ctx.state.users) {
    const accessible = canAccessUser(ctx, user, other)
    if (!accessible) {
      if (!options.capabilities.user_list_incomplete && other.is_active) active.push(inaccessibleUser(realm, other.id))
      continue
    }
    const api = toApiUser(realm, user, other, view, profileData.get(other.id))
    if (other.is_active) active.push(api)
    else inactive.push(api)
  }
  const avatar = avatarUrl(user, realm)
  return {
    realm_users: active,
    realm_non_active_users: inactive,
    cross_realm_bots: [],
    avatar_source: user.avatar_source,
    // The own avatar is always a URL (Zulip's schema: a string), whatever client_gravatar says.
    avatar_url: avatar,
    avatar_url_medium: avatar.replace("?d=identicon", "?d=identicon&s=500"),
    is_admin: isAdministrator(user.role),
    is_owner: isOwner(user.role),
    is_moderator: isModeratorOrAbove(user.role),
    is_guest: isGuest(user.role),
    user_id: user.id,
    email: user.email,
    delivery_email: user.delivery_email,
    full_name: user.full_name
  }
}

const userGroups = (ctx: AccessContext, caps: Capabilities): Array<ApiUserGroup> =>
  ctx.state.groups
    .filter((g) => caps.include_deactivated_groups || !g.deactivated)
    .map((g) => toApiUserGroup(g, ctx.state.index))

const subscriptionStateOf = (
  ctx: AccessContext,
  user: User,
  rows: ReadonlyArray<import("../domain/Channel.ts").Subscription>,
  options: InitialStateOptions,
  policy: PostPolicyGroups
): Record<string, unknown> => {
  const caps = options.capabilities
  const shown = (c: Channel) => caps.archived_channels || !c.is_archived
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const subscribed: Array<ReturnType<typeof toApiSubscription>> = []
  const unsubscribed: Array<ReturnType<typeof toApiSubscription>> = []
  const seen = new Set<number>()
  for (const row of rows) {
    const channel = ctx.channelsById.get(row.channel_id)
    if (channel === undefined || !shown(channel)) continue
    seen.add(channel.id)
    const visible = row.active || canSeeChannel(ctx, user, channel)
    const subscribers = visible ? subscriberIdsOf(ctx, channel.id) : []
    const sub = toApiSubscription(channel, row, subscribers, policy, { includeSubscribers: options.includeSubscribers && visible })
    if (row.active) subscribed.push(sub)
    else if (canSeeChannel(ctx, user, channel)) unsubscribed.push(sub)
  }
  const never = ctx.channels
    .filter((c) => shown(c) && !seen.has(c.id) && canSeeChannel(ctx, user, c))
    .map((c) => {
      const subscribers = subscriberIdsOf(ctx, c.id)
      const { is_default: _d, ...api } = toApiChannel(c, subscribers.length, policy)
      return options.includeSubscribers ? { ...api, subscribers } : api
    })
  return {
    subscriptions: subscribed.sort(byName),
    unsubscribed: unsubscribed.sort(byName),
    never_subscribed: never.sort(byName)
  }
}
