/**
 * The Zulip-compatible API under /api/v1.
 *
 * `Api` has every group; `ApiProduction` leaves out the demo-only `dev`
 * group. Both share the same group definitions, so the same handlers serve
 * either. Every endpoint runs inside two API-wide middlewares: `ZulipErrors`
 * (outermost: every failure becomes Zulip's error JSON) and `RequestParams`
 * (merges the query string and the form body); authentication and rate
 * limiting are per group or endpoint.
 *
 * @since 0.1.0
 */
import * as HttpApi from "effect/http-api/HttpApi"
import * as OpenApi from "effect/http-api/OpenApi"
import { RequestParams, ZulipErrors } from "./Middleware.ts"
import { AlertWordsApi } from "./AlertWords.ts"
import { AuthApi, DevApi } from "./Auth.ts"
import { DraftsApi } from "./Drafts.ts"
import { EventSchemas, EventsApi } from "./Events.ts"
import { MessagesApi } from "./Messages.ts"
import { MutingApi } from "./Muting.ts"
import { ProfileFieldsApi } from "./ProfileFields.ts"
import { SavedSnippetsApi } from "./SavedSnippets.ts"
import { ScheduledMessagesApi } from "./ScheduledMessages.ts"
import { ServerApi } from "./Server.ts"
import { SettingsApi } from "./Settings.ts"
import { StreamsApi } from "./Streams.ts"
import { SubscriptionsApi } from "./Subscriptions.ts"
import { UserGroupsApi } from "./UserGroups.ts"
import { UsersApi } from "./Users.ts"
import { UserStatusApi } from "./UserStatus.ts"
import { PresenceApi } from "./Presence.ts"
import { InvitationsApi } from "./Invitations.ts"
import { PushDevicesApi } from "./PushDevices.ts"
import { TypingApi } from "./Typing.ts"
import { documentDownloadPath, FilesApi, TemporaryFilesApi, UploadsApi } from "./Uploads.ts"

const annotations = OpenApi.annotations({
  title: "teamchat: Zulip-compatible REST API",
  description: "Parameters are accepted in the query string on every method and, on POST, PATCH and DELETE, " +
    "in an application/x-www-form-urlencoded or multipart/form-data body (the body wins). " +
    "Values that are not strings are JSON text. Authentication is HTTP Basic `email:api_key`."
})

const common = HttpApi.make("teamchat")
  .add(ServerApi)
  .add(AuthApi)
  .add(UsersApi)
  .add(UserStatusApi)
  .add(PresenceApi)
  .add(StreamsApi)
  .add(EventsApi)
  .add(SubscriptionsApi)
  .add(SettingsApi)
  .add(AlertWordsApi)
  .add(ScheduledMessagesApi)
  .add(UserGroupsApi)
  .add(ProfileFieldsApi)
  .add(MessagesApi)
  .add(MutingApi)
  .add(DraftsApi)
  .add(SavedSnippetsApi)
  .add(InvitationsApi)
  .add(PushDevicesApi)
  .add(TypingApi)
  .add(UploadsApi)

/** Downloads, outside /api/v1 (Zulip's `/user_uploads/...`), with the API's own middleware. */
const files = FilesApi.middleware(RequestParams).middleware(ZulipErrors)

/** Temporary file URLs, outside /api/v1 and without credentials (Zulip's `/user_uploads/temporary/...`). */
const temporaryFiles = TemporaryFilesApi.middleware(RequestParams).middleware(ZulipErrors)

/** The API with the demo-only `dev` group. @category api */
export class Api extends common.add(DevApi)
  .middleware(RequestParams)
  .middleware(ZulipErrors)
  .prefix("/api/v1")
  .add(files)
  .add(temporaryFiles)
  .annotateMerge(annotations)
  .annotate(HttpApi.AdditionalSchemas, EventSchemas)
  .annotate(OpenApi.Transform, documentDownloadPath)
{}

/** The API without the `dev` group. @category api */
export class ApiProduction extends common
  .middleware(RequestParams)
  .middleware(ZulipErrors)
  .prefix("/api/v1")
  .add(files)
  .add(temporaryFiles)
  .annotateMerge(annotations)
  .annotate(HttpApi.AdditionalSchemas, EventSchemas)
  .annotate(OpenApi.Transform, documentDownloadPath)
{}
