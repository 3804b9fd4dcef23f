/**
 * The `server` group: GET /server_settings, unauthenticated.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import { RateLimit } from "./Middleware.ts"

/** @category schemas */
export const AuthenticationMethods = Schema.Struct({
  password: Schema.Boolean,
  dev: Schema.Boolean,
  email: Schema.Boolean,
  ldap: Schema.Boolean,
  remoteuser: Schema.Boolean,
  github: Schema.Boolean,
  azuread: Schema.Boolean,
  gitlab: Schema.Boolean,
  apple: Schema.Boolean,
  google: Schema.Boolean,
  saml: Schema.Boolean,
  "openid connect": Schema.Boolean
})

/** @category schemas */
export const ExternalAuthenticationMethod = Schema.Struct({
  name: Schema.String,
  display_name: Schema.String,
  display_icon: Schema.NullOr(Schema.String),
  login_url: Schema.String,
  signup_url: Schema.String
})

/**
 * The response fields; the organization's fields are present when the request
 * addresses an organization (see the realm resolution in Http.ts).
 *
 * @category schemas
 */
export const ServerSettings = {
  authentication_methods: AuthenticationMethods,
  zulip_version: Schema.String,
  zulip_merge_base: Schema.String,
  zulip_feature_level: Schema.Int,
  push_notifications_enabled: Schema.Boolean,
  is_incompatible: Schema.Boolean,
  email_auth_enabled: Schema.optionalKey(Schema.Boolean),
  require_email_format_usernames: Schema.optionalKey(Schema.Boolean),
  realm_url: Schema.optionalKey(Schema.String),
  realm_name: Schema.optionalKey(Schema.String),
  realm_icon: Schema.optionalKey(Schema.String),
  realm_description: Schema.optionalKey(Schema.String),
  realm_web_public_access_enabled: Schema.optionalKey(Schema.Boolean),
  external_authentication_methods: Schema.optionalKey(Schema.Array(ExternalAuthenticationMethod)),
  realm_uri: Schema.optionalKey(Schema.String),
  server_emoji_data_url: Schema.optionalKey(Schema.String)
}

/** @category groups */
export class ServerApi extends HttpApiGroup.make("server")
  .add(
    HttpApiEndpoint.get("settings", "/server_settings", {
      success: Envelope.Success(ServerSettings)
    }).annotate(OpenApi.Summary, "Get server settings")
  )
  .middleware(RateLimit)
{}
