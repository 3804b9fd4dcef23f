/**
 * User, wildcard and user-group mentions, with Zulip's markup and rules:
 *
 * - `@**Full Name**` (case-insensitive), `@**Full Name|12**` (the name must
 *   then be the user's exact name) and `@**|12**`; silent with `@_**...**`.
 * - `@**all**`, `@**everyone**`, `@**channel**`, `@**stream**` are channel
 *   wildcards and `@**topic**` the topic wildcard; they win over users of
 *   those names.
 * - `@*group*` for non-system groups; silent with `@_*group*`.
 * - Deactivated users and groups, and anything quoted, render silently and
 *   notify no one.
 * - An unknown name is no mention at all: the text stays and its asterisks
 *   then read as emphasis, as on the server (`@<strong>Name</strong>`).
 *
 * @internal
 */
import { element, escapeText } from "./html.ts"
import type { InlineRule } from "./inlineRules.ts"
import { atMentionBoundary, matchHere, pushHtml } from "./inlineRules.ts"
import { renderState } from "./renderState.ts"

const userPattern = /@(_?)\*\*([^*]+)\*\*/y
const groupPattern = /@(_?)\*([^*]+)\*/y
const idSyntax = /^(.+)?\|(\d+)$/

const channelWildcards: ReadonlySet<string> = new Set(["all", "everyone", "channel", "stream"])

export const userMentionRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x40 || !atMentionBoundary(state.src, state.pos)) return false
  const match = matchHere(userPattern, state)
  if (match === null) return false
  const render = renderState(state.env)
  const name = match[2]!
  let quiet = match[1] === "_" || render.inQuote
  let html: string
  if (channelWildcards.has(name)) {
    if (!quiet && !silent) render.channelWildcard = true
    const classes = `user-mention channel-wildcard-mention${quiet ? " silent" : ""}`
    html = element("span", [["class", classes], ["data-user-id", "*"]], escapeName(name, quiet))
  } else if (name === "topic") {
    if (!quiet && !silent) render.topicWildcard = true
    html = element("span", [["class", `topic-mention${quiet ? " silent" : ""}`]], escapeName(name, quiet))
  } else {
    const byId = idSyntax.exec(name)
    const user = byId === null
      ? render.directory.usersByName.get(name.toLowerCase())
      : render.directory.usersById.get(Number(byId[2]))
    if (user === undefined || (byId?.[1] !== undefined && byId[1] !== user.full_name)) return false
    if (!user.is_active) quiet = true
    if (!quiet && !silent) render.mentionedUserIds.add(user.id)
    const classes = `user-mention${quiet ? " silent" : ""}`
    html = element("span", [["class", classes], ["data-user-id", String(user.id)]], escapeName(user.full_name, quiet))
  }
  if (!silent) pushHtml(state, html)
  state.pos += match[0].length
  return true
}

export const groupMentionRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x40 || !atMentionBoundary(state.src, state.pos)) return false
  const match = matchHere(groupPattern, state)
  if (match === null) return false
  const render = renderState(state.env)
  const group = render.directory.groupsByName.get(match[2]!.toLowerCase())
  if (group === undefined) return false
  const quiet = match[1] === "_" || render.inQuote || group.deactivated
  if (!silent) {
    if (!quiet) render.mentionedGroupIds.add(group.id)
    const classes = `user-group-mention${quiet ? " silent" : ""}`
    pushHtml(
      state,
      element("span", [["class", classes], ["data-user-group-id", String(group.id)]], escapeName(group.name, quiet))
    )
  }
  state.pos += match[0].length
  return true
}

/** Loud mentions show `@Name`, silent ones just `Name`. */
const escapeName = (name: string, quiet: boolean): string => escapeText(quiet ? name : `@${name}`)
