/**
 * Users: accounts of people and bots, their API keys and passwords, role
 * changes, deactivation, and how users are shown through the API.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"
import { valueChange } from "../domain/AuditLog.ts"
import type { AuditChange } from "../domain/AuditLog.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Invitation } from "../domain/Invitation.ts"
import type { Principal } from "../domain/Principal.ts"
import type { Realm } from "../domain/Realm.ts"
import { isSystemBotEmail, isValidEmailAddress } from "../domain/EmailAddress.ts"
import { EmailVisibilities, isAdministrator, Roles } from "../domain/Role.ts"
import type { BotType, Role } from "../domain/Role.ts"
import { placeholderEmail } from "../domain/User.ts"
import type { User } from "../domain/User.ts"
import type { SystemGroupName } from "../domain/UserGroup.ts"
import {
  BadRequest,
  CannotDeactivateLastUser,
  ChangeUserEmailsNotAuthorized,
  GuestCannotBeAdmin,
  InsufficientPermission,
  InvalidEmailAddress,
  InvalidNewEmail,
  InvalidUserId,
  NameEmpty,
  NameInvalidCharacters,
  NameInvalidFormat,
  NameNotUnique,
  NameTooLong,
  NewEmailDeactivated,
  NewEmailInUse,
  NewEmailReserved,
  NoSuchUser,
  OnlyOwner,
  OrganizationAdministratorRequired,
  OrganizationOwnerRequired,
  UserDeactivated
} from "../errors/Errors.ts"
import {
  administrationRefusal,
  deactivationRefusal,
  isFullMember,
  removesOnlyOwner,
  roleChangeRefusal,
  RoleErrors
} from "../permissions/Roles.ts"
import type { AdministrationRefusal } from "../permissions/Roles.ts"
import { Events } from "./events/Events.ts"
import type { Publication } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import type { PersonUpdate } from "../domain/events/UserEvents.ts"
import {
  accessOfRequest,
  canAccessUser,
  hasFullUserAccess,
  makeAccessLoader,
  metadataViewers,
  usersWhoCanAccess
} from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { GroupRepo, MessageRepo, RealmRepo, UserRepo } from "../ports/Repositories.ts"
import { ProfileFieldRepo } from "../ports/ProfileFieldRepo.ts"
import { InvitationRepo } from "../ports/InvitationRepo.ts"
import { expiryEndingAt } from "../domain/Invitation.ts"
import { toProfileData } from "../domain/CustomProfileField.ts"
import { planValues, profileDataByUser, writeValues } from "./internal/profileValues.ts"
import type { ProfileDataEntry, ProfileValueError } from "./internal/profileValues.ts"
import { Transactor } from "../ports/Transactor.ts"
import { avatarUrl, avatarUrlMedium, canAccessDeliveryEmail, inaccessibleUser, toApiUser, toOwnUser } from "../views/UserView.ts"
import type { ApiUser, OwnUser, ViewOptions } from "../views/UserView.ts"
import { AuditLog } from "./AuditLog.ts"
import { apiKey, KeyGenerator } from "./KeyGenerator.ts"
import { PasswordHasher } from "./PasswordHasher.ts"

/** @category models */
export interface NewUser {
  readonly email: string
  readonly full_name: string
  readonly role: Role
  /** Omitted: the account cannot log in with a password. */
  readonly password?: string
  readonly timezone?: string
  readonly bot?: { readonly bot_type: BotType; readonly owner_id: UserId | null }
  /** A system bot's own account, the only one that may take its reserved address. */
  readonly systemBot?: true
}

/**
 * Who makes an account, for its `user_created` audit row: a user (`actor`;
 * null, the default, is the operator or the system), or its own person
 * joining through an invitation link (as in Zulip's sign-up, the new user
 * acts; the link and its maker are in the row's `extra_data`).
 *
 * @category models
 */
export type UserOrigin = { readonly actor: UserId | null } | { readonly invitation: Invitation }

/** @category errors */
export type NewUserError = BadRequest | InvalidEmailAddress | NameEmpty | NameTooLong | NameInvalidCharacters | NameInvalidFormat

/** A `realm_user update`'s person without the user's id (the caller adds it). */
type PersonChange = PersonUpdate extends infer P ? P extends unknown ? Omit<P, "user_id"> : never : never

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
// Characters Zulip refuses in names, as they break mention syntax.
const nameInvalidChars = /[*`\\>"@]/
const maxNameLength = 100

/** Zulip's check_full_name. @category validation */
export const checkFullName = (raw: string): Effect.Effect<string, NameEmpty | NameTooLong | NameInvalidCharacters | NameInvalidFormat> => {
  const name = raw.trim()
  if (name.length === 0) return Effect.fail(new NameEmpty())
  // Zulip counts characters (code points), not UTF-16 units.
  if (Array.from(name).length > maxNameLength) return Effect.fail(new NameTooLong())
  // Zulip's check_string_is_printable: control characters (Cc) and lone
  // surrogates (Cs) make names unreadable in every client.
  if (nameInvalidChars.test(name) || /[\p{Cc}\p{Cs}]/u.test(name)) return Effect.fail(new NameInvalidCharacters())
  if (/\|\d+$/.test(name)) return Effect.fail(new NameInvalidFormat())
  return Effect.succeed(name)
}

/**
 * Whether another user of `users` already has `name`, compared as Zulip does
 * for `require_unique_names` (NFKC, case-folded).
 *
 * @category validation
 */
export const nameTaken = (users: ReadonlyArray<User>, name: string, except: UserId): boolean => {
  const folded = name.normalize("NFKC").toLowerCase()
  return users.some((u) => u.id !== except && u.full_name.normalize("NFKC").toLowerCase() === folded)
}

/** What `PATCH /users/{id}` may change; absent fields stay. @category models */
export interface UserChanges {
  /** Ignored when blank or unchanged, as Zulip does for administrators. */
  readonly full_name?: string
  readonly role?: Role
  /** Values to set; null or empty clears one. */
  readonly profile_data?: ReadonlyArray<ProfileDataEntry>
  /**
   * The user's new real address; only administrators with the
   * `can_change_user_emails` permission may. The same address is no change.
   */
  readonly new_email?: string
}

/** A user named by id, or by address (real, when the caller may see it, or placeholder). @category models */
export type UserKey = number | string

/** @category errors */
export type AdministrationError =
  | NoSuchUser
  | BadRequest
  | InsufficientPermission
  | OrganizationOwnerRequired
  | OrganizationAdministratorRequired
  | OnlyOwner
  | GuestCannotBeAdmin
  | NameTooLong
  | NameInvalidCharacters
  | NameInvalidFormat
  | NameNotUnique
  | NameEmpty
  | ProfileValueError
  | ChangeUserEmailsNotAuthorized
  | InvalidNewEmail
  | NewEmailInUse
  | NewEmailReserved
  | NewEmailDeactivated
  /** The actor was deactivated while the request waited for the role lock. */
  | UserDeactivated

const refusalError = (refusal: AdministrationRefusal): AdministrationError => {
  switch (refusal) {
    case "NoSuchUser":
      return new NoSuchUser()
    case "UserIsDeactivated":
      return new BadRequest({ msg: "User is deactivated" })
    case "InsufficientPermission":
      return new InsufficientPermission()
    case "OwnerRequired":
      return new OrganizationOwnerRequired()
    case "AdministratorRequired":
      return new OrganizationAdministratorRequired()
    case "OnlyOwner":
      return new OnlyOwner()
    case "OnlyOwnerDeactivation":
      return new BadRequest({ msg: RoleErrors.onlyOwnerDeactivation })
    case "GuestCannotBeAdmin":
      return new GuestCannotBeAdmin()
  }
}

const roleGroups = (role: Role, fullMember: boolean): ReadonlyArray<SystemGroupName> => {
  const own: SystemGroupName = role === Roles.owner
    ? "role:owners"
    : role === Roles.administrator
    ? "role:administrators"
    : role === Roles.moderator
    ? "role:moderators"
    : role === Roles.member
    ? "role:members"
    : "role:everyone"
  return role === Roles.member && fullMember ? [own, "role:fullmembers"] : [own]
}

/** @category services */
export class Users extends Context.Service<Users, {
  create(realmId: RealmId, input: NewUser, origin?: UserOrigin): Effect.Effect<User, NewUserError>
  /** The account behind HTTP Basic credentials (`email`, `api_key`). */
  findById(id: UserId): Effect.Effect<User | undefined>
  findByEmail(realmId: RealmId, email: string): Effect.Effect<User | undefined>
  /**
   * Whether `password` is the user's. Costs one hash verification whatever
   * the account (none, without a password): the time taken tells nothing.
   */
  checkPassword(user: User | undefined, password: string): Effect.Effect<boolean>
  setPassword(userId: UserId, password: string): Effect.Effect<void, NoSuchUser>
  rotateApiKey(userId: UserId): Effect.Effect<User, NoSuchUser>
  deactivate(userId: UserId): Effect.Effect<User, NoSuchUser | OnlyOwner | BadRequest>
  reactivate(userId: UserId): Effect.Effect<User, NoSuchUser | BadRequest>
  changeRole(userId: UserId, role: Role): Effect.Effect<User, NoSuchUser | OnlyOwner | BadRequest>
  /**
   * Grants or takes away the `can_change_user_emails` permission (the
   * operator's CLI); Zulip's refusals when it is already so.
   */
  setCanChangeUserEmails(userId: UserId, value: boolean): Effect.Effect<User, NoSuchUser | BadRequest>
  /** PATCH /users/{id} and /users/{email}: an administrator (or a bot's owner) changes a user. */
  administer(principal: Principal, key: UserKey, changes: UserChanges): Effect.Effect<void, AdministrationError>
  /** DELETE /users/{id}: an administrator deactivates a person (and the bots they own). */
  deactivateAs(principal: Principal, id: number): Effect.Effect<void, AdministrationError>
  /**
   * DELETE /users/me: the caller deactivates their own account (and the
   * bots they own), unless they are the organization's only active user or
   * only active owner.
   */
  deactivateSelf(principal: Principal): Effect.Effect<void, CannotDeactivateLastUser | UserDeactivated>
  /** POST /users/{id}/reactivate */
  reactivateAs(principal: Principal, id: number): Effect.Effect<void, AdministrationError>
  /** GET /users/me */
  me(principal: Principal): Effect.Effect<OwnUser>
  /** GET /users; `viewer` undefined is an unauthenticated spectator. */
  list(
    realm: Realm,
    viewer: User | undefined,
    options: ViewOptions & { readonly userIds?: ReadonlyArray<number> }
  ): Effect.Effect<ReadonlyArray<ApiUser>, InvalidUserId>
  /** GET /users/{user_id} */
  getById(principal: Principal, id: number, options: ViewOptions): Effect.Effect<ApiUser, NoSuchUser>
  /** GET /users/{email}; placeholder addresses are accepted. */
  getByEmail(principal: Principal, email: string, options: ViewOptions): Effect.Effect<ApiUser, NoSuchUser>
}>()("teamchat/core/services/Users") {
  static readonly layer = Layer.effect(
    Users,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const users = yield* UserRepo
      const realms = yield* RealmRepo
      const groups = yield* GroupRepo
      const events = yield* Events
      const tx = yield* Transactor
      const messageRepo = yield* MessageRepo
      const hasher = yield* PasswordHasher
      const keys = yield* KeyGenerator
      const profileFields = yield* ProfileFieldRepo
      const invitations = yield* InvitationRepo
      const audit = yield* AuditLog
      const profileDataOf = (user: User) => Effect.map(profileFields.valuesByUser(user.id), toProfileData)
      // What a check without a stored hash verifies against: made once, at
      // the same cost, from a random password nobody knows.
      const unusableHash = yield* Effect.cached(
        Effect.flatMap(Effect.sync(() => randomBytes(32).toString("base64")), (secret) => hasher.hash(secret))
      )

      const systemGroupIds = Effect.fnUntraced(function*(realmId: RealmId) {
        const all = yield* groups.listByRealm(realmId)
        return new Map(all.filter((g) => g.is_system_group).map((g) => [g.name, g.id]))
      })

      const joinRoleGroups = Effect.fnUntraced(function*(user: User, realm: Realm, join: boolean) {
        const ids = yield* systemGroupIds(user.realm_id)
        const now = yield* Clock.currentTimeMillis
        // Membership follows the role and the join date only: deactivated
        // users keep their groups (queries skip them), so a role change while
        // deactivated must still move them. Leaving removes every group the
        // role may have put them in, whatever the waiting period says now.
        const names = join
          ? roleGroups(user.role, isFullMember({ ...user, is_active: true }, realm.settings.waiting_period_threshold, now))
          : roleGroups(user.role, true)
        for (const name of names) {
          const id = ids.get(name)
          if (id === undefined) continue
          yield* join ? groups.addMembers(id, [user.id]) : groups.removeMembers(id, [user.id])
        }
      })

      // A real address finds its user only for viewers allowed to see it
      // (Zulip since feature level 302); placeholders work for everyone.
      const matchesAddress = (principal: Principal, u: User, email: string): boolean => {
        const wanted = email.toLowerCase()
        return (u.delivery_email.toLowerCase() === wanted && canAccessDeliveryEmail(principal.user, u)) ||
          u.email.toLowerCase() === wanted ||
          placeholderEmail(u.id, principal.realm.fake_email_domain) === wanted
      }

      /** The user `id`, under a row lock: every caller writes what it read. */
      const requireUser = Effect.fnUntraced(function*(id: UserId) {
        const user = yield* users.findByIdForUpdate(id)
        if (user === undefined) return yield* new NoSuchUser()
        return user
      })

      const accessContext = (realm: Realm) =>
        loadAccess(realm)

      /**
       * realm_user add, as Zulip's notify_created_user: the person with the
       * real address to viewers allowed to see it, with null to the others,
       * and an "Unknown user" placeholder to users who cannot access the new
       * user unless their client declared user_list_incomplete.
       */
      const publishCreated = Effect.fnUntraced(function*(realm: Realm, user: User) {
        const ctx = yield* accessContext(realm)
        const viewers = usersWhoCanAccess(ctx, user).map((id) => ctx.state.usersById.get(id)!)
        const withEmail = viewers.filter((v) => canAccessDeliveryEmail(v, user))
        const withoutEmail = viewers.filter((v) => !canAccessDeliveryEmail(v, user))
        const person = (viewer: User) =>
          toApiUser(realm, viewer, user, { clientGravatar: false, includeCustomProfileFields: true })
        const publications: Array<Publication> = []
        if (withEmail.length > 0) {
          publications.push({
            event: { type: "realm_user", op: "add", person: person(withEmail[0]!) },
            audience: Audience.users(withEmail.map((u) => u.id))
          })
        }
        if (withoutEmail.length > 0) {
          publications.push({
            event: { type: "realm_user", op: "add", person: person(withoutEmail[0]!) },
            audience: Audience.users(withoutEmail.map((u) => u.id))
          })
        }
        const seeing = new Set(viewers.map((v) => v.id))
        const others = ctx.state.users.filter((u) => u.is_active && !seeing.has(u.id)).map((u) => u.id)
        if (others.length > 0) {
          publications.push({
            event: { type: "realm_user", op: "add", person: inaccessibleUser(realm, user.id) },
            audience: Audience.users(others),
            requires: { user_list_incomplete: false }
          })
        }
        yield* events.publishAll(realm.id, publications)
      })

      /** peer_add / peer_remove for every channel the user is subscribed to. */
      const peerEvents = (ctx: AccessContext, user: User, op: "peer_add" | "peer_remove"): Array<Publication> => {
        const out: Array<Publication> = []
        for (const channelId of ctx.subscriptions.get(user.id) ?? []) {
          const channel = ctx.channelsById.get(channelId)
          if (channel === undefined) continue
          const audience = metadataViewers(ctx, channel).filter((id) => id !== user.id)
          if (audience.length === 0) continue
          out.push({
            event: { type: "subscription", op, stream_ids: [channelId], user_ids: [user.id] },
            audience: Audience.users(audience)
          })
        }
        return out
      }

      const personUpdate = (user: User, person: PersonChange): Publication => ({
        event: { type: "realm_user", op: "update", person: { user_id: user.id, ...person } },
        audience: Audience.canAccessUser(user.id)
      })

      const requireRealm = (id: RealmId) => realms.findById(id).pipe(Effect.flatMap((r) => r === undefined ? Effect.die(new Error(`realm ${id} missing`)) : Effect.succeed(r)))

      const create = Effect.fn("Users.create")(function*(realmId: RealmId, input: NewUser, origin: UserOrigin = { actor: null }) {
        const email = input.email.trim()
        if (!emailPattern.test(email)) return yield* new InvalidEmailAddress()
        // Only the system bots themselves (WelcomeBot, NotificationBot) take their addresses.
        if (isSystemBotEmail(email) && input.systemBot !== true) {
          return yield* new BadRequest({ msg: `${email} is reserved for system bots` })
        }
        const fullName = yield* checkFullName(input.full_name)
        const passwordHash = input.password === undefined ? null : yield* hasher.hash(input.password)
        const key = yield* apiKey.pipe(Effect.provideService(KeyGenerator, keys))
        return yield* tx.withTransaction(Effect.gen(function*() {
          const realm = yield* requireRealm(realmId)
          yield* users.lockAddresses(realmId)
          if ((yield* users.findByDeliveryEmail(realmId, email)) !== undefined) {
            return yield* new BadRequest({ msg: `Email '${email}' already in use` })
          }
          // A bot's owner must be a user of the organization (SQL enforces
          // existence with a foreign key; the memory backend would not).
          const ownerId = input.bot?.owner_id ?? null
          if (ownerId !== null && (yield* users.findById(ownerId))?.realm_id !== realmId) {
            return yield* new BadRequest({ msg: "No such user" })
          }
          const now = yield* Clock.currentTimeMillis
          // Bots' addresses are public; people follow the organization default.
          const visibility = input.bot !== undefined ? EmailVisibilities.everyone : realm.settings.email_address_visibility
          const user = yield* users.insert((id) => ({
            realm_id: realmId,
            delivery_email: email,
            email: visibility === EmailVisibilities.everyone ? email : placeholderEmail(id, realm.fake_email_domain),
            full_name: fullName,
            role: input.role,
            is_bot: input.bot !== undefined,
            bot_type: input.bot?.bot_type ?? null,
            bot_owner_id: input.bot?.owner_id ?? null,
            is_active: true,
            timezone: input.timezone ?? "",
            avatar_source: "G",
            avatar_version: 1,
            date_joined: now,
            email_address_visibility: visibility,
            api_key: key,
            password_hash: passwordHash,
            can_change_user_emails: false
          }))
          yield* joinRoleGroups(user, realm, true)
          const [actor, extra_data] = "invitation" in origin
            ? [user.id, { invitation_id: origin.invitation.id, referred_by: origin.invitation.referrer_id }]
            : [origin.actor, {}]
          yield* audit.record(realmId, actor, [{ event_type: "user_created", modified_user_id: user.id, extra_data }])
          yield* publishCreated(realm, user)
          return user
        }))
      })

      const activeHumanOwners = Effect.fnUntraced(function*(realmId: RealmId) {
        const all = yield* users.listByRealm(realmId)
        return all.filter((u) => u.is_active && !u.is_bot && u.role === Roles.owner).length
      })

      /**
       * The writes and events of a deactivation, inside the caller's
       * transaction. Zulip (feature level 377): peer_remove for the user's
       * subscriptions, then the deactivation itself; a person's active bots
       * are deactivated with them (Zulip's cascade), each the same way. Their
       * usable invitation links end now (Zulip's
       * `revoke_invites_generated_by_user`; reactivating does not revive
       * them), announced to administrators with `invites_changed`.
       */
      const deactivateInTransaction = Effect.fnUntraced(function*(user: User, actor: UserId | null) {
        const realm = yield* requireRealm(user.realm_id)
        const all = yield* users.listByRealm(user.realm_id)
        const bots = user.is_bot ? [] : all.filter((u) => u.is_bot && u.is_active && u.bot_owner_id === user.id)
        const deactivated: Array<User> = []
        const ended = expiryEndingAt(yield* Clock.currentTimeMillis)
        let expiredLinks = 0
        for (const target of [user, ...bots]) {
          const updated: User = { ...target, is_active: false }
          yield* users.update(updated)
          deactivated.push(updated)
          expiredLinks += yield* invitations.expireByReferrer(realm.id, target.id, ended)
        }
        yield* audit.record(realm.id, actor, deactivated.map((u) => ({ event_type: "user_deactivated", modified_user_id: u.id })))
        const ctx = yield* accessContext(realm)
        const administrators = ctx.state.users.filter((u) => u.is_active && isAdministrator(u.role)).map((u) => u.id)
        yield* events.publishAll(realm.id, [
          ...deactivated.flatMap((u) => [...peerEvents(ctx, u, "peer_remove"), personUpdate(u, { is_active: false })]),
          ...(expiredLinks > 0
            ? [{ event: { type: "invites_changed" } as const, audience: Audience.users(administrators) }]
            : [])
        ])
      })

      const reactivateInTransaction = Effect.fnUntraced(function*(user: User, actor: UserId | null) {
        const updated: User = { ...user, is_active: true }
        yield* users.update(updated)
        yield* audit.record(user.realm_id, actor, [{ event_type: "user_reactivated", modified_user_id: user.id }])
        const realm = yield* requireRealm(user.realm_id)
        const ctx = yield* accessContext(realm)
        yield* events.publishAll(realm.id, [
          personUpdate(updated, { is_active: true }),
          ...peerEvents(ctx, updated, "peer_add")
        ])
      })

      /**
       * The user `id` for a role change or (de)activation: the organization's
       * role lock first, then the row (the one lock order).
       */
      const requireUserForRoles = Effect.fnUntraced(function*(id: UserId) {
        const found = yield* users.findById(id)
        if (found === undefined) return yield* new NoSuchUser()
        yield* users.lockRoles(found.realm_id)
        return yield* requireUser(id)
      })

      const deactivate = Effect.fn("Users.deactivate")((id: UserId) =>
        tx.withTransaction(Effect.gen(function*() {
          const user = yield* requireUserForRoles(id)
          if (!user.is_active) return yield* new BadRequest({ msg: "User is already deactivated" })
          if (removesOnlyOwner(user, yield* activeHumanOwners(user.realm_id))) {
            return yield* new BadRequest({ msg: RoleErrors.onlyOwnerDeactivation })
          }
          yield* deactivateInTransaction(user, null)
          return { ...user, is_active: false }
        }))
      )

      const reactivate = Effect.fn("Users.reactivate")((id: UserId) =>
        tx.withTransaction(Effect.gen(function*() {
          const user = yield* requireUserForRoles(id)
          if (user.is_active) return yield* new BadRequest({ msg: "User is already active" })
          yield* reactivateInTransaction(user, null)
          return { ...user, is_active: true }
        }))
      )

      const roleChanged = (user: User, role: Role): AuditChange => ({
        event_type: "user_role_changed",
        modified_user_id: user.id,
        extra_data: valueChange(user.role, role)
      })

      /** The role's writes (system groups follow it) and its realm_user event. */
      const applyRole = Effect.fnUntraced(function*(user: User, role: Role) {
        const realm = yield* requireRealm(user.realm_id)
        yield* joinRoleGroups(user, realm, false)
        const updated: User = { ...user, role }
        yield* users.update(updated)
        yield* joinRoleGroups(updated, realm, true)
        return { updated, publication: personUpdate(updated, { role }) }
      })

      /**
       * The events of a changed address, as Zulip's do_change_user_delivery_email:
       * the new `delivery_email` to those allowed to see it, the avatar (derived
       * from the address) to everyone who can access the user, and the new API
       * `email` when the address is public.
       */
      const emailChangeEvents = Effect.fnUntraced(function*(realm: Realm, user: User) {
        const ctx = yield* accessContext(realm)
        const viewers = usersWhoCanAccess(ctx, user).map((id) => ctx.state.usersById.get(id)!)
        const withEmail = viewers.filter((v) => canAccessDeliveryEmail(v, user)).map((v) => v.id)
        const out: Array<Publication> = []
        if (withEmail.length > 0) {
          out.push({
            event: { type: "realm_user", op: "update", person: { user_id: user.id, delivery_email: user.delivery_email } },
            audience: Audience.users(withEmail)
          })
        }
        out.push(personUpdate(user, {
          avatar_source: user.avatar_source,
          avatar_url: avatarUrl(user, realm),
          avatar_url_medium: avatarUrlMedium(user, realm),
          avatar_version: user.avatar_version
        }))
        if (user.email_address_visibility === EmailVisibilities.everyone) {
          out.push(personUpdate(user, { new_email: user.email }))
        }
        return out
      })

      const setCanChangeUserEmails = Effect.fn("Users.setCanChangeUserEmails")((id: UserId, value: boolean) =>
        tx.withTransaction(Effect.gen(function*() {
          const user = yield* requireUser(id)
          if (user.can_change_user_emails === value) {
            return yield* new BadRequest({
              msg: value ? "User can already change user emails for this realm." : "User can't change user emails for this realm."
            })
          }
          const updated: User = { ...user, can_change_user_emails: value }
          yield* users.update(updated)
          yield* audit.record(user.realm_id, null, [{
            event_type: "user_special_permission_changed",
            modified_user_id: user.id,
            extra_data: valueChange(!value, value, "can_change_user_emails")
          }])
          return updated
        }))
      )

      const changeRole = Effect.fn("Users.changeRole")((id: UserId, role: Role) =>
        tx.withTransaction(Effect.gen(function*() {
          const user = yield* requireUserForRoles(id)
          if (user.role === role) return user
          if (removesOnlyOwner(user, yield* activeHumanOwners(user.realm_id), role)) {
            return yield* new OnlyOwner()
          }
          const { publication, updated } = yield* applyRole(user, role)
          yield* audit.record(user.realm_id, null, [roleChanged(user, role)])
          yield* events.publishAll(user.realm_id, [publication])
          return updated
        }))
      )

      /**
       * The user `key` names for `principal`, by the rules of GET
       * /users/{id} and /users/{email}; read again in the transaction.
       */
      const findTarget = Effect.fnUntraced(function*(principal: Principal, key: UserKey) {
        // Under the role lock, taken first (the one lock order): the actor's
        // role and the owners counted are current until the commit.
        yield* users.lockRoles(principal.realm.id)
        // Read in the transaction: its version is read there too.
        const found = yield* findVisible(yield* loadAccess(principal.realm), principal, (u) =>
          typeof key === "number" ? u.id === key : matchesAddress(principal, u, key))
        const target = yield* requireUser(found.id)
        // The actor as they are now: a demotion or deactivation that committed
        // while this request waited is in force for it.
        const actor = found.id === principal.user.id ? target : yield* users.findById(principal.user.id)
        if (actor === undefined || !actor.is_active) return yield* new UserDeactivated()
        return { actor, target }
      })

      const refuse = (refusal: AdministrationRefusal | undefined) =>
        refusal === undefined ? Effect.void : Effect.fail(refusalError(refusal))

      const administer = Effect.fn("Users.administer")((principal: Principal, key: UserKey, changes: UserChanges) =>
        tx.withTransaction(Effect.gen(function*() {
          const { actor, target } = yield* findTarget(principal, key)
          yield* refuse(administrationRefusal(actor, target, { allowBots: true, allowDeactivated: true }))
          if (changes.new_email !== undefined && !(actor.can_change_user_emails && isAdministrator(actor.role))) {
            return yield* new ChangeUserEmailsNotAuthorized()
          }
          const role = changes.role !== undefined && changes.role !== target.role ? changes.role : undefined
          if (role !== undefined) {
            yield* refuse(roleChangeRefusal(actor, target, role, yield* activeHumanOwners(target.realm_id)))
          }
          // Administrators' renames ignore blank names and `name_changes_disabled`.
          let fullName: string | undefined
          if (changes.full_name !== undefined && changes.full_name !== target.full_name && changes.full_name.trim() !== "") {
            const name = yield* checkFullName(changes.full_name)
            if (name !== target.full_name) {
              if (principal.realm.settings.require_unique_names && nameTaken(yield* users.listByRealm(target.realm_id), name, target.id)) {
                return yield* new NameNotUnique()
              }
              fullName = name
            }
          }
          if (changes.profile_data !== undefined) yield* profileFields.lockFields(target.realm_id, "values")
          const valueChanges = changes.profile_data === undefined ? [] : yield* planValues(
            yield* profileFields.listByRealm(target.realm_id),
            yield* users.listByRealm(target.realm_id),
            changes.profile_data,
            false
          )
          // Zulip compares the address as given: only the very same one is no change.
          let newEmail: string | undefined
          if (changes.new_email !== undefined && changes.new_email !== target.delivery_email) {
            if (!isValidEmailAddress(changes.new_email)) return yield* new InvalidNewEmail()
            if (isSystemBotEmail(changes.new_email)) return yield* new NewEmailReserved()
            yield* users.lockAddresses(target.realm_id)
            const holder = yield* users.findByDeliveryEmail(target.realm_id, changes.new_email)
            if (holder !== undefined) return yield* holder.is_active ? new NewEmailInUse() : new NewEmailDeactivated()
            newEmail = changes.new_email
          }
          // Every check has passed: from here on the request only writes.
          const publications: Array<Publication> = []
          const audited: Array<AuditChange> = []
          let current = target
          if (role !== undefined) {
            const { publication, updated } = yield* applyRole(current, role)
            audited.push(roleChanged(current, role))
            current = updated
            publications.push(publication)
          }
          if (fullName !== undefined) {
            audited.push({
              event_type: "user_full_name_changed",
              modified_user_id: current.id,
              extra_data: valueChange(current.full_name, fullName)
            })
            current = { ...current, full_name: fullName }
            yield* users.update(current)
            publications.push(personUpdate(current, { full_name: fullName }))
          }
          publications.push(...yield* writeValues(profileFields, current, valueChanges))
          if (newEmail !== undefined) {
            audited.push({
              event_type: "user_email_changed",
              modified_user_id: current.id,
              extra_data: valueChange(current.delivery_email, newEmail)
            })
            current = {
              ...current,
              delivery_email: newEmail,
              email: current.email_address_visibility === EmailVisibilities.everyone ? newEmail : current.email
            }
            yield* users.update(current)
            publications.push(...yield* emailChangeEvents(principal.realm, current))
          }
          yield* audit.record(target.realm_id, actor.id, audited)
          yield* events.publishAll(target.realm_id, publications)
        }))
      )

      const deactivateAs = Effect.fn("Users.deactivateAs")((principal: Principal, id: number) =>
        tx.withTransaction(Effect.gen(function*() {
          const { actor, target } = yield* findTarget(principal, id)
          yield* refuse(administrationRefusal(actor, target, { allowBots: false, allowDeactivated: false }))
          yield* refuse(deactivationRefusal(actor, target, yield* activeHumanOwners(target.realm_id)))
          yield* deactivateInTransaction(target, principal.user.id)
        }))
      )

      const deactivateSelf = Effect.fn("Users.deactivateSelf")((principal: Principal) =>
        tx.withTransaction(Effect.gen(function*() {
          // The role lock, then the row (the one lock order): the users and
          // owners counted are still active when this commits.
          yield* users.lockRoles(principal.realm.id)
          const user = yield* users.findByIdForUpdate(principal.user.id)
          if (user === undefined || !user.is_active) return yield* new UserDeactivated()
          // Zulip counts the organization's active accounts, bots included;
          // its system bots live elsewhere, so ours are not counted.
          const active = (yield* users.listByRealm(user.realm_id))
            .filter((u) => u.is_active && !(u.is_bot && isSystemBotEmail(u.delivery_email)))
          if (active.length === 1) {
            return yield* new CannotDeactivateLastUser({ is_last_owner: false, entity: "user" })
          }
          if (removesOnlyOwner(user, active.filter((u) => !u.is_bot && u.role === Roles.owner).length)) {
            return yield* new CannotDeactivateLastUser({ is_last_owner: true, entity: "organization owner" })
          }
          yield* deactivateInTransaction(user, user.id)
        }))
      )

      const reactivateAs = Effect.fn("Users.reactivateAs")((principal: Principal, id: number) =>
        tx.withTransaction(Effect.gen(function*() {
          const { actor, target } = yield* findTarget(principal, id)
          yield* refuse(administrationRefusal(actor, target, { allowBots: true, allowDeactivated: true }))
          if (target.is_active) return yield* new BadRequest({ msg: "User is already active" })
          yield* reactivateInTransaction(target, principal.user.id)
        }))
      )

      const rotateApiKey = Effect.fn("Users.rotateApiKey")(function*(id: UserId) {
        const key = yield* apiKey.pipe(Effect.provideService(KeyGenerator, keys))
        return yield* tx.withTransaction(Effect.gen(function*() {
          const user = yield* requireUser(id)
          const updated: User = { ...user, api_key: key }
          yield* users.update(updated)
          yield* audit.record(user.realm_id, null, [{ event_type: "user_api_key_changed", modified_user_id: user.id }])
          return updated
        }))
      })

      const setPassword = Effect.fn("Users.setPassword")(function*(id: UserId, password: string) {
        const hash = yield* hasher.hash(password)
        yield* tx.withTransaction(Effect.gen(function*() {
          const user = yield* requireUser(id)
          yield* users.update({ ...user, password_hash: hash })
          yield* audit.record(user.realm_id, null, [{ event_type: "user_password_changed", modified_user_id: user.id }])
        }))
      })

      // Users the viewer may see (Zulip's `check_can_access_user`, see
      // `canAccessUser`): with `can_access_all_users_group` the whole
      // organization; otherwise themselves, bots, and people who share a
      // subscribed channel with them. Read from the organization's access
      // read, kept while nothing it holds changes.
      const visibleUsers = (ctx: AccessContext, viewer: User | undefined): ReadonlyArray<User> =>
        viewer === undefined || hasFullUserAccess(ctx, viewer)
          ? ctx.state.users
          : ctx.state.users.filter((u) => canAccessUser(ctx, viewer, u))

      const list = Effect.fn("Users.list")(function*(
        realm: Realm,
        viewer: User | undefined,
        options: ViewOptions & { readonly userIds?: ReadonlyArray<number> }
      ) {
        const visible = visibleUsers(yield* loadAccess(realm), viewer)
        let selected = visible
        if (options.userIds !== undefined) {
          const byId = new Map(visible.map((u) => [u.id as number, u]))
          const picked: Array<User> = []
          for (const id of options.userIds) {
            const user = byId.get(id)
            if (user === undefined) return yield* new InvalidUserId({ user_id: id })
            picked.push(user)
          }
          selected = picked
        }
        const data = options.includeCustomProfileFields ? yield* profileDataByUser(profileFields, realm.id) : undefined
        return selected.map((u) => toApiUser(realm, viewer, u, options, data?.get(u.id)))
      })

      /** The user `match` names, if `principal` may see them (in `ctx`, the organization's access read). */
      const findVisible = (ctx: AccessContext, principal: Principal, match: (u: User) => boolean) => {
        const user = ctx.state.users.find((u) => match(u) && canAccessUser(ctx, principal.user, u))
        return user === undefined ? Effect.fail(new NoSuchUser()) : Effect.succeed(user)
      }

      const getById = Effect.fn("Users.getById")(function*(principal: Principal, id: number, options: ViewOptions) {
        const user = yield* findVisible(yield* accessOfRequest(loadAccess, principal), principal, (u) => u.id === id)
        const data = options.includeCustomProfileFields && !user.is_bot ? yield* profileDataOf(user) : undefined
        return toApiUser(principal.realm, principal.user, user, options, data)
      })

      const getByEmail = Effect.fn("Users.getByEmail")(function*(principal: Principal, email: string, options: ViewOptions) {
        const user = yield* findVisible(
          yield* accessOfRequest(loadAccess, principal),
          principal,
          (u) => matchesAddress(principal, u, email)
        )
        const data = options.includeCustomProfileFields && !user.is_bot ? yield* profileDataOf(user) : undefined
        return toApiUser(principal.realm, principal.user, user, options, data)
      })

      return Users.of({
        create,
        findById: (id) => users.findById(id),
        findByEmail: (realmId, email) => users.findByDeliveryEmail(realmId, email),
        checkPassword: (user, password) =>
          user === undefined || user.password_hash === null
            ? Effect.as(Effect.flatMap(unusableHash, (hash) => hasher.verify(password, hash)), false)
            : hasher.verify(password, user.password_hash),
        setPassword,
        rotateApiKey,
        deactivate,
        reactivate,
        changeRole,
        setCanChangeUserEmails,
        administer,
        deactivateAs,
        deactivateSelf,
        reactivateAs,
        me: (principal) =>
          Effect.zipWith(
            messageRepo.maxUserMessageId(principal.user.id),
            principal.user.is_bot ? Effect.succeed({}) : profileDataOf(principal.user),
            (max, data) => toOwnUser(principal.realm, principal.user, max, data)
          ),
        list,
        getById,
        getByEmail
      })
    })
  )
}

