/**
 * The POST /register bodies of the demo organization, one per role, written
 * out from Zulip's behaviour (its `register` response in the OpenAPI
 * document, the realm and user-settings defaults of Zulip's models, and the
 * development organization populate_db seeds, which the demo mirrors) and
 * never from this server's own code.
 *
 * Only ids and timestamps are not literal here:
 * - ids: users, channels and groups are named, and `DemoIds` maps each name
 *   to the id this server gave it (they differ between backends);
 * - `queue_id` (a fresh random id) and `server_timestamp` (the time of the
 *   request) are taken from the reply by the test that compares;
 * - the organization, its people and channels are created at the harness
 *   clock's start (`epoch`), so their dates are written as that.
 */
import * as Effect from "effect/Effect"
import type { Role } from "../Harness.ts"
import { accounts, epoch, epochIso, realmUrl, Server } from "../Harness.ts"
import { createHash } from "node:crypto"

const epochSeconds = Math.floor(epoch / 1000)

/** The ids this server gave the demo's users (by real address), channels and groups (by name). */
export interface DemoIds {
  readonly user: (email: string) => number
  readonly channel: (name: string) => number
  readonly group: (name: string) => number
}

const lookup = (kind: string, entries: ReadonlyArray<readonly [string, number]>) => {
  const byName = new Map(entries)
  return (name: string): number => {
    const id = byName.get(name)
    if (id === undefined) throw new Error(`no ${kind} ${name}`)
    return id
  }
}

/** The demo's ids, read through the API as the owner (who sees every address, channel and group). */
export const demoIds: Effect.Effect<DemoIds, never, Server> = Effect.gen(function*() {
  const server = yield* Server
  const owner = yield* server.login(accounts.owner)
  const users = yield* server.fetch("GET", "/api/v1/users", { as: owner })
  const channels = yield* server.fetch("GET", "/api/v1/streams", { as: owner, query: { include_all: "true" } })
  const groups = yield* server.fetch("GET", "/api/v1/user_groups", { as: owner })
  return {
    user: lookup("user", users.json.members.map((u: { delivery_email: string; user_id: number }) => [u.delivery_email, u.user_id])),
    channel: lookup("channel", channels.json.streams.map((c: { name: string; stream_id: number }) => [c.name, c.stream_id])),
    group: lookup("group", groups.json.user_groups.map((g: { name: string; id: number }) => [g.name, g.id]))
  }
})

/** Gravatar's URL for an address, as Zulip builds it (`avatar_version` 1). */
export const gravatarUrl = (email: string, size?: number) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email.toLowerCase()).digest("hex")}?d=identicon` +
  `${size === undefined ? "" : `&s=${size}`}&version=1`

// ---------------------------------------------------------------------------
// The people, bots and channels of the demo (populate_db's development organization)

interface Person {
  readonly email: string
  readonly full_name: string
  readonly role: 100 | 200 | 300 | 400 | 600
  readonly timezone: string
}

/** In the order they were created (so, of their ids). */
export const people: ReadonlyArray<Person> = [
  { email: "desdemona@zulip.com", full_name: "Desdemona", role: 100, timezone: "Canada/Newfoundland" },
  { email: "ZOE@zulip.com", full_name: "Zoe", role: 400, timezone: "US/Eastern" },
  { email: "othello@zulip.com", full_name: "Othello, the Moor of Venice", role: 400, timezone: "US/Pacific" },
  { email: "iago@zulip.com", full_name: "Iago", role: 200, timezone: "US/Eastern" },
  { email: "prospero@zulip.com", full_name: "Prospero from The Tempest", role: 400, timezone: "" },
  { email: "cordelia@zulip.com", full_name: "Cordelia, Lear's daughter", role: 400, timezone: "UTC" },
  { email: "hamlet@zulip.com", full_name: "King Hamlet", role: 400, timezone: "" },
  { email: "AARON@zulip.com", full_name: "aaron", role: 400, timezone: "US/Pacific" },
  { email: "polonius@zulip.com", full_name: "Polonius", role: 600, timezone: "Asia/Shanghai" },
  { email: "shiva@zulip.com", full_name: "शिव", role: 300, timezone: "Asia/Kolkata" }
]

interface Bot {
  readonly email: string
  readonly full_name: string
  readonly bot_type: 1 | 2 | 3
  readonly owner: string
}

export const bots: ReadonlyArray<Bot> = [
  { email: "default-bot@zulip.com", full_name: "Zulip Default Bot", bot_type: 1, owner: "desdemona@zulip.com" },
  { email: "webhook-bot@zulip.com", full_name: "Zulip Webhook Bot", bot_type: 2, owner: "ZOE@zulip.com" },
  { email: "outgoing-webhook@zulip.com", full_name: "Outgoing Webhook", bot_type: 3, owner: "AARON@zulip.com" },
  { email: "commit-bot@zulip.com", full_name: "Zulip Commit Bot", bot_type: 1, owner: "desdemona@zulip.com" },
  { email: "trac-bot@zulip.com", full_name: "Zulip Trac Bot", bot_type: 1, owner: "desdemona@zulip.com" },
  { email: "nagios-bot@zulip.com", full_name: "Zulip Nagios Bot", bot_type: 1, owner: "desdemona@zulip.com" }
]

const isAdmin = (role: Role) => role === "owner" || role === "admin"

/**
 * A person or bot as `viewer` sees it in realm_users. The organization shows
 * real addresses to administrators only (email_address_visibility 3);
 * everyone sees their own, and bots' addresses are public. With
 * client_gravatar, the URL of an avatar whose address the viewer sees is left
 * to the client (null).
 */
export const userRow = (ids: DemoIds, viewer: Role, email: string, clientGravatar = false) => {
  const userId = ids.user(email)
  const bot = bots.find((b) => b.email === email)
  const person = people.find((p) => p.email === email)
  const seesAddress = isAdmin(viewer) || accounts[viewer] === email || bot !== undefined
  const common = {
    email: bot === undefined ? `user${userId}@zulipdev.com` : email,
    user_id: userId,
    avatar_version: 1,
    is_admin: person?.role === 100 || person?.role === 200,
    is_owner: person?.role === 100,
    is_guest: person?.role === 600,
    is_bot: bot !== undefined,
    role: person?.role ?? 400,
    timezone: person?.timezone ?? "",
    is_active: true,
    date_joined: epochIso,
    delivery_email: seesAddress ? email : null,
    avatar_url: clientGravatar && seesAddress ? null : gravatarUrl(email),
    full_name: person?.full_name ?? bot!.full_name
  }
  return bot === undefined
    ? { ...common, bot_type: null, profile_data: {} }
    : { ...common, bot_type: bot.bot_type, bot_owner_id: ids.user(bot.owner) }
}

const everyone = people.map((p) => p.email)
const [desdemona, , othello, iago, prospero, cordelia, hamlet, , polonius, shiva] = everyone

/** The channels, with their subscribers and their colour (populate_db's plan). */
const channels = [
  {
    name: "Denmark",
    description: "A Scandinavian country",
    color: "#fae589",
    subscribers: [desdemona, othello, iago, prospero, cordelia, hamlet, polonius, shiva]
  },
  {
    name: "Rome",
    description: "Yet another Italian city",
    color: "#bfd56f",
    subscribers: [othello, prospero, polonius, shiva],
    is_web_public: true
  },
  {
    name: "Scotland",
    description: "Located in the United Kingdom",
    color: "#a6c7e5",
    subscribers: [desdemona, othello, iago, prospero, hamlet, polonius, shiva]
  },
  {
    name: "Venice",
    description: "A northeastern Italian city",
    color: "#e79ab5",
    subscribers: [othello, iago, prospero, polonius, shiva]
  },
  { name: "Verona", description: "A city in Italy", color: "#76ce90", subscribers: everyone },
  {
    name: "core team",
    description: "A private channel for core team members",
    color: "#f4ae55",
    subscribers: [prospero, shiva],
    invite_only: true
  },
  {
    name: "sandbox",
    description: "Experiment with Zulip here. :test_tube:",
    rendered_description:
      "<p>Experiment with Zulip here. <span aria-label=\"test tube\" class=\"emoji emoji-1f9ea\" role=\"img\" title=\"test tube\">:test_tube:</span></p>",
    color: "#b0a5fd",
    subscribers: [shiva]
  }
] as const

export const demoChannelNames: ReadonlyArray<string> = channels.map((c) => c.name)

/** The ids of a channel's subscribers, in id order. */
export const subscriberIds = (ids: DemoIds, name: string): ReadonlyArray<number> =>
  channels.find((c) => c.name === name)!.subscribers.map(ids.user).sort((a, b) => a - b)

/** The channels each role's account is subscribed to. */
export const subscribedTo = (role: Role): ReadonlyArray<string> =>
  channels.filter((c) => (c.subscribers as ReadonlyArray<string>).includes(accounts[role])).map((c) => c.name)

/** A channel as `streams` and never_subscribed show it: Zulip's defaults for a channel made without a creator. */
export const channelRow = (ids: DemoIds, name: string) => {
  const channel = channels.find((c) => c.name === name)!
  const g = ids.group
  return {
    stream_id: ids.channel(name),
    name,
    is_archived: false,
    description: channel.description,
    rendered_description: "rendered_description" in channel ? channel.rendered_description : `<p>${channel.description}</p>`,
    date_created: epochSeconds,
    creator_id: null,
    invite_only: "invite_only" in channel,
    is_web_public: "is_web_public" in channel,
    stream_post_policy: 1,
    is_announcement_only: false,
    message_retention_days: null,
    history_public_to_subscribers: !("invite_only" in channel),
    topics_policy: "inherit",
    first_message_id: null,
    folder_id: null,
    is_recently_active: true,
    can_add_subscribers_group: g("role:nobody"),
    can_remove_subscribers_group: g("role:administrators"),
    can_administer_channel_group: g("role:nobody"),
    can_delete_any_message_group: g("role:nobody"),
    can_delete_own_message_group: g("role:everyone"),
    can_move_messages_out_of_channel_group: g("role:nobody"),
    can_move_messages_within_channel_group: g("role:nobody"),
    can_send_message_group: g("role:everyone"),
    can_subscribe_group: g("role:nobody"),
    can_resolve_topics_group: g("role:nobody"),
    subscriber_count: channel.subscribers.length,
    stream_weekly_traffic: null
  }
}

/** A subscription: the channel with the subscriber's own settings (all defaults). */
export const subscriptionRow = (ids: DemoIds, name: string) => ({
  ...channelRow(ids, name),
  color: channels.find((c) => c.name === name)!.color,
  pin_to_top: false,
  is_muted: false,
  in_home_view: true,
  desktop_notifications: null,
  email_notifications: null,
  push_notifications: null,
  audible_notifications: null,
  wildcard_mentions_notify: null
})

/** The channels a role's account can see: guests only their own, others every public one, administrators all. */
const visibleTo = (role: Role): ReadonlyArray<string> =>
  role === "guest"
    ? subscribedTo("guest")
    : channels.map((c) => c.name).filter((name) => name !== "core team" || isAdmin(role) || subscribedTo(role).includes(name))

/** What GET /streams lists by default: the public channels (not for guests) and the caller's own. */
export const listedBy = (role: Role): ReadonlyArray<string> =>
  channels.map((c) => c.name).filter((name) =>
    subscribedTo(role).includes(name) || (role !== "guest" && !channels.find((c) => c.name === name)!.hasOwnProperty("invite_only"))
  )

// ---------------------------------------------------------------------------
// The organization, the same for every role

/** The system groups, with their members (the demo's roles). */
export const systemGroups = (ids: DemoIds) => {
  const u = ids.user
  const g = ids.group
  const members = [
    "ZOE@zulip.com",
    "othello@zulip.com",
    "prospero@zulip.com",
    "cordelia@zulip.com",
    "hamlet@zulip.com",
    "AARON@zulip.com",
    ...bots.map((b) => b.email)
  ].map(u)
  const group = (name: string, description: string, direct: ReadonlyArray<number>, subgroups: ReadonlyArray<string>) => ({
    id: g(name),
    name,
    description,
    members: direct,
    direct_subgroup_ids: subgroups.map(g),
    creator_id: null,
    date_created: null,
    is_system_group: true,
    // System groups are managed by roles only, and cannot be mentioned.
    can_add_members_group: g("role:nobody"),
    can_join_group: g("role:nobody"),
    can_leave_group: g("role:nobody"),
    can_manage_group: g("role:nobody"),
    can_mention_group: g("role:nobody"),
    can_remove_members_group: g("role:nobody"),
    deactivated: false
  })
  return [
    group("role:nobody", "Nobody", [], []),
    group("role:owners", "Owners of this organization", [u("desdemona@zulip.com")], []),
    group("role:administrators", "Administrators of this organization, including owners", [u("iago@zulip.com")], ["role:owners"]),
    group("role:moderators", "Moderators of this organization, including administrators", [u("shiva@zulip.com")], ["role:administrators"]),
    group("role:fullmembers", "Members of this organization, not including new accounts and guests", members, ["role:moderators"]),
    group("role:members", "Members of this organization, not including guests", members, ["role:fullmembers"]),
    group("role:everyone", "Everyone in this organization, including guests", [u("polonius@zulip.com")], ["role:members"]),
    group("role:internet", "Everyone on the Internet", [], ["role:everyone"])
  ]
}

/** Zulip's defaults for a new user's settings (the demo changes none), without `timezone`. */
export const defaultUserSettings = {
    enter_sends: false,
    left_side_userlist: false,
    default_language: "en",
    web_home_view: "inbox",
    web_escape_navigates_to_home_view: true,
    fluid_layout_width: false,
    high_contrast_mode: false,
    translate_emoticons: false,
    display_emoji_reaction_users: true,
    twenty_four_hour_time: false,
    starred_message_counts: true,
    web_suggest_update_timezone: true,
    color_scheme: 1,
    web_font_size_px: 16,
    web_line_height_percent: 140,
    web_animate_image_previews: "on_hover",
    demote_inactive_streams: 1,
    web_mark_read_on_scroll_policy: 1,
    web_channel_default_view: 1,
    emojiset: "google",
    user_list_style: 3,
    web_stream_unreads_count_display_policy: 2,
    web_left_sidebar_unreads_count_summary: true,
    web_left_sidebar_show_channel_folders: true,
    web_navigate_to_sent_message: true,
    email_notifications_batching_period_seconds: 120,
    enable_stream_desktop_notifications: false,
    enable_stream_email_notifications: false,
    enable_stream_push_notifications: false,
    enable_stream_audible_notifications: false,
    notification_sound: "zulip",
    wildcard_mentions_notify: true,
    enable_followed_topic_desktop_notifications: true,
    enable_followed_topic_email_notifications: true,
    enable_followed_topic_push_notifications: true,
    enable_followed_topic_audible_notifications: true,
    enable_followed_topic_wildcard_mentions_notify: true,
    enable_desktop_notifications: true,
    pm_content_in_desktop_notifications: true,
    enable_sounds: true,
    enable_offline_email_notifications: true,
    message_content_in_email_notifications: true,
    enable_offline_push_notifications: true,
    enable_online_push_notifications: true,
    desktop_icon_count_display: 1,
    enable_digest_emails: true,
    enable_login_emails: true,
    enable_marketing_emails: true,
    presence_enabled: true,
    realm_name_in_email_notifications_policy: 1,
    automatically_follow_topics_policy: 3,
    automatically_unmute_topics_in_muted_streams_policy: 2,
    automatically_follow_topics_where_mentioned: true,
    resolved_topic_notice_auto_read_policy: "except_followed",
    enable_drafts_synchronization: true,
    send_stream_typing_notifications: true,
    send_private_typing_notifications: true,
    send_read_receipts: true,
    allow_private_data_export: false,
    receives_typing_notifications: true,
    hide_ai_features: false,
    email_address_visibility: 3,
    emojiset_choices: [
      { key: "google", text: "Google" },
      { key: "twitter", text: "Twitter" },
      { key: "text", text: "Plain text" },
      { key: "google-blob", text: "Google blobs" }
    ],
    available_notification_sounds: ["chime", "ding", "droplet", "ping", "zulip"]
  }

/** The legacy top-level settings a client without `user_settings_object` gets too, at their defaults. */
export const legacySettings = (timezone: string) => ({
    color_scheme: 1,
    default_language: "en",
    web_home_view: "inbox",
    demote_inactive_streams: 1,
    emojiset: "google",
    enable_drafts_synchronization: true,
    enter_sends: false,
    fluid_layout_width: false,
    high_contrast_mode: false,
    left_side_userlist: false,
    starred_message_counts: true,
    translate_emoticons: false,
    twenty_four_hour_time: false,
    timezone,
    emojiset_choices: [
      { key: "google", text: "Google" },
      { key: "twitter", text: "Twitter" },
      { key: "text", text: "Plain text" },
      { key: "google-blob", text: "Google blobs" }
    ],
    desktop_icon_count_display: 1,
    email_notifications_batching_period_seconds: 120,
    enable_desktop_notifications: true,
    enable_digest_emails: true,
    enable_login_emails: true,
    enable_marketing_emails: true,
    enable_offline_email_notifications: true,
    enable_offline_push_notifications: true,
    enable_online_push_notifications: true,
    enable_sounds: true,
    enable_stream_audible_notifications: false,
    enable_stream_desktop_notifications: false,
    enable_stream_email_notifications: false,
    enable_stream_push_notifications: false,
    message_content_in_email_notifications: true,
    notification_sound: "zulip",
    pm_content_in_desktop_notifications: true,
    presence_enabled: true,
    realm_name_in_email_notifications_policy: 1,
    wildcard_mentions_notify: true,
    available_notification_sounds: ["chime", "ding", "droplet", "ping", "zulip"]
  })

/** Everything about the organization and the server (fetch_event_types "realm" and the rest), at Zulip's defaults. */
const organization = (ids: DemoIds) => {
  const g = ids.group
  return {
    last_event_id: -1,
    zulip_version: "11.0-teamchat",
    zulip_feature_level: 416,
    zulip_merge_base: "11.0",
    alert_words: [],
    custom_profile_fields: [],
    custom_profile_field_types: {
      SHORT_TEXT: { id: 1, name: "Text (short)" },
      LONG_TEXT: { id: 2, name: "Text (long)" },
      SELECT: { id: 3, name: "List of options" },
      DATE: { id: 4, name: "Date picker" },
      URL: { id: 5, name: "Link" },
      USER: { id: 6, name: "Users" },
      EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
      PRONOUNS: { id: 8, name: "Pronouns" }
    },
    drafts: [],
    muted_topics: [],
    muted_users: [],
    presences: {},
    presence_last_update_id: -1,
    max_message_length: 10000,
    max_topic_length: 60,
    max_stream_name_length: 60,
    max_stream_description_length: 1024,
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
    server_typing_started_wait_period_milliseconds: 10000,
    realm_empty_topic_display_name: "general chat",
    server_emoji_data_url: `${realmUrl}/static/generated/emoji/emoji_api.json`,
    server_generation: epochSeconds,
    realm_name: "Zulip Dev",
    realm_description: "The Zulip development environment default organization.  It's great for testing!",
    realm_uri: realmUrl,
    realm_url: realmUrl,
    realm_date_created: epochSeconds,
    realm_icon_url: "https://secure.gravatar.com/avatar/62429d594b6ffc712f54aee976a18b44?d=identicon",
    realm_icon_source: "G",
    realm_logo_url: `${realmUrl}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_logo_source: "D",
    realm_night_logo_url: `${realmUrl}/static/images/logo/zulip-org-logo.svg?version=0`,
    realm_night_logo_source: "D",
    realm_bot_domain: "zulipdev.com",
    realm_default_language: "en",
    realm_waiting_period_threshold: 0,
    realm_allow_message_editing: true,
    realm_allow_edit_history: true,
    realm_message_edit_history_visibility_policy: "all",
    realm_message_content_edit_limit_seconds: 600,
    realm_message_content_delete_limit_seconds: 600,
    realm_move_messages_within_stream_limit_seconds: 604800,
    realm_move_messages_between_streams_limit_seconds: 604800,
    realm_enable_read_receipts: true,
    realm_presence_disabled: false,
    realm_invite_required: false,
    realm_emails_restricted_to_domains: false,
    realm_disallow_disposable_email_addresses: true,
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_authentication_methods: { Email: { enabled: true, available: true }, Dev: { enabled: true, available: true } },
    realm_enable_spectator_access: true,
    realm_require_unique_names: false,
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
    realm_available_video_chat_providers: { disabled: { name: "None", id: 0 }, jitsi_meet: { name: "Jitsi Meet", id: 1 } },
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
    realm_message_retention_days: -1,
    realm_topics_policy: "allow_empty_topic",
    realm_mandatory_topics: false,
    realm_org_type: 0,
    realm_plan_type: 1,
    realm_upload_quota_mib: null,
    realm_enable_guest_user_dm_warning: true,
    realm_enable_guest_user_indicator: true,
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: false,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_default_external_accounts: {
      github: {
        name: "GitHub",
        text: "GitHub",
        hint: "Enter your GitHub username",
        url_pattern: "https://github.com/%(username)s"
      },
      twitter: {
        name: "Twitter",
        text: "Twitter",
        hint: "Enter your Twitter username",
        url_pattern: "https://twitter.com/%(username)s"
      }
    },
    realm_wildcard_mention_policy: 5,
    realm_create_public_stream_policy: 1,
    realm_create_private_stream_policy: 1,
    realm_create_web_public_stream_policy: 7,
    realm_can_access_all_users_group: g("role:everyone"),
    realm_can_add_custom_emoji_group: g("role:members"),
    realm_can_add_subscribers_group: g("role:members"),
    realm_can_create_bots_group: g("role:members"),
    realm_can_create_write_only_bots_group: g("role:members"),
    realm_can_create_groups: g("role:members"),
    realm_can_create_public_channel_group: g("role:members"),
    realm_can_create_private_channel_group: g("role:members"),
    realm_can_create_web_public_channel_group: g("role:owners"),
    realm_can_delete_any_message_group: g("role:administrators"),
    realm_can_delete_own_message_group: g("role:everyone"),
    realm_can_invite_users_group: g("role:members"),
    realm_can_manage_all_groups: g("role:owners"),
    realm_can_manage_billing_group: g("role:administrators"),
    realm_can_mention_many_users_group: g("role:administrators"),
    realm_can_move_messages_between_channels_group: g("role:members"),
    realm_can_move_messages_between_topics_group: g("role:everyone"),
    realm_can_resolve_topics_group: g("role:everyone"),
    realm_can_set_delete_message_policy_group: g("role:moderators"),
    realm_can_set_topics_policy_group: g("role:moderators"),
    realm_can_summarize_topics_group: g("role:everyone"),
    realm_create_multiuse_invite_group: g("role:administrators"),
    realm_direct_message_initiator_group: g("role:everyone"),
    realm_direct_message_permission_group: g("role:everyone"),
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
    realm_bots: [],
    realm_embedded_bots: [],
    realm_incoming_webhook_bots: [],
    realm_domains: [],
    realm_emoji: {},
    realm_linkifiers: [],
    realm_filters: [],
    realm_playgrounds: [],
    cross_realm_bots: [],
    reminders: [],
    saved_snippets: [],
    scheduled_messages: [],
    realm_default_streams: [],
    realm_default_stream_groups: [],
    stop_words: [],
    max_message_id: -1,
    unread_msgs: { count: 0, pms: [], streams: [], huddles: [], mentions: [], old_unreads_missing: false },
    starred_messages: [],
    recent_private_conversations: [],
    user_status: {},
    user_topics: [],
    has_zoom_token: false,
    giphy_api_key: "",
    channel_folders: [],
    navigation_views: [],
    onboarding_steps: [],
    push_devices: {}
  }
}

// ---------------------------------------------------------------------------
// The body for each role

/**
 * POST /register fetching everything, as `role`: with the mobile app's
 * parameters (client_gravatar off, user_settings_object on) by default, or
 * as zulip-js registers (`legacy`: Zulip's default client_gravatar on, no
 * capabilities, so the legacy top-level settings too). `queue_id` and
 * `server_timestamp` are the reply's.
 */
export const registerBody = (
  ids: DemoIds,
  role: Role,
  reply: { readonly queue_id: unknown; readonly server_timestamp: unknown },
  client: "mobile" | "legacy" = "mobile"
) => {
  const email = accounts[role]
  const self = userRow(ids, role, email)
  const guest = role === "guest"
  const visible = visibleTo(role)
  return {
    result: "success",
    msg: "",
    ...organization(ids),
    queue_id: reply.queue_id,
    server_timestamp: reply.server_timestamp,
    can_create_streams: !guest,
    can_create_public_streams: !guest,
    can_create_private_streams: !guest,
    can_create_web_public_streams: role === "owner",
    can_subscribe_other_users: !guest,
    can_invite_others_to_realm: !guest,
    realm_users: [...people, ...bots].map((p) => userRow(ids, role, p.email, client === "legacy")),
    realm_non_active_users: [],
    avatar_source: "G",
    avatar_url: gravatarUrl(email),
    avatar_url_medium: gravatarUrl(email, 500),
    is_admin: isAdmin(role),
    is_owner: role === "owner",
    // At least a moderator (since feature level 380).
    is_moderator: isAdmin(role) || role === "moderator",
    is_guest: guest,
    user_id: self.user_id,
    email: self.email,
    delivery_email: email,
    full_name: self.full_name,
    realm_user_groups: systemGroups(ids),
    realm_user_settings_defaults: defaultUserSettings,
    streams: visible.map((name) => channelRow(ids, name)),
    subscriptions: subscribedTo(role).map((name) => subscriptionRow(ids, name)),
    unsubscribed: [],
    never_subscribed: visible.filter((name) => !subscribedTo(role).includes(name)).map((name) => channelRow(ids, name)),
    // Bots' addresses are always public (email_address_visibility 1).
    user_settings: { ...defaultUserSettings, timezone: self.timezone, ...(role === "bot" ? { email_address_visibility: 1 } : {}) },
    ...(client === "legacy" ? legacySettings(self.timezone) : {})
  }
}

