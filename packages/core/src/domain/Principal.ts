/**
 * Principal: the authenticated caller of a request, as every service and the
 * event queues see it.
 *
 * @since 0.1.0
 */
import type { Realm } from "./Realm.ts"
import type { User } from "./User.ts"

/** The authenticated caller of an API request. @category models */
export interface Principal {
  readonly user: User
  readonly realm: Realm
  /**
   * The organization's access state as authentication found it current for
   * this request (the SQL cache's read and its version), so the request's
   * send reads it once. Opaque here; `services/internal/access.ts` reads it.
   * Absent for principals not made by authentication.
   */
  readonly access?: {
    readonly version: number
    readonly value: unknown
    /**
     * The version was not read for this request (`AccessCache.deferrable`):
     * the request must check it before answering, and authenticate again
     * when it moved. Only GET and POST /messages ask for such a principal.
     */
    readonly unverified?: true
  } | undefined
}
