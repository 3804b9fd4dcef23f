/**
 * The one password rule, as Zulip's `check_password_strength` applies its
 * `PASSWORD_MIN_LENGTH` (6): the join page, `PATCH /settings` `new_password`
 * and the command line (`create-organization --owner-password`,
 * `create-user --password`) all ask this function, each answering with
 * Zulip's text for its own endpoint.
 *
 * @since 0.1.0
 */

/** Zulip's default PASSWORD_MIN_LENGTH. @category constants */
export const minLength = 6

/**
 * Whether `password` is too weak to set. Characters are counted as Python's
 * `len` counts them (code points), so an emoji is one character, not two
 * UTF-16 units.
 *
 * @category validation
 */
export const isTooWeak = (password: string): boolean => {
  let characters = 0
  for (const _ of password) {
    if (++characters >= minLength) return false
  }
  return true
}
