/**
 * An organization's access state: one consistent read of its users and
 * groups, channels and subscriptions, which audience and visibility
 * decisions are made from, and the access version it was read at.
 *
 * The reads are made and interpreted by `services/internal/access.ts`;
 * `AccessCache` keeps them between requests and a `Principal` carries the
 * one authentication found current for its request.
 *
 * @since 0.1.0
 */
import type { Channel } from "./Channel.ts"
import type { ChannelId, UserId } from "./Ids.ts"
import type { Realm } from "./Realm.ts"
import type { User } from "./User.ts"
import type { GroupIndex, UserGroup } from "./UserGroup.ts"

/** A consistent read of one organization's users and groups, with their group index. @category models */
export interface OrganizationState {
  readonly realm: Realm
  readonly users: ReadonlyArray<User>
  readonly usersById: ReadonlyMap<UserId, User>
  readonly groups: ReadonlyArray<UserGroup>
  readonly index: GroupIndex
}

/** `OrganizationState` with the channels and subscriptions the access rules need. @category models */
export interface AccessContext {
  readonly state: OrganizationState
  readonly channels: ReadonlyArray<Channel>
  readonly channelsById: ReadonlyMap<ChannelId, Channel>
  /** Active subscribers per channel. */
  readonly subscribers: ReadonlyMap<ChannelId, ReadonlySet<UserId>>
  /** Active subscriptions per user. */
  readonly subscriptions: ReadonlyMap<UserId, ReadonlySet<ChannelId>>
  /** Every user's alert words (users without any are absent); sends flag `has_alert_word` from them. */
  readonly alertWords: ReadonlyMap<UserId, ReadonlyArray<string>>
  /**
   * The users each user muted (users who muted nobody are absent): a send
   * marks a muted sender's message read for the muter, read receipts leave
   * mutes out.
   */
  readonly mutes: ReadonlyMap<UserId, ReadonlySet<UserId>>
}

/** A read with the organization's access version it was made at (`AccessCache`'s entries). @category models */
export interface AccessRead {
  readonly version: number
  readonly value: AccessContext
}

/**
 * The read authentication found current for a request (`Principal.access`),
 * so the request's first access decision reads nothing again.
 *
 * @category models
 */
export interface RequestAccess extends AccessRead {
  /**
   * The version was not read for this request (`AccessCache.deferrable`):
   * the request must check it before answering, and authenticate again
   * when it moved. Only GET and POST /messages ask for such a principal.
   */
  readonly unverified?: true
}
