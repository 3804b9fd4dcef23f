/**
 * Errors of any area: a one-off 400 message, a 404 with its own message, and denied access.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * Any one-off 400 message (Zulip's plain `JsonableError(msg)`).
 *
 * @category generic
 * @since 0.1.0
 */
export class BadRequest extends ZulipError.make<BadRequest>()("BadRequest", {
  code: "BAD_REQUEST",
  params: { msg: Schema.String }
}) {}

/**
 * A 404 with a custom message (Zulip's `ResourceNotFoundError`); the code
 * stays `BAD_REQUEST`.
 *
 * @category generic
 * @since 0.1.0
 */
export class ResourceNotFound extends ZulipError.make<ResourceNotFound>()("ResourceNotFound", {
  code: "BAD_REQUEST",
  params: { msg: Schema.String }
}) {}

/**
 * @category generic
 * @since 0.1.0
 */
export class AccessDenied extends ZulipError.make<AccessDenied>()("AccessDenied", {
  code: "BAD_REQUEST",
  message: "Access denied"
}) {}

/**
 * @category generic
 * @since 0.1.0
 */
export class InsufficientPermission extends ZulipError.make<InsufficientPermission>()("InsufficientPermission", {
  code: "BAD_REQUEST",
  message: "Insufficient permission"
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const GenericErrors = [
  BadRequest,
  ResourceNotFound,
  AccessDenied,
  InsufficientPermission
] as const
