/**
 * Which organization has the development login (POST /dev_fetch_api_key,
 * GET /dev_list_users): the demo organization only, as the demo seed marked
 * it (`Realm.demo`). The login hands out any account's API key without a
 * password, so an organization made for real (`create-organization`, with a
 * password) on a demo server must not have it, even under the demo's string
 * id.
 *
 * @since 0.1.0
 */
import type { Realm } from "../domain/Realm.ts"

/**
 * The string id the demo organization is seeded with (`DemoData.realm`).
 * It names the demo to people; the development login goes by `Realm.demo`.
 *
 * @category constants
 * @since 0.1.0
 */
export const demoStringId = "zulip"

/**
 * Whether `realm` has the development login.
 *
 * @category rules
 * @since 0.1.0
 */
export const hasDevLogin = (realm: Pick<Realm, "demo">): boolean => realm.demo
