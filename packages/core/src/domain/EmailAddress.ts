/**
 * What counts as an email address where Zulip checks one with Django's
 * `EmailValidator`: at most 320 characters; a dot-atom or quoted local part;
 * a domain of dot-separated labels ending in a label of two or more
 * characters (internationalised names through their ASCII form), `localhost`,
 * or an address literal in brackets.
 *
 * @since 0.1.0
 */
import { domainToASCII } from "node:url"
import { isIP } from "node:net"

const maxLength = 320
const dotAtom = /^[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*$/i
const quoted = /^"([\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*"$/i
const domainName = /^(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+[A-Z0-9-]{2,63}$/i
const literal = /^\[([A-F0-9:.]+)\]$/i

const validDomain = (domain: string): boolean => {
  if (domainName.test(domain) && !domain.endsWith("-")) return true
  const bracketed = literal.exec(domain)
  return bracketed !== null && isIP(bracketed[1]!) !== 0
}

/**
 * Whether `value` passes Django's `validate_email`.
 *
 * @category validation
 */
export const isValidEmailAddress = (value: string): boolean => {
  if (value.length === 0 || value.length > maxLength) return false
  const at = value.lastIndexOf("@")
  if (at < 0) return false
  const local = value.slice(0, at)
  const domain = value.slice(at + 1)
  if (!dotAtom.test(local) && !quoted.test(local)) return false
  if (domain === "localhost" || validDomain(domain)) return true
  // Internationalised domain names are checked in their ASCII (punycode) form.
  const ascii = domainToASCII(domain)
  return ascii !== "" && ascii !== domain && validDomain(ascii)
}

/**
 * The addresses of Zulip's cross-organization system bots (its
 * `CROSS_REALM_BOT_EMAILS`), which no account may take.
 *
 * @category constants
 */
export const SystemBotEmails: ReadonlyArray<string> = [
  "notification-bot@zulip.com",
  "welcome-bot@zulip.com",
  "emailgateway@zulip.com"
]

/**
 * Whether `email` is a system bot's address, compared case-insensitively.
 *
 * @category validation
 */
export const isSystemBotEmail = (email: string): boolean => SystemBotEmails.includes(email.trim().toLowerCase())
