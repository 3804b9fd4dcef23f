/**
 * The public surface of `@teamchat/core`: every module an embedder or the
 * HTTP package uses, as a namespace (`Users.Users`, `Teamchat.layerMemory`).
 * The package's exports map lists exactly these modules (each also importable
 * by its own path, as `@teamchat/core/services/Users`), plus the test helpers
 * under `testing/`; modules under `internal/` folders and the adapters are not
 * part of it (the SQL and memory adapters are reached through `Persistence`).
 *
 * @since 0.1.0
 */

// domain: records, ids, the caller, pure rules
/** The audit log's rows and event types (the service is `AuditLog`). */
/** Uploaded files: the record, its API view, Zulip's name and link rules (the service is `Uploads`). */
export * as Attachment from "./domain/Attachment.ts"
export * as AuditLogRecord from "./domain/AuditLog.ts"
export * as Channel from "./domain/Channel.ts"
export * as EmailAddress from "./domain/EmailAddress.ts"
/** Zulip's emoji names (the generated table) and the `emoji_api.json` document. */
export * as Emoji from "./domain/Emoji.ts"
export * as CustomProfileField from "./domain/CustomProfileField.ts"
/** The draft record and its API view (the service is `Drafts`). */
export * as Draft from "./domain/Draft.ts"
export * as Event from "./domain/Event.ts"
/** Every event's schema, one tagged union (`ClientEvent` is what GET /events answers). */
export * as EventPayload from "./domain/events/EventPayload.ts"
export * as GroupSetting from "./domain/GroupSetting.ts"
export * as Ids from "./domain/Ids.ts"
/** Reusable invitation links: the record, keys and the GET /invites view (the service is `Invitations`). */
export * as Invitation from "./domain/Invitation.ts"
/** The bounded map (least recently used out) every in-process cache is kept in; the bounds: docs/memory.md. */
export * as LruMap from "./domain/LruMap.ts"
export * as Message from "./domain/Message.ts"
/** Topic policies and muted users as stored, and the unread rule (the service is `Muting`). */
export * as MutingRecord from "./domain/Muting.ts"
/** The one password rule (Zulip's minimum length), for every place a password is set. */
export * as Password from "./domain/Password.ts"
/** Presence times, the ping rules and the wire forms (the service is `Presence`). */
export * as PresenceRecord from "./domain/Presence.ts"
export * as Principal from "./domain/Principal.ts"
/** Push device rows, their status and the base64 rule (the service is `PushDevices`). */
export * as PushDevice from "./domain/PushDevice.ts"
export * as Realm from "./domain/Realm.ts"
export * as Role from "./domain/Role.ts"
/** The saved-snippet record and its API view (the service is `SavedSnippets`). */
export * as SavedSnippet from "./domain/SavedSnippet.ts"
export * as ScheduledMessage from "./domain/ScheduledMessage.ts"
export * as User from "./domain/User.ts"
export * as UserGroup from "./domain/UserGroup.ts"
/** Widget messages (polls, to-do lists) and their submessages. */
export * as Widget from "./domain/Widget.ts"
/** The status record and its API view (the service is `UserStatus`). */
export * as Status from "./domain/UserStatus.ts"
/** Settings' names, types and defaults (the service is `UserSettings`). */
export * as Settings from "./domain/UserSettings.ts"

// rendering
export * as Description from "./markdown/Description.ts"
export * as Markdown from "./markdown/Markdown.ts"

// errors
export * as Errors from "./errors/Errors.ts"
export * as ZulipError from "./errors/ZulipError.ts"

// the narrow language
export * as Narrow from "./narrow/Narrow.ts"

// services
export * as AlertWords from "./services/AlertWords.ts"
export * as AuditLog from "./services/AuditLog.ts"
export * as Authentication from "./services/Authentication.ts"
export * as Channels from "./services/Channels.ts"
export * as CustomProfileFields from "./services/CustomProfileFields.ts"
export * as Drafts from "./services/Drafts.ts"
export * as EventQueues from "./services/events/EventQueues.ts"
export * as Events from "./services/events/Events.ts"
export * as Invitations from "./services/Invitations.ts"
export * as KeyGenerator from "./services/KeyGenerator.ts"
export * as MessageDeletion from "./services/MessageDeletion.ts"
export * as MessageFlags from "./services/MessageFlags.ts"
/** Sending and reading messages; also `Anchor` (where a read starts) and `ApiMessage` (a message as a reader sees it). */
export * as Messages from "./services/Messages.ts"
/** Topic policies (POST /user_topics) and muted users. */
export * as Muting from "./services/Muting.ts"
export * as NotificationBot from "./services/NotificationBot.ts"
export * as Organizations from "./services/Organizations.ts"
export * as PasswordHasher from "./services/PasswordHasher.ts"
export * as Presence from "./services/Presence.ts"
/** Also the `PushBouncer` port, which the HTTP package implements. */
export * as PushDevices from "./services/PushDevices.ts"
export * as Reactions from "./services/Reactions.ts"
export * as Register from "./services/Register.ts"
export * as SavedSnippets from "./services/SavedSnippets.ts"
export * as ScheduledDelivery from "./services/ScheduledDelivery.ts"
export * as ScheduledMessages from "./services/ScheduledMessages.ts"
export * as Submessages from "./services/Submessages.ts"
export * as Subscriptions from "./services/Subscriptions.ts"
export * as Topics from "./services/Topics.ts"
export * as MessageEdits from "./services/MessageEdits.ts"
export * as Typing from "./services/Typing.ts"
export * as UserGroups from "./services/UserGroups.ts"
export * as UserSettings from "./services/UserSettings.ts"
export * as Users from "./services/Users.ts"
export * as UserStatus from "./services/UserStatus.ts"
/** POST /user_uploads, downloads, GET and DELETE /attachments. */
export * as Uploads from "./services/Uploads.ts"
export * as WelcomeBot from "./services/WelcomeBot.ts"

// permission rules (pure functions)
/** Recursive group membership and group-setting checks. */
export * as GroupMembership from "./permissions/GroupMembership.ts"

// ports: what persistence provides (adapters are chosen in `Persistence`); an
// embedder reads or seeds rows through them, or brings adapters of its own
export * as AccessCache from "./ports/AccessCache.ts"
export * as AttachmentRepo from "./ports/AttachmentRepo.ts"
export * as AuditLogRepo from "./ports/AuditLogRepo.ts"
export * as EventStore from "./ports/EventStore.ts"
/** Where uploaded files' bytes live; the backends are `Persistence.layerFileStorage*`. */
export * as FileStorage from "./ports/FileStorage.ts"
export * as MessageStore from "./ports/MessageStore.ts"
export * as MutingRepo from "./ports/MutingRepo.ts"
export * as RateLimitStore from "./ports/RateLimitStore.ts"
export * as Repositories from "./ports/Repositories.ts"
export * as ScheduledMessageRepo from "./ports/ScheduledMessageRepo.ts"
export * as Transactor from "./ports/Transactor.ts"

// SQL clients, for `Teamchat.layerSql`
/** Embedded PostgreSQL (PGlite) as an effect `SqlClient`. */
export * as PgliteClient from "./sql/PgliteClient.ts"
/** A PostgreSQL server as an effect `SqlClient`. */
export * as PgClientLayer from "./sql/PgClientLayer.ts"

// composition
export * as Persistence from "./Persistence.ts"
export * as Teamchat from "./Teamchat.ts"

// the development organization
export * as DemoData from "./demo/DemoData.ts"
export * as DemoOrganization from "./demo/DemoOrganization.ts"
