/**
 * Reusable invitation links: POST /invites/multiuse, GET /invites, DELETE
 * /invites/multiuse/{id}, the `invites_changed` event, and joining through a
 * link (the join page of packages/http).
 *
 * Rules (Zulip's `generate_multiuse_invite_backend`, in its order): guests
 * and bots are refused; the caller must be in the organization's
 * `create_multiuse_invite_group` (register's `realm_create_multiuse_invite_group`,
 * administrators); owners are invited only by owners, administrators and
 * moderators only by administrators; every channel must be one the caller
 * can read ("Invalid channel ID N. No invites were sent.") and, unless it is
 * a default channel, one the caller may add subscribers to; every group one
 * the caller may add members to; a custom welcome message only from
 * administrators.
 *
 * `invite_expires_in_minutes` is a positive integer or null (Zulip's
 * `PositiveInt | None`: "invite_expires_in_minutes is too small").
 *
 * GET /invites lists the usable links (not revoked, not expired) an
 * administrator's organization has, or a non-administrator's own. A link is
 * revoked by its maker, or by an administrator (an owner for owner links).
 * `invites_changed` goes to the organization's administrators and the link's
 * maker, after the change commits.
 *
 * Joining: the link must be usable, and its maker must still be allowed to
 * make it (active, and by the rule of `permissions/InvitationPermissions.ts`:
 * a demoted owner's owner links, or a deactivated maker's links, make no
 * account); the account gets the invited role, the link's channels (and the
 * organization's default channels when the link asks), its groups, and a
 * welcome message from the Welcome Bot (the link's custom text; the
 * organization's default when the link has none). All of it is one
 * transaction, the checks included; the events (`realm_user` add,
 * subscriptions, group membership, the message) go out after it commits.
 *
 * Keys come from `KeyGenerator` (24 characters of [a-z0-9]); a key is looked
 * up by its SHA-256 and then compared with the stored one in constant time.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { AuditChange } from "../domain/AuditLog.ts"
import type { Subscription } from "../domain/Channel.ts"
import { newSubscriptionProperties } from "../domain/Channel.ts"
import { Audience } from "../domain/Event.ts"
import type { ChannelId, GroupId, UserId } from "../domain/Ids.ts"
import { InvitationId } from "../domain/Ids.ts"
import {
  DefaultValidityMinutes,
  InvitationKeyAlphabet,
  InvitationKeyLength,
  isUsable,
  isWellFormedKey,
  keyHash,
  linkUrl,
  MaxValidityMinutes,
  MaxWelcomeMessageLength,
  sameKey,
  toApiInvitation
} from "../domain/Invitation.ts"
import type { ApiInvitation, Invitation } from "../domain/Invitation.ts"
import type { Principal } from "../domain/Principal.ts"
import * as Password from "../domain/Password.ts"
import type { Realm } from "../domain/Realm.ts"
import { isAdministrator, isGuest, isOwner, isRole, Roles } from "../domain/Role.ts"
import type { Role } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import {
  BadRequest,
  BotsNotAllowed,
  CannotSubscribeOthers,
  InsufficientPermission,
  InvalidEmailAddress,
  InvalidInviteChannel,
  InvalidParameter,
  InvalidUserGroup,
  InvitationAlreadyRevoked,
  InvitationLinkExpired,
  InvitationLinkMakerNotAllowed,
  InvitationLinkRevoked,
  InvitationLinkUnknown,
  InviteAsAdministratorRequired,
  NameEmpty,
  NameInvalidCharacters,
  NameInvalidFormat,
  NameTooLong,
  NoSuchInvitation,
  NotAllowedForGuests,
  OrganizationOwnerRequired,
  PasswordTooWeak,
  TooLarge,
  TooLong,
  TooSmall,
  UserGroupDeactivated
} from "../errors/Errors.ts"
import { canAddSubscribers } from "../permissions/ChannelAccess.ts"
import { inviteRefusal } from "../permissions/InvitationPermissions.ts"
import type { InviteRefusal } from "../permissions/InvitationPermissions.ts"
import { canAddSubgroups } from "../permissions/UserGroupPermissions.ts"
import { InvitationRepo } from "../ports/InvitationRepo.ts"
import { GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { AuditLog } from "./AuditLog.ts"
import { Events } from "./events/Events.ts"
import { subscriptionAddEvents } from "./events/subscriptionEvents.ts"
import { accessInput, canReadChannel, makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { KeyGenerator } from "./KeyGenerator.ts"
import { systemGroupIdsOf } from "../domain/UserGroup.ts"
import { Users } from "./Users.ts"
import { defaultWelcomeMessage, WelcomeBot } from "./WelcomeBot.ts"

/** POST /invites/multiuse, decoded (absent: Zulip's default). @category models */
export interface NewInvitation {
  /** `null`: never expires; absent: 14400 minutes. */
  readonly invite_expires_in_minutes?: number | null | undefined
  /** Default 400 (member). */
  readonly invite_as?: number | undefined
  readonly stream_ids?: ReadonlyArray<number> | undefined
  readonly group_ids?: ReadonlyArray<number> | undefined
  readonly include_realm_default_subscriptions?: boolean | undefined
  /** Absent: the organization's default; "": no custom text. */
  readonly welcome_message_custom_text?: string | undefined
}

/** What the join form sends. @category models */
export interface JoinForm {
  readonly full_name: string
  readonly email: string
  readonly password: string
}

/** Zulip's PASSWORD_MIN_LENGTH (the rule is `Password.isTooWeak`). @category constants */
export const MinPasswordLength = Password.minLength

/** Failures of a caller who may not use these endpoints. @category errors */
export type CallerError = NotAllowedForGuests | BotsNotAllowed

/** @category errors */
export type CreateError =
  | CallerError
  | InvalidParameter
  | TooSmall
  | TooLarge
  | TooLong
  | InsufficientPermission
  | OrganizationOwnerRequired
  | InviteAsAdministratorRequired
  | InvalidInviteChannel
  | CannotSubscribeOthers
  | InvalidUserGroup
  | UserGroupDeactivated

/** @category errors */
export type RevokeError = CallerError | NoSuchInvitation | OrganizationOwnerRequired | InviteAsAdministratorRequired | InvitationAlreadyRevoked

/** A link that cannot be used. @category errors */
export type LinkError = InvitationLinkUnknown | InvitationLinkExpired | InvitationLinkRevoked | InvitationLinkMakerNotAllowed

/** Bad join form input. @category errors */
export type JoinFormError =
  | PasswordTooWeak
  | BadRequest
  | InvalidEmailAddress
  | NameEmpty
  | NameTooLong
  | NameInvalidCharacters
  | NameInvalidFormat

/** A usable link and its organization. @category models */
export interface UsableLink {
  readonly invitation: Invitation
  readonly realm: Realm
}

/** @category services */
export class Invitations extends Context.Service<Invitations, {
  /** POST /invites/multiuse: the new link's URL. */
  create(principal: Principal, input: NewInvitation): Effect.Effect<{ readonly invite_link: string; readonly id: InvitationId }, CreateError>
  /** GET /invites: the usable links the caller manages, by id. */
  list(principal: Principal): Effect.Effect<ReadonlyArray<ApiInvitation>, CallerError>
  /** DELETE /invites/multiuse/{id}. */
  revoke(principal: Principal, id: number): Effect.Effect<void, RevokeError>
  /** The link `key` of the organization `realm`, when it can be used. */
  check(realm: Realm, key: string): Effect.Effect<UsableLink, LinkError>
  /** Makes the account of a person joining through the link `key`. */
  join(realm: Realm, key: string, form: JoinForm): Effect.Effect<User, LinkError | JoinFormError>
}>()("teamchat/core/services/Invitations") {
  static readonly layer = Layer.effect(
    Invitations,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const repo = yield* InvitationRepo
      const realms = yield* RealmRepo
      const groups = yield* GroupRepo
      const subscriptions = yield* SubscriptionRepo
      const users = yield* Users
      const userRepo = yield* UserRepo
      const welcomeBot = yield* WelcomeBot
      const events = yield* Events
      const keys = yield* KeyGenerator
      const tx = yield* Transactor
      const audit = yield* AuditLog

      const context = Effect.fnUntraced(function*(realm: Realm) {
        const current = (yield* realms.findById(realm.id)) ?? realm
        return yield* loadAccess(current)
      })

      const requireMemberOrAdmin = (user: User): Effect.Effect<void, CallerError> => {
        if (isGuest(user.role)) return Effect.fail(new NotAllowedForGuests())
        if (user.is_bot) return Effect.fail(new BotsNotAllowed())
        return Effect.void
      }

      /** Zulip's `check_role_based_permissions`. */
      const checkRole = (invitedAs: Role, actor: User, requireAdmin: boolean) => {
        if (invitedAs === Roles.owner && !isOwner(actor.role)) return Effect.fail(new OrganizationOwnerRequired())
        if (requireAdmin && !isAdministrator(actor.role)) return Effect.fail(new InviteAsAdministratorRequired())
        return Effect.void
      }

      /** The organization's `create_multiuse_invite_group`: its administrators (not yet a setting here). */
      const inviteGroupOf = (ctx: AccessContext) => systemGroupIdsOf(ctx.state.groups)["role:administrators"]

      /** Zulip's error for each refusal of a link's maker. */
      const refusalError = (refusal: InviteRefusal) => {
        switch (refusal) {
          case "guest":
            return new NotAllowedForGuests()
          case "bot":
            return new BotsNotAllowed()
          case "owner_required":
            return new OrganizationOwnerRequired()
          case "administrator_required":
            return new InviteAsAdministratorRequired()
          case "deactivated":
          case "insufficient_permission":
            return new InsufficientPermission()
        }
      }

      /** `invites_changed` to the organization's administrators and the link's maker. */
      const publishChanged = (ctx: AccessContext, referrerId: UserId) => {
        const audience = ctx.state.users.filter((u) => u.is_active && isAdministrator(u.role)).map((u) => u.id)
        return events.publish(ctx.state.realm.id, { type: "invites_changed" }, Audience.users([...audience, referrerId]))
      }

      const create = Effect.fn("Invitations.create")(function*(principal: Principal, input: NewInvitation) {
        yield* requireMemberOrAdmin(principal.user)
        const invitedAs = input.invite_as ?? Roles.member
        if (!isRole(invitedAs)) return yield* new InvalidParameter({ var_name: "invite_as" })
        const minutes = input.invite_expires_in_minutes === undefined ? DefaultValidityMinutes : input.invite_expires_in_minutes
        if (minutes !== null && minutes <= 0) return yield* new TooSmall({ var_name: "invite_expires_in_minutes" })
        if (minutes !== null && minutes > MaxValidityMinutes) {
          return yield* new TooLarge({ var_name: "invite_expires_in_minutes" })
        }
        const welcomeText = input.welcome_message_custom_text ?? null
        if (welcomeText !== null && Array.from(welcomeText).length > MaxWelcomeMessageLength) {
          return yield* new TooLong({ var_name: "welcome_message_custom_text", max_length: MaxWelcomeMessageLength })
        }
        return yield* tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* context(principal.realm)
          const actor = ctx.state.usersById.get(principal.user.id) ?? principal.user
          const refusal = inviteRefusal(ctx.state.index, inviteGroupOf(ctx), actor, invitedAs)
          if (refusal !== undefined) return yield* refusalError(refusal)
          // Zulip's access_streams_for_invite.
          const channelIds: Array<ChannelId> = []
          for (const id of input.stream_ids ?? []) {
            const channel = ctx.channelsById.get(id as ChannelId)
            if (channel === undefined || !canReadChannel(ctx, actor, channel)) return yield* new InvalidInviteChannel({ stream_id: id })
            if (!channelIds.includes(channel.id)) channelIds.push(channel.id)
          }
          for (const id of channelIds) {
            const channel = ctx.channelsById.get(id)!
            if (!channel.is_default && !canAddSubscribers(accessInput(ctx, actor, channel), ctx.state.realm.settings)) {
              return yield* new CannotSubscribeOthers()
            }
          }
          // Zulip's access_user_groups_for_invite (can_add_members_group).
          const groupIds: Array<GroupId> = []
          for (const id of input.group_ids ?? []) {
            const group = ctx.state.groups.find((g) => g.id === id)
            if (group === undefined) return yield* new InvalidUserGroup()
            if (group.is_system_group) return yield* new InsufficientPermission()
            if (group.deactivated) return yield* new UserGroupDeactivated()
            if (!canAddSubgroups(ctx.state.index, ctx.state.realm, actor, group)) return yield* new InsufficientPermission()
            if (!groupIds.includes(group.id)) groupIds.push(group.id)
          }
          if (welcomeText !== null && !isAdministrator(actor.role)) return yield* new InviteAsAdministratorRequired()
          const now = yield* Clock.currentTimeMillis
          const key = yield* keys.token(InvitationKeyLength, InvitationKeyAlphabet)
          const invitation = yield* repo.insert({
            realm_id: principal.realm.id,
            referrer_id: actor.id,
            key,
            invited_as: invitedAs,
            stream_ids: channelIds,
            group_ids: groupIds,
            include_realm_default_subscriptions: input.include_realm_default_subscriptions ?? false,
            welcome_message_custom_text: welcomeText,
            created: now,
            expires: minutes === null ? null : now + minutes * 60_000,
            revoked: false
          })
          yield* audit.record(principal.realm.id, actor.id, [{
            event_type: "invitation_created",
            extra_data: { invitation_id: invitation.id, invited_as: invitedAs }
          }])
          yield* publishChanged(ctx, actor.id)
          return { invite_link: linkUrl(ctx.state.realm.url, key), id: invitation.id }
        }))
      })

      const list = Effect.fn("Invitations.list")(function*(principal: Principal) {
        yield* requireMemberOrAdmin(principal.user)
        const now = yield* Clock.currentTimeMillis
        const all = yield* repo.listByRealm(principal.realm.id)
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        return all
          .filter((i) => isUsable(i, now) && (isAdministrator(principal.user.role) || i.referrer_id === principal.user.id))
          .map((i) => toApiInvitation(i, realm.url))
      })

      const revoke = Effect.fn("Invitations.revoke")(function*(principal: Principal, id: number) {
        yield* requireMemberOrAdmin(principal.user)
        yield* tx.withTransaction(Effect.gen(function*() {
          const valid = Option.getOrUndefined(InvitationId.makeOption(id))
          const found = valid === undefined ? undefined : yield* repo.findByIdForUpdate(valid)
          if (found === undefined || found.realm_id !== principal.realm.id) return yield* new NoSuchInvitation()
          if (found.referrer_id !== principal.user.id) yield* checkRole(found.invited_as, principal.user, true)
          if (found.revoked) return yield* new InvitationAlreadyRevoked()
          yield* repo.revoke(found.id)
          yield* audit.record(found.realm_id, principal.user.id, [{
            event_type: "invitation_revoked",
            extra_data: { invitation_id: found.id }
          }])
          yield* publishChanged(yield* context(principal.realm), found.referrer_id)
        }))
      })

      const check = Effect.fn("Invitations.check")(function*(realm: Realm, key: string) {
        if (!isWellFormedKey(key)) return yield* new InvitationLinkUnknown()
        const found = yield* repo.findByKeyHash(keyHash(key))
        if (found === undefined || found.realm_id !== realm.id || !sameKey(found.key, key)) {
          return yield* new InvitationLinkUnknown()
        }
        if (found.revoked) return yield* new InvitationLinkRevoked()
        if (!isUsable(found, yield* Clock.currentTimeMillis)) return yield* new InvitationLinkExpired()
        // The link acts with its maker's rights as they are now, not as they
        // were when it was made: a demoted administrator's administrator link
        // must not keep making administrators.
        const ctx = yield* context(realm)
        const maker = ctx.state.usersById.get(found.referrer_id)
        if (maker === undefined || inviteRefusal(ctx.state.index, inviteGroupOf(ctx), maker, found.invited_as) !== undefined) {
          return yield* new InvitationLinkMakerNotAllowed()
        }
        return { invitation: found, realm: ctx.state.realm } satisfies UsableLink
      })

      /** The link's channels and groups for the new user, with their events. */
      const grant = Effect.fnUntraced(function*(realm: Realm, invitation: Invitation, user: User) {
        const before = yield* context(realm)
        const channelIds = new Set<ChannelId>(invitation.stream_ids)
        if (invitation.include_realm_default_subscriptions) {
          for (const channel of before.channels) if (channel.is_default) channelIds.add(channel.id)
        }
        const added = new Map<ChannelId, Array<UserId>>()
        const written = new Map<string, Subscription>()
        // The person joining acts, as for their account.
        const audited: Array<AuditChange> = []
        for (const channelId of [...channelIds].sort((a, b) => a - b)) {
          const channel = before.channelsById.get(channelId)
          if (channel === undefined || channel.is_archived) continue
          const properties = newSubscriptionProperties(yield* subscriptions.listByUser(user.id))
          const row: Subscription = { user_id: user.id, channel_id: channel.id, active: true, properties }
          yield* subscriptions.upsert(row)
          written.set(`${user.id}:${channel.id}`, row)
          added.set(channel.id, [user.id])
          audited.push({ event_type: "subscription_created", modified_user_id: user.id, modified_stream_id: channel.id })
        }
        if (added.size > 0) {
          const after = yield* context(realm)
          yield* events.publishAll(
            realm.id,
            subscriptionAddEvents(before, after, after.state.realm, added, (u, c) => written.get(`${u}:${c}`))
          )
        }
        for (const groupId of invitation.group_ids) {
          const group = before.state.groups.find((g) => g.id === groupId)
          if (group === undefined || group.deactivated) continue
          yield* groups.addMembers(group.id, [user.id])
          audited.push({ event_type: "user_group_direct_user_membership_added", modified_user_id: user.id, modified_user_group_id: group.id })
          yield* events.publish(realm.id, { type: "user_group", op: "add_members", group_id: group.id, user_ids: [user.id] }, Audience.realm)
        }
        yield* audit.record(realm.id, user.id, audited)
      })

      const join = Effect.fn("Invitations.join")(function*(realm: Realm, key: string, form: JoinForm) {
        yield* check(realm, key)
        if (Password.isTooWeak(form.password)) return yield* new PasswordTooWeak()
        return yield* tx.withTransaction(Effect.gen(function*() {
          // The locks of a role change or deactivation of the maker, and of a
          // revocation of the link, in the one lock order (organization locks,
          // then rows): such a change either commits before this check reads
          // the maker's rights, or waits for this join to commit. Without them
          // a demotion committing meanwhile left the join acting on the rights
          // it had read before.
          yield* userRepo.lockRoles(realm.id)
          yield* userRepo.lockAddresses(realm.id)
          const link = isWellFormedKey(key) ? yield* repo.findByKeyHash(keyHash(key)) : undefined
          if (link !== undefined && link.realm_id === realm.id) {
            yield* userRepo.findByIdForUpdate(link.referrer_id)
            yield* repo.findByIdForUpdate(link.id)
          }
          // Checked again inside the transaction, under those locks.
          const { invitation, realm: current } = yield* check(realm, key)
          const user = yield* users.create(current.id, {
            email: form.email,
            full_name: form.full_name,
            role: invitation.invited_as,
            password: form.password
          }, { invitation })
          yield* grant(current, invitation, user)
          const custom = invitation.welcome_message_custom_text
          const content = custom !== null && custom.trim() !== "" ? custom : defaultWelcomeMessage(current)
          yield* Effect.orDie(welcomeBot.welcome(current, user, content))
          return user
        }))
      })

      return Invitations.of({ create, list, revoke, check, join })
    })
  )
}
