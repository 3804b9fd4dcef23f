/**
 * GET /server_settings: what a client needs before logging in. The
 * organization's fields appear when the request addresses an organization
 * (its host, or the only organization); otherwise they are left out, as
 * Zulip does on a root domain.
 *
 * @since 0.1.0
 */
import { Channels, Description, Emoji, LruMap } from "@teamchat/core"
import type { Realm } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { createHash } from "node:crypto"
import { Api } from "../api/Api.ts"
import { HttpConfig } from "../internal/Config.ts"
import * as Envelope from "../internal/Envelope.ts"
import * as RealmResolution from "../internal/Realm.ts"

/** Organization icon addresses kept (docs/memory.md). */
const icons = LruMap.make<string, string>(1024)

/** Zulip's default organization icon: the gravatar identicon of its string id. */
export const realmIcon = (realm: Realm.Realm): string => {
  let icon = icons.get(realm.string_id)
  if (icon === undefined) {
    icon = `https://secure.gravatar.com/avatar/${
      createHash("md5").update(realm.string_id.toLowerCase()).digest("hex")
    }?d=identicon`
    icons.set(realm.string_id, icon)
  }
  return icon
}

const authenticationMethods = (passwordEnabled: boolean, demo: boolean) => ({
  password: passwordEnabled,
  dev: demo,
  email: passwordEnabled,
  ldap: false,
  remoteuser: false,
  github: false,
  azuread: false,
  gitlab: false,
  apple: false,
  google: false,
  saml: false,
  "openid connect": false
})

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "server",
  Effect.fn(function*(handlers) {
    const config = yield* HttpConfig
    const channels = yield* Channels.Channels
    const resolveRealm = yield* RealmResolution.make
    const respond = Envelope.respond(Api.groups.server.endpoints.settings)
    const server = (realm: Realm.Realm | undefined) => ({
      authentication_methods: authenticationMethods(realm?.settings.email_auth_enabled ?? true, config.demo),
      zulip_version: config.version.zulip_version,
      zulip_merge_base: config.version.zulip_merge_base,
      zulip_feature_level: config.version.zulip_feature_level,
      push_notifications_enabled: false,
      is_incompatible: false
    })
    const withRealm = (realm: Realm.Realm, webPublic: boolean) =>
      respond({
        ...server(realm),
        email_auth_enabled: realm.settings.email_auth_enabled,
        require_email_format_usernames: true,
        realm_url: realm.url,
        realm_name: realm.name,
        realm_icon: realmIcon(realm),
        realm_description: Description.renderDescription(realm.description),
        realm_web_public_access_enabled: webPublic,
        external_authentication_methods: [],
        realm_uri: realm.url,
        server_emoji_data_url: Emoji.apiUrl(realm.url)
      })
    return handlers.handle("settings", ({ request }) =>
      Effect.matchEffect(resolveRealm(request), {
        onFailure: (error) =>
          error._tag === "NonexistentSubdomain" ? respond(server(undefined)) : Effect.fail(error),
        onSuccess: (realm) =>
          realm.settings.enable_spectator_access
            ? Effect.flatMap(channels.hasWebPublicChannels(realm.id), (webPublic) => withRealm(realm, webPublic))
            : withRealm(realm, false)
      }))
  })
)
