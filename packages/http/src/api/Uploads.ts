/**
 * Uploaded files.
 *
 * The `uploads` group (under /api/v1):
 * - POST /user_uploads: one file part of a `multipart/form-data` body
 *   (any field name), streamed to the file store; answers `url`, its
 *   deprecated twin `uri` and `filename`;
 * - GET /attachments: the caller's uploads, with the messages linking each,
 *   and the organization's `upload_space_used`;
 * - DELETE /attachments/{attachment_id}: deletes one of the caller's;
 * - GET /user_uploads/{realm_id}/{path}: a temporary URL of a file the
 *   caller may download, working without credentials for 60 seconds.
 *
 * The `files` group (not under /api/v1, as Zulip serves it):
 * - GET /user_uploads/{realm_id}/{path}: the file, to its uploader and to
 *   whoever may read a message linking it, with HTTP Basic credentials as
 *   the API takes them.
 *
 * The `temporaryFiles` group (not under /api/v1 either, without
 * credentials):
 * - GET /user_uploads/temporary/{token}/{filename}: the file a temporary
 *   URL names, while its token is valid.
 *
 * @since 0.1.0
 */
import { Errors, EventPayload } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication, ReadsBodyItself } from "./Middleware.ts"

/** An attachment as GET /attachments lists it: the `attachment` events' own schema. @category schemas */
export const ApiAttachment = EventPayload.EventAttachment

/** The body of POST /user_uploads: one file part, streamed. @category schemas */
export const UploadBody = Schema.Struct({
  filename: Schema.optionalKey(Schema.String.annotate({ description: "The file (any field name).", format: "binary" }))
}).pipe(HttpApiSchema.asMultipartStream())

/** @category groups */
export class UploadsApi extends HttpApiGroup.make("uploads")
  .add(
    HttpApiEndpoint.post("upload", "/user_uploads", {
      payload: UploadBody,
      success: Envelope.Success({
        uri: Schema.String.annotate({ description: "Deprecated: the same as `url`." }),
        url: Schema.String,
        filename: Schema.String
      })
    }).annotate(OpenApi.Summary, "Upload a file").annotate(ReadsBodyItself, true),
    HttpApiEndpoint.get("attachments", "/attachments", {
      success: Envelope.Success({ attachments: Schema.Array(ApiAttachment), upload_space_used: Schema.Int })
    }).annotate(OpenApi.Summary, "Get attachments"),
    HttpApiEndpoint.delete("removeAttachment", "/attachments/:attachment_id", {
      params: {
        attachment_id: Params.PathId(() => new Errors.BadRequest({ msg: "Invalid attachment" }), "The attachment's id.")
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete an attachment"),
    HttpApiEndpoint.get("temporaryUrl", "/user_uploads/:realm_id/*", {
      params: {
        realm_id: Schema.String.annotate({ description: "The organization's id." }),
        "*": Schema.String.annotate({ description: "The rest of the upload's path id." })
      },
      success: Envelope.Success({
        url: Schema.String.annotate({
          description: "`/user_uploads/temporary/{token}/{filename}`: the file, without credentials, for 60 seconds."
        })
      })
    }).annotate(OpenApi.Summary, "Get a temporary URL for an uploaded file").annotate(
      OpenApi.Description,
      "Under the download's rule. Not JSON when refused: a missing file is an HTML 404, a file the caller may " +
        "not read an HTML 403."
    )
  )
  .middleware(Authentication)
{}

/** The wildcard paths and Zulip's names for them (its OpenAPI's). */
const wildcardPaths: Record<string, {
  readonly path: string
  readonly names: Record<string, string>
  /** The parameters the wildcard stands for, when it stands for more than one. */
  readonly split?: ReadonlyArray<readonly [string, string]>
}> = {
  "/user_uploads/temporary/*": {
    path: "/user_uploads/temporary/{token}/{filename}",
    names: {},
    split: [
      ["token", "The token GET /api/v1/user_uploads/{realm_id}/{path} gave."],
      ["filename", "The file's name, the last segment of its path id."]
    ]
  },
  "/user_uploads/{realm_id}/*": { path: "/user_uploads/{realm_id}/{filename}", names: { "*": "filename" } },
  "/api/v1/user_uploads/{realm_id}/*": {
    path: "/api/v1/user_uploads/{realm_id_str}/{filename}",
    names: { "*": "filename", realm_id: "realm_id_str" }
  }
}

/**
 * The OpenAPI document's names for the file paths: Zulip's
 * `/user_uploads/{realm_id}/{filename}` for the download and
 * `/api/v1/user_uploads/{realm_id_str}/{filename}` for the temporary URL
 * (the router's wildcard `*` is the rest of the path id, slashes
 * included). For the API's `OpenApi.Transform`.
 */
export const documentDownloadPath = (spec: Record<string, any>): Record<string, any> => {
  const paths = spec.paths as Record<string, any> | undefined
  if (paths === undefined) return spec
  const renamed: Record<string, any> = {}
  for (const [path, item] of Object.entries(paths)) {
    const wildcard = wildcardPaths[path]
    if (wildcard === undefined) {
      renamed[path] = item
      continue
    }
    for (const operation of Object.values<any>(item)) {
      const split = wildcard.split
      operation.parameters = (operation.parameters ?? []).flatMap((parameter: any) =>
        parameter.name !== "*" || split === undefined
          ? [{ ...parameter, name: wildcard.names[parameter.name] ?? parameter.name }]
          : split.map(([name, description]) => ({ ...parameter, name, description }))
      )
    }
    renamed[wildcard.path] = item
  }
  return { ...spec, paths: renamed }
}

/** @category groups */
export class FilesApi extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.get("download", "/user_uploads/:realm_id/*", {
      params: {
        realm_id: Schema.String.annotate({ description: "The organization's id." }),
        "*": Schema.String.annotate({ description: "The rest of the upload's path id." })
      },
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array())
    }).annotate(OpenApi.Summary, "Download a file").annotate(
      OpenApi.Description,
      "The file's bytes, with its stored type; images, audio, video, PDF and plain text inline, any other type " +
        "as an attachment. Range requests are answered with 206. Not JSON: a missing file is an HTML 404, " +
        "a file the caller may not read an HTML 403."
    )
  )
  .middleware(Authentication)
{}

/** @category groups */
export class TemporaryFilesApi extends HttpApiGroup.make("temporaryFiles")
  .add(
    // A wildcard, not `:token/:filename`: the router refuses parameters over 100 characters, and tokens are longer.
    HttpApiEndpoint.get("temporaryDownload", "/user_uploads/temporary/*", {
      params: {
        "*": Schema.String.annotate({ description: "`{token}/{filename}`." })
      },
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array())
    }).annotate(OpenApi.Summary, "Download a file by a temporary URL").annotate(
      OpenApi.Description,
      "No credentials: the token is them. The file as the download serves it. A malformed, forged or expired " +
        "token, or one whose file is gone, is 400 \"Invalid token\"; another file's name 400 \"Invalid filename\"."
    )
  )
{}
