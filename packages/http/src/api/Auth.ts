/**
 * Getting an API key without one: the `auth` group (POST /fetch_api_key,
 * email and password) and the `dev` group (POST /dev_fetch_api_key and
 * GET /dev_list_users), which is mounted only when `HttpOptions.demo` is on;
 * otherwise its routes do not exist and answer the 404 of any unknown route.
 * Even when mounted they serve the demo organization alone: any other
 * organization gets that same 404 (see handlers/Auth.ts).
 *
 * Parameters arrive in the form body or the query string (see
 * RequestParams); they are declared under `query`.
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
export const ApiKeyGrant = {
  api_key: Schema.String,
  email: Schema.String,
  user_id: Schema.Int
}

/** @category schemas */
export const DevListedUser = Schema.Struct({
  email: Schema.String,
  realm_url: Schema.String
})

/** @category groups */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("fetchApiKey", "/fetch_api_key", {
      query: {
        username: Schema.String.annotate({ description: "The email address of the account." }),
        password: Schema.String
      },
      success: Envelope.Success(ApiKeyGrant)
    }).annotate(OpenApi.Summary, "Fetch an API key (production)")
  )
  .middleware(RateLimit)
{}

/** @category groups */
export class DevApi extends HttpApiGroup.make("dev")
  .add(
    HttpApiEndpoint.post("fetchApiKey", "/dev_fetch_api_key", {
      query: {
        username: Schema.String.annotate({ description: "The email address of the account." })
      },
      success: Envelope.Success(ApiKeyGrant)
    }).annotate(OpenApi.Summary, "Fetch an API key (demo servers only)"),
    HttpApiEndpoint.get("listUsers", "/dev_list_users", {
      success: Envelope.Success({
        direct_admins: Schema.Array(DevListedUser),
        direct_users: Schema.Array(DevListedUser)
      })
    }).annotate(OpenApi.Summary, "List the accounts of the demo login (demo servers only)")
  )
  .middleware(RateLimit)
{}
