/**
 * Who can see a channel, read it, and manage its subscribers.
 *
 * Zulip distinguishes two levels of access (`zerver/lib/streams.py`,
 * `user_has_metadata_access` and `user_has_content_access`):
 *
 * - **Metadata access**: knowing the channel exists and seeing its name,
 *   description, settings and subscribers.
 * - **Content access**: reading its messages and subscribing oneself.
 *
 * Both are decided in the same order, first match wins:
 *
 * | check                                   | metadata | content |
 * |-----------------------------------------|----------|---------|
 * | web-public channel                      | yes      | yes     |
 * | subscribed                              | yes      | yes     |
 * | guest (none of the rules below apply)   | no       | no      |
 * | public channel                          | yes      | yes     |
 * | organization administrator              | yes      | —       |
 * | in `can_subscribe_group` or `can_add_subscribers_group` | yes | yes |
 * | in `can_administer_channel_group`       | yes      | —       |
 *
 * Notes on Zulip 11 semantics kept here:
 *
 * - Web-public channels are open to every active user, guests included,
 *   whether or not the organization enables spectators; spectators
 *   (unauthenticated visitors) additionally need `enable_spectator_access`
 *   ({@link spectatorCanAccess}).
 * - Administrators get metadata access to every channel but not content
 *   access to private channels they are not subscribed to: they must be in a
 *   group that lets them subscribe, or be added by someone who can.
 * - Members of `can_subscribe_group` or `can_add_subscribers_group` have
 *   content access to a private channel without being subscribed, whatever
 *   `history_public_to_subscribers` says; the history setting only limits how
 *   far back they can read ({@link canReadFullHistory}).
 * - The group settings above cannot be set to `role:everyone`, so they never
 *   grant anything to guests, even if a guest is named in the value.
 * - Archived channels keep the access they had: Zulip 10 (feature level 362)
 *   lists archived channels, lets users read them and lets subscriptions
 *   change; only posting is refused, which is the message rules' concern.
 * - Deactivated users have no access at all (they cannot authenticate).
 *
 * Every function is pure: the caller supplies whether the user is subscribed
 * and a {@link MembershipCheck} for that user (e.g. from
 * `GroupMembership.membershipCheck`).
 *
 * @since 0.1.0
 */
import type { Channel, ChannelPermissionSettings } from "../domain/Channel.ts"
import type { RealmSettings } from "../domain/Realm.ts"
import { isAdministrator, isGuest } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import type { MembershipCheck } from "./GroupMembership.ts"

/**
 * The parts of a channel the rules read; a full `Channel` fits.
 *
 * @category models
 * @since 0.1.0
 */
export interface AccessChannel extends
  Pick<Channel, "invite_only" | "is_web_public" | "history_public_to_subscribers">
{
  readonly settings: Pick<
    ChannelPermissionSettings,
    | "can_add_subscribers_group"
    | "can_administer_channel_group"
    | "can_remove_subscribers_group"
    | "can_subscribe_group"
  >
}

/**
 * The parts of a user the rules read; a full `User` fits. Bots are judged by
 * their role like any other user.
 *
 * @category models
 * @since 0.1.0
 */
export type AccessUser = Pick<User, "role" | "is_active">

/**
 * Everything a channel rule needs about one user and one channel.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChannelAccessInput {
  readonly user: AccessUser
  readonly channel: AccessChannel
  /** Whether the user has an active subscription to the channel. */
  readonly isSubscribed: boolean
  /** Membership of this user in group-setting values. */
  readonly inGroup: MembershipCheck
}

/**
 * The strongest access a user has to a channel.
 *
 * @category models
 * @since 0.1.0
 */
export type AccessLevel = "none" | "metadata" | "content"

/**
 * A public channel is one that is not invite-only (web-public channels are
 * public too).
 *
 * @category predicates
 * @since 0.1.0
 */
export const isPublic = (channel: Pick<Channel, "invite_only">): boolean => !channel.invite_only

// Groups that let a non-guest subscribe themselves, and therefore read.
const inContentGrantingGroup = ({ channel, inGroup }: ChannelAccessInput): boolean =>
  inGroup(channel.settings.can_subscribe_group) || inGroup(channel.settings.can_add_subscribers_group)

/**
 * Whether the user can see the channel's name, description, settings and
 * subscribers (Zulip's `user_has_metadata_access`).
 *
 * @category predicates
 * @since 0.1.0
 */
export const hasMetadataAccess = (input: ChannelAccessInput): boolean => {
  const { channel, inGroup, isSubscribed, user } = input
  if (!user.is_active) return false
  if (channel.is_web_public || isSubscribed) return true
  if (isGuest(user.role)) return false
  if (isPublic(channel) || isAdministrator(user.role)) return true
  return inContentGrantingGroup(input) || inGroup(channel.settings.can_administer_channel_group)
}

/**
 * Whether the user can read the channel's messages and subscribe themselves
 * (Zulip's `user_has_content_access`). Implies {@link hasMetadataAccess}.
 *
 * @category predicates
 * @since 0.1.0
 */
export const hasContentAccess = (input: ChannelAccessInput): boolean => {
  const { channel, isSubscribed, user } = input
  if (!user.is_active) return false
  if (channel.is_web_public || isSubscribed) return true
  if (isGuest(user.role)) return false
  if (isPublic(channel)) return true
  return inContentGrantingGroup(input)
}

/**
 * The strongest of {@link hasContentAccess} and {@link hasMetadataAccess}.
 *
 * @category predicates
 * @since 0.1.0
 */
export const accessLevel = (input: ChannelAccessInput): AccessLevel =>
  hasContentAccess(input) ? "content" : hasMetadataAccess(input) ? "metadata" : "none"

/**
 * Whether the user can read messages sent before they subscribed (Zulip's
 * `can_access_stream_history`): content access, and either a web-public or
 * public channel seen by a non-guest, or a channel whose history is public
 * to subscribers. On a private channel with protected history, subscribers
 * only see what was sent while they were subscribed.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canReadFullHistory = (input: ChannelAccessInput): boolean => {
  const { channel, user } = input
  if (!hasContentAccess(input)) return false
  return channel.is_web_public || channel.history_public_to_subscribers ||
    (isPublic(channel) && !isGuest(user.role))
}

/**
 * Whether the user can administer the channel (edit its name, description,
 * permissions, archive it). Organization administrators act as members of
 * `can_administer_channel_group` for every channel; guests never qualify.
 *
 * @category predicates
 * @since 0.1.0
 */
export const isChannelAdministrator = (input: ChannelAccessInput): boolean => {
  const { channel, inGroup, user } = input
  if (!user.is_active) return false
  if (isAdministrator(user.role)) return true
  if (isGuest(user.role)) return false
  return inGroup(channel.settings.can_administer_channel_group)
}

/**
 * Whether the user may subscribe themselves. In Zulip this is exactly content
 * access: everyone but guests for public channels, everyone for web-public
 * ones, and members of `can_subscribe_group` / `can_add_subscribers_group`
 * for private ones.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canSubscribeSelf = (input: ChannelAccessInput): boolean => hasContentAccess(input)

/**
 * Whether the user may subscribe other users (Zulip's
 * `filter_stream_authorization_for_adding_subscribers` with other users).
 * The user needs content access, and then must be an organization
 * administrator, in the organization's `can_add_subscribers_group`, a channel
 * administrator, or in the channel's `can_add_subscribers_group`. Guests never
 * qualify.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canAddSubscribers = (
  input: ChannelAccessInput,
  realm: Pick<RealmSettings, "can_add_subscribers_group">
): boolean => {
  const { channel, inGroup, user } = input
  if (!hasContentAccess(input)) return false
  if (isAdministrator(user.role)) return true
  if (isGuest(user.role)) return false
  return inGroup(realm.can_add_subscribers_group) ||
    inGroup(channel.settings.can_administer_channel_group) ||
    inGroup(channel.settings.can_add_subscribers_group)
}

/**
 * Whether the user may unsubscribe other users (Zulip's
 * `bulk_can_remove_subscribers_from_streams`). Organization administrators
 * can, from any channel, as if in `can_remove_subscribers_group`; channel
 * administrators can, even without access; otherwise the user needs metadata
 * access and membership in `can_remove_subscribers_group`. Guests never can.
 * Unsubscribing oneself needs no permission and is not covered here.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canRemoveSubscribers = (input: ChannelAccessInput): boolean => {
  const { channel, inGroup, user } = input
  if (!user.is_active) return false
  if (isAdministrator(user.role)) return true
  if (isGuest(user.role)) return false
  if (inGroup(channel.settings.can_administer_channel_group)) return true
  return hasMetadataAccess(input) && inGroup(channel.settings.can_remove_subscribers_group)
}

/**
 * Whether an unauthenticated visitor may read the channel: the organization
 * enables spectator access and the channel is web-public (which Zulip only
 * allows together with public, shared history).
 *
 * @category predicates
 * @since 0.1.0
 */
export const spectatorCanAccess = (
  channel: Pick<Channel, "invite_only" | "is_web_public" | "history_public_to_subscribers">,
  realm: Pick<RealmSettings, "enable_spectator_access">
): boolean =>
  realm.enable_spectator_access && channel.is_web_public && !channel.invite_only &&
  channel.history_public_to_subscribers
