/**
 * Errors of push notifications.
 *
 * @since 0.1.0
 */
import * as ZulipError from "./ZulipError.ts"

/**
 * @category push notifications
 * @since 0.1.0
 */
export class PushServiceNotConfigured extends ZulipError.make<PushServiceNotConfigured>()("PushServiceNotConfigured", {
  code: "PUSH_SERVICE_NOT_CONFIGURED",
  message: "Server is not configured to use push notification service."
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const PushErrors = [
  PushServiceNotConfigured
] as const
