/**
 * In-memory implementations of the persistence ports, over MemoryDatabase.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Channel, Subscription } from "../domain/Channel.ts"
import { channelId, groupId, messageId, realmId, userId } from "../domain/Ids.ts"
import type { GroupId, MessageId, UserId } from "../domain/Ids.ts"
import { FlagBits } from "../domain/Message.ts"
import type { Message, UserMessage } from "../domain/Message.ts"
import type { Realm } from "../domain/Realm.ts"
import type { User } from "../domain/User.ts"
import type { UserGroup } from "../domain/UserGroup.ts"
import { pgLower } from "../narrow/NarrowPredicate.ts"
import { dmKey } from "./internal/MessageTables.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"
import {
  AlertWordRepo,
  ChannelRepo,
  GroupRepo,
  MessageRepo,
  RealmRepo,
  SubscriptionRepo,
  UserRepo,
  UserSettingsRepo
} from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"

const byId = <A extends { readonly id: number }>(rows: Iterable<A>): Array<A> =>
  Array.from(rows).sort((a, b) => a.id - b.id)

/** Like SQL `UPDATE … WHERE id = …`: a row that does not exist is not created. Whether one was updated. */
const replace = <A extends { readonly id: number }>(table: Map<number, A>, row: A): boolean => {
  if (!table.has(row.id)) return false
  table.set(row.id, row)
  return true
}

/** @category layers */
export const realmRepo = Layer.effect(
  RealmRepo,
  MemoryDatabase.useSync((db) =>
    RealmRepo.of({
      insert: (row) =>
        Effect.sync(() => {
          const realm: Realm = { ...row, id: realmId(db.nextId("realms")) }
          db.tables.realms.set(realm.id, realm)
          db.accessChanged(realm.id)
          return realm
        }),
      update: (realm) =>
        Effect.sync(() => {
          if (replace(db.tables.realms, realm)) db.accessChanged(realm.id)
        }),
      findById: (id) => Effect.sync(() => db.tables.realms.get(id)),
      findByStringId: (stringId) =>
        Effect.sync(() => Array.from(db.tables.realms.values()).find((r) => r.string_id === stringId)),
      list: Effect.sync(() => byId(db.tables.realms.values()))
    }))
)

/** @category layers */
export const userRepo = Layer.effect(
  UserRepo,
  MemoryDatabase.useSync((db) => {
    // API key lookups run on every authenticated request. Users found by key
    // are remembered, and a remembered user is used only while it is still
    // the current row of the table, so the index needs no upkeep on insert,
    // update or rollback, and never disagrees with a scan.
    const byApiKey = new Map<string, User>()
    const findByApiKey = (apiKey: string): User | undefined => {
      const users = db.tables.users
      const known = byApiKey.get(apiKey)
      if (known !== undefined && users.get(known.id) === known) return known
      for (const user of users.values()) {
        if (user.api_key === apiKey) {
          byApiKey.set(apiKey, user)
          return user
        }
      }
      if (known !== undefined) byApiKey.delete(apiKey)
      return undefined
    }
    return UserRepo.of({
      insert: (make) =>
        Effect.sync(() => {
          const id = userId(db.nextId("users"))
          const user: User = { ...make(id), id }
          db.tables.users.set(id, user)
          db.accessChanged(user.realm_id)
          return user
        }),
      update: (user) =>
        Effect.sync(() => {
          if (replace(db.tables.users, user)) db.accessChanged(user.realm_id)
        }),
      findById: (id) => Effect.sync(() => db.tables.users.get(id)),
      // One writer at a time: reads in a transaction are current already.
      findByIdForUpdate: (id) => Effect.sync(() => db.tables.users.get(id)),
      lockAddresses: () => Effect.void,
      lockRoles: () => Effect.void,
      findByDeliveryEmail: (realm, email) =>
        Effect.sync(() => {
          const wanted = email.toLowerCase()
          for (const user of db.tables.users.values()) {
            if (user.realm_id === realm && user.delivery_email.toLowerCase() === wanted) return user
          }
          return undefined
        }),
      findByApiKey: (apiKey) => Effect.sync(() => findByApiKey(apiKey)),
      findByApiKeyWithRealm: (apiKey) =>
        Effect.sync(() => {
          const user = findByApiKey(apiKey)
          const realm = user === undefined ? undefined : db.tables.realms.get(user.realm_id)
          return user === undefined || realm === undefined ? undefined : { user, realm }
        }),
      listByRealm: (realm) =>
        Effect.sync(() => byId(Array.from(db.tables.users.values()).filter((u) => u.realm_id === realm)))
    })
  })
)

const edge = (a: number, b: number) => `${a}:${b}`
const splitEdge = (key: string): [number, number] => {
  const [a, b] = key.split(":")
  return [Number(a), Number(b)]
}

/** @category layers */
export const groupRepo = Layer.effect(
  GroupRepo,
  MemoryDatabase.useSync((db) =>
    GroupRepo.of({
      insert: (row, direct) =>
        Effect.sync(() => {
          const group: UserGroup = { ...row, id: groupId(db.nextId("groups")) }
          db.tables.groups.set(group.id, group)
          direct?.members.forEach((u) => db.tables.groupMembers.add(edge(group.id, u)))
          direct?.subgroups.forEach((s) => db.tables.groupSubgroups.add(edge(group.id, s)))
          db.accessChanged(group.realm_id)
          return group
        }),
      update: (group) =>
        Effect.sync(() => {
          if (replace(db.tables.groups, group)) db.accessChanged(group.realm_id)
        }),
      findById: (id) => Effect.sync(() => db.tables.groups.get(id)),
      findByName: (realm, name) =>
        Effect.sync(() =>
          Array.from(db.tables.groups.values()).find((g) => g.realm_id === realm && g.name === name)
        ),
      listByRealm: (realm) =>
        Effect.sync(() => byId(Array.from(db.tables.groups.values()).filter((g) => g.realm_id === realm))),
      addMembers: (group, users) =>
        Effect.sync(() => {
          users.forEach((u) => db.tables.groupMembers.add(edge(group, u)))
          db.accessChanged(db.tables.groups.get(group)?.realm_id)
        }),
      removeMembers: (group, users) =>
        Effect.sync(() => {
          users.forEach((u) => db.tables.groupMembers.delete(edge(group, u)))
          db.accessChanged(db.tables.groups.get(group)?.realm_id)
        }),
      addSubgroups: (group, subgroups) =>
        Effect.sync(() => {
          subgroups.forEach((s) => db.tables.groupSubgroups.add(edge(group, s)))
          db.accessChanged(db.tables.groups.get(group)?.realm_id)
        }),
      removeSubgroups: (group, subgroups) =>
        Effect.sync(() => {
          subgroups.forEach((s) => db.tables.groupSubgroups.delete(edge(group, s)))
          db.accessChanged(db.tables.groups.get(group)?.realm_id)
        }),
      membership: (realm) =>
        Effect.sync(() => {
          const inRealm = (id: number) => db.tables.groups.get(id)?.realm_id === realm
          const members = new Map<GroupId, Set<UserId>>()
          const subgroups = new Map<GroupId, Set<GroupId>>()
          for (const key of db.tables.groupMembers) {
            const [g, u] = splitEdge(key)
            if (!inRealm(g)) continue
            const set = members.get(groupId(g)) ?? new Set()
            set.add(userId(u))
            members.set(groupId(g), set)
          }
          for (const key of db.tables.groupSubgroups) {
            const [g, s] = splitEdge(key)
            if (!inRealm(g)) continue
            const set = subgroups.get(groupId(g)) ?? new Set()
            set.add(groupId(s))
            subgroups.set(groupId(g), set)
          }
          return { members, subgroups }
        }),
      // Memory transactions already run one at a time.
      lockGroups: () => Effect.void
    }))
)

const insertChannel = (db: MemoryDatabase["Service"], row: Insert<Channel>): Channel => {
  const channel: Channel = { ...row, id: channelId(db.nextId("channels")) }
  db.tables.channels.set(channel.id, channel)
  db.accessChanged(channel.realm_id)
  return channel
}

/** @category layers */
export const channelRepo = Layer.effect(
  ChannelRepo,
  MemoryDatabase.useSync((db) =>
    ChannelRepo.of({
      insert: (row) => Effect.sync(() => insertChannel(db, row)),
      insertMany: (rows) => Effect.sync(() => rows.map((row) => insertChannel(db, row))),
      update: (channel) =>
        Effect.sync(() => {
          if (replace(db.tables.channels, channel)) db.accessChanged(channel.realm_id)
        }),
      findById: (id) => Effect.sync(() => db.tables.channels.get(id)),
      findByName: (realm, name) =>
        Effect.sync(() => {
          const wanted = name.toLowerCase()
          return Array.from(db.tables.channels.values()).find((c) =>
            c.realm_id === realm && c.name.toLowerCase() === wanted
          )
        }),
      listByRealm: (realm) =>
        Effect.sync(() => byId(Array.from(db.tables.channels.values()).filter((c) => c.realm_id === realm))),
      // Memory transactions run one at a time.
      lockNames: () => Effect.void
    }))
)

const subscriptionOrder = (a: Subscription, b: Subscription) => a.channel_id - b.channel_id || a.user_id - b.user_id

const upsertSubscription = (db: MemoryDatabase["Service"], sub: Subscription): void => {
  db.tables.subscriptions.set(edge(sub.user_id, sub.channel_id), sub)
  db.accessChanged(db.tables.channels.get(sub.channel_id)?.realm_id)
}

/** @category layers */
export const subscriptionRepo = Layer.effect(
  SubscriptionRepo,
  MemoryDatabase.useSync((db) =>
    SubscriptionRepo.of({
      upsert: (sub) => Effect.sync(() => upsertSubscription(db, sub)),
      upsertMany: (subs) => Effect.sync(() => subs.forEach((sub) => upsertSubscription(db, sub))),
      find: (user, channel) => Effect.sync(() => db.tables.subscriptions.get(edge(user, channel))),
      listByUser: (user) =>
        Effect.sync(() =>
          Array.from(db.tables.subscriptions.values()).filter((s) => s.user_id === user).sort(subscriptionOrder)
        ),
      listByUsers: (users) =>
        Effect.sync(() => {
          const wanted = new Set(users)
          return Array.from(db.tables.subscriptions.values()).filter((s) => wanted.has(s.user_id)).sort(subscriptionOrder)
        }),
      listByChannel: (channel) =>
        Effect.sync(() =>
          Array.from(db.tables.subscriptions.values()).filter((s) => s.channel_id === channel).sort(subscriptionOrder)
        ),
      listByRealm: (realm) =>
        Effect.sync(() =>
          Array.from(db.tables.subscriptions.values())
            .filter((s) => db.tables.channels.get(s.channel_id)?.realm_id === realm)
            .sort(subscriptionOrder)
        )
    }))
)

/** @category layers */
export const userSettingsRepo = Layer.effect(
  UserSettingsRepo,
  MemoryDatabase.useSync((db) =>
    UserSettingsRepo.of({
      get: (user) => Effect.sync(() => db.tables.userSettings.get(user) ?? {}),
      getMany: (users) =>
        Effect.sync(() => {
          const out = new Map<UserId, Readonly<Record<string, unknown>>>()
          for (const user of users) {
            const overrides = db.tables.userSettings.get(user)
            if (overrides !== undefined) out.set(user, overrides)
          }
          return out
        }),
      set: (user, overrides) => Effect.sync(() => void db.tables.userSettings.set(user, { ...overrides }))
    }))
)

/** @category layers */
export const alertWordRepo = Layer.effect(
  AlertWordRepo,
  MemoryDatabase.useSync((db) =>
    AlertWordRepo.of({
      list: (user) => Effect.sync(() => db.tables.alertWords.get(user) ?? []),
      listByUsers: (users) =>
        Effect.sync(() => {
          const out = new Map<UserId, ReadonlyArray<string>>()
          for (const user of users) {
            const words = db.tables.alertWords.get(user)
            if (words !== undefined && words.length > 0) out.set(user, words)
          }
          return out
        }),
      add: (user, words) =>
        Effect.sync(() => {
          const current = [...(db.tables.alertWords.get(user) ?? [])]
          const seen = new Set(current.map((w) => w.toLowerCase()))
          for (const word of words) {
            if (seen.has(word.toLowerCase())) continue
            seen.add(word.toLowerCase())
            current.push(word)
          }
          db.tables.alertWords.set(user, current)
          db.accessChanged(db.tables.users.get(user)?.realm_id)
        }),
      remove: (user, words) =>
        Effect.sync(() => {
          const drop = new Set(words.map((w) => w.toLowerCase()))
          db.tables.alertWords.set(user, (db.tables.alertWords.get(user) ?? []).filter((w) => !drop.has(w.toLowerCase())))
          db.accessChanged(db.tables.users.get(user)?.realm_id)
        })
    }))
)

/** Unique ids, ascending: the order SQL `ORDER BY id` gives for an `IN` list. */
const ascendingIds = (ids: Iterable<number>): Array<number> => Array.from(new Set(ids)).sort((a, b) => a - b)

/** @category layers */
export const messageRepo = Layer.effect(
  MessageRepo,
  MemoryDatabase.useSync((db) => {
    const store = db.tables.messages
    /** The user's rows whose flags match, ascending, with their messages. */
    const rowsWithFlags = (user: UserId, ids: Iterable<number>, mask: number, value: number) => {
      const rows = store.rowsOf(user)
      const out: Array<{ readonly message: Message; readonly flags: number }> = []
      if (rows === undefined) return out
      for (const id of ids) {
        const flags = rows.get(id)!
        const message = store.examine(id)
        if (message !== undefined && (flags & mask) === (value & mask)) out.push({ message, flags })
      }
      return out
    }
    const findByIds = (ids: ReadonlyArray<MessageId>) =>
      Effect.sync(() =>
        ascendingIds(ids).flatMap((id) => {
          const message = store.get(id)
          return message === undefined ? [] : [message]
        })
      )
    return MessageRepo.of({
      findById: (id) => Effect.sync(() => store.get(id)),
      // One writer at a time (memory transactions run one after another): nothing to lock.
      findByIdForUpdate: (id) => Effect.sync(() => store.get(id)),
      reactions: (ids) => Effect.sync(() => ascendingIds(ids).flatMap((id) => db.tables.reactions.get(id) ?? [])),
      findByIds,
      // Memory transactions run one at a time: nothing to lock.
      findByIdsLocked: (ids) => findByIds(ids),
      userMessages: (user, ids) =>
        Effect.sync(() => {
          const rows = store.rowsOf(user)
          if (rows === undefined) return []
          return ascendingIds(ids).flatMap((id): Array<UserMessage> => {
            const flags = rows.get(id)
            return flags === undefined ? [] : [{ user_id: user, message_id: messageId(id), flags }]
          })
        }),
      recipients: (message) =>
        Effect.sync(() =>
          store.recipients(message)
            .map((user): UserMessage => ({ user_id: userId(user), message_id: message, flags: store.rowsOf(user)!.get(message)! }))
            .sort((a, b) => a.user_id - b.user_id)
        ),
      usersWithRows: (ids) =>
        Effect.sync(() => {
          const users = new Set<number>()
          for (const id of ids) for (const user of store.recipients(id)) users.add(user)
          return Array.from(users).sort((a, b) => a - b).map((user) => userId(user))
        }),
      // SQL's partial indexes serve unread and starred rows; any other flags read all the user's rows.
      listByFlags: (user, mask, value) =>
        Effect.sync(() => {
          const indexes = store.userRows(user)
          const ids = mask === FlagBits.read && (value & mask) === 0
            ? indexes.unread
            : mask === FlagBits.starred && (value & mask) !== 0
            ? indexes.starred
            : indexes.all
          return rowsWithFlags(user, ids.ascending(), mask, value)
        }),
      userHasTopic: (user, channel, topic) =>
        Effect.sync(() => {
          const rows = store.rowsOf(user)
          if (rows === undefined) return false
          for (const id of store.inTopic(channel, pgLower(topic)).ascending()) {
            store.examined++
            if (rows.has(id)) return true
          }
          return false
        }),
      topicMessageIds: (channel, topic, limit) =>
        Effect.sync(() => {
          const out: Array<MessageId> = []
          if (limit <= 0) return out
          for (const id of store.inTopic(channel, pgLower(topic)).descending()) {
            store.examined++
            out.push(messageId(id))
            if (out.length >= limit) break
          }
          return out
        }),
      channelTopics: (channel, receivedBy) =>
        Effect.sync(() => {
          const rows = receivedBy === null ? undefined : store.rowsOf(receivedBy)
          const newest = new Map<string, MessageId>()
          // Newest first: a topic's first message met is its newest.
          for (const id of store.inChannel(channel).descending()) {
            if (rows !== undefined ? !rows.has(id) : receivedBy !== null) continue
            const message = store.examine(id)
            if (message !== undefined && !newest.has(message.topic)) newest.set(message.topic, messageId(id))
          }
          return Array.from(newest, ([topic, max_id]) => ({ topic, max_id }))
        }),
      oldestInChannel: (channel) =>
        Effect.sync(() => {
          const oldest = store.inChannel(channel).first()
          return oldest === undefined ? null : messageId(oldest)
        }),
      // Rows go with their message, so the user's highest row is the answer (the check is for rows written without one).
      maxUserMessageId: (user) =>
        Effect.sync(() => {
          for (const id of store.userRows(user).all.descending()) {
            if (store.examine(id) !== undefined) return id
          }
          return -1
        }),
      // Newest first: each conversation is met first at its newest message, so the walk stops at `limit` of them.
      recentDmConversations: (user, limit) =>
        Effect.sync(() => {
          const newest = new Map<string, { dm_user_ids: ReadonlyArray<UserId>; max_message_id: MessageId }>()
          if (limit <= 0) return []
          for (const id of store.userRows(user).direct.descending()) {
            const m = store.examine(id)
            if (m === undefined) continue
            const key = dmKey(m.dm_user_ids)
            if (!newest.has(key)) newest.set(key, { dm_user_ids: m.dm_user_ids, max_message_id: m.id })
            if (newest.size >= limit) break
          }
          return Array.from(newest.values())
        })
    })
  })
)

/** Every memory repository and the memory Transactor, over one fresh database. @category layers */
export const layer = Layer.mergeAll(
  realmRepo,
  userRepo,
  groupRepo,
  channelRepo,
  subscriptionRepo,
  userSettingsRepo,
  alertWordRepo,
  messageRepo
)
