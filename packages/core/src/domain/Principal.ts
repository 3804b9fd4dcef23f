/**
 * Principal: the authenticated caller of a request, as every service and the
 * event queues see it.
 *
 * @since 0.1.0
 */
import type { RequestAccess } from "./AccessState.ts"
import type { Realm } from "./Realm.ts"
import type { User } from "./User.ts"

/** The authenticated caller of an API request. @category models */
export interface Principal {
  readonly user: User
  readonly realm: Realm
  /**
   * The organization's access state as authentication found it current for
   * this request (the cache's read and its version), so the request reads
   * it once. Absent for principals not made by authentication.
   */
  readonly access?: RequestAccess | undefined
}
