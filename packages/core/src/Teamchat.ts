/**
 * The whole domain as one layer: every core service over a persistence
 * layer. Embedders pick the persistence (memory, PGlite, PostgreSQL) and
 * provide it.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import type { MigrationError } from "effect/sql/Migrator"
import type { SqlError } from "effect/sql/SqlError"
import { EventQueues } from "./services/events/EventQueues.ts"
import { Register } from "./services/Register.ts"
import * as Persistence from "./Persistence.ts"
import { AlertWords } from "./services/AlertWords.ts"
import { AuditLog } from "./services/AuditLog.ts"
import { Authentication } from "./services/Authentication.ts"
import { Channels } from "./services/Channels.ts"
import { CustomProfileFields } from "./services/CustomProfileFields.ts"
import { Drafts } from "./services/Drafts.ts"
import { Invitations } from "./services/Invitations.ts"
import { KeyGenerator } from "./services/KeyGenerator.ts"
import { MessageFlags } from "./services/MessageFlags.ts"
import { Messages } from "./services/Messages.ts"
import { Muting } from "./services/Muting.ts"
import { NotificationBot } from "./services/NotificationBot.ts"
import { Organizations } from "./services/Organizations.ts"
import { PasswordHasher } from "./services/PasswordHasher.ts"
import { Presence } from "./services/Presence.ts"
import { SavedSnippets } from "./services/SavedSnippets.ts"
import { PushDevices } from "./services/PushDevices.ts"
import { ScheduledDelivery } from "./services/ScheduledDelivery.ts"
import { ScheduledMessages } from "./services/ScheduledMessages.ts"
import { Subscriptions } from "./services/Subscriptions.ts"
import { Submessages } from "./services/Submessages.ts"
import { Reactions } from "./services/Reactions.ts"
import { MessageDeletion } from "./services/MessageDeletion.ts"
import { Topics } from "./services/Topics.ts"
import { MessageEdits } from "./services/MessageEdits.ts"
import { Typing } from "./services/Typing.ts"
import { Uploads } from "./services/Uploads.ts"
import { Users } from "./services/Users.ts"
import { UserGroups } from "./services/UserGroups.ts"
import { UserSettings } from "./services/UserSettings.ts"
import { UserStatus } from "./services/UserStatus.ts"
import { WelcomeBot } from "./services/WelcomeBot.ts"

/** Every service the core provides. @category models */
export type Services =
  | Organizations
  | Users
  | Channels
  | Authentication
  | Subscriptions
  | UserSettings
  | AlertWords
  | EventQueues
  | Register
  | Messages
  | MessageFlags
  | Muting
  | Reactions
  | MessageDeletion
  | Topics
  | Submessages
  | MessageEdits
  | Typing
  | ScheduledMessages
  | ScheduledDelivery
  | NotificationBot
  | UserGroups
  | UserStatus
  | CustomProfileFields
  | Presence
  | Drafts
  | SavedSnippets
  | WelcomeBot
  | Invitations
  | PushDevices
  | AuditLog
  | Uploads

/**
 * Messages and what sends through it: scheduled messages, their delivery
 * (the worker itself is `ScheduledDelivery.layerWorker`, started by servers)
 * and the Notification and Welcome Bots.
 */
const layerMessaging = Layer.mergeAll(ScheduledDelivery.layer, MessageEdits.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(ScheduledMessages.layer, NotificationBot.layer, WelcomeBot.layer)),
  Layer.provideMerge(Messages.layer)
)

/**
 * The services, requiring persistence, key generation and password hashing.
 *
 * @category layers
 */
export const layerServices = Layer.mergeAll(
  Register.layer,
  Subscriptions.layer,
  AlertWords.layer,
  CustomProfileFields.layer,
  Invitations.layer
).pipe(
  // Register reads scheduled messages and message state.
  Layer.provideMerge(
    Layer.mergeAll(layerMessaging, MessageFlags.layer, MessageDeletion.layer, Muting.layer, Reactions.layer, Topics.layer, Typing.layer, Submessages.layer, UserStatus.layer, Drafts.layer, SavedSnippets.layer, PushDevices.layer, Uploads.layer)
  ),
  Layer.provideMerge(Layer.mergeAll(Authentication.layer, Channels.layer, UserSettings.layer, EventQueues.layer, UserGroups.layer)),
  Layer.provideMerge(Layer.mergeAll(Organizations.layer, Presence.layer)),
  Layer.provideMerge(Users.layer),
  // Every service that changes an organization records it here.
  Layer.provideMerge(AuditLog.layer)
)

/** Production secrets: random keys, full-cost password hashes. @category layers */
export const layerSecrets = Layer.mergeAll(KeyGenerator.layer, PasswordHasher.layer)

/**
 * Production secrets signing with `signingKey` (the key every process of a
 * deployment shares, so one's temporary file URLs work at another).
 *
 * @category layers
 */
export const layerSecretsWith = (options: { readonly signingKey: Uint8Array }) =>
  Layer.mergeAll(KeyGenerator.layerWith(options), PasswordHasher.layer)

/** Deterministic keys and cheap hashes for tests. @category layers */
export const layerSecretsTest = Layer.mergeAll(KeyGenerator.layerTest, PasswordHasher.layerTest)

/** Everything in memory, uploaded files too. @category layers */
export const layerMemory = (
  secrets: Layer.Layer<KeyGenerator | PasswordHasher> = layerSecrets
): Layer.Layer<Services | Persistence.Persistence> =>
  layerServices.pipe(
    Layer.provideMerge(Persistence.layerMemory),
    Layer.provide(Layer.merge(secrets, Persistence.layerFileStorageMemory))
  )

/** Everything on SQL through the given client; migrations run first. @category layers */
export const layerSql = (
  secrets: Layer.Layer<KeyGenerator | PasswordHasher> = layerSecrets
): Layer.Layer<Services | Persistence.Persistence, MigrationError | SqlError, SqlClient.SqlClient> =>
  layerServices.pipe(Layer.provideMerge(Persistence.layerSql), Layer.provide(secrets))
