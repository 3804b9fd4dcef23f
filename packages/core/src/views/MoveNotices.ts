/**
 * The texts Notification Bot posts when messages move between topics, or a
 * topic is resolved (Zulip's `send_message_moved_breadcrumbs` and
 * `maybe_send_resolve_topic_notifications`), and the links they use.
 *
 * @since 0.1.0
 */

/** Zulip's hash encoding of a narrow component: percent-encoding with "." for "%" (and "%2E" for "."). @category views */
export const encodeHashComponent = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, "%2E").replace(/%/g, ".")

/** `#narrow/channel/ID-NAME/topic/TOPIC`. @category views */
export const topicNarrow = (channelId: number, channelName: string, topic: string): string =>
  `#narrow/channel/${channelId}-${encodeHashComponent(channelName.replace(/ /g, "-"))}/topic/${encodeHashComponent(topic)}`

const needsMarkdownLink = (text: string) => /[`>*&[\]]|\$\$/.test(text)

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;")

/** A topic as a notice names it: `#**CHANNEL>TOPIC**`, or a Markdown link when either contains syntax. @category views */
export const topicLink = (channelId: number, channelName: string, topic: string): string =>
  needsMarkdownLink(channelName) || needsMarkdownLink(topic)
    ? `[#${escapeHtml(channelName)} > ${escapeHtml(topic)}](${topicNarrow(channelId, channelName, topic)})`
    : `#**${channelName}>${topic}**`

/** A silent mention of the mover. @category views */
export const silentMention = (fullName: string, userId: number): string => `@_**${fullName}|${userId}**`

/** @category models */
export interface MoveNoticeInput {
  /** The mover's silent mention. */
  readonly mover: string
  readonly from: string
  readonly to: string
  readonly count: number
  /** Every message the mover could see moved, and the new topic had none. */
  readonly wholeTopic: boolean
  /** The moved message's link (one message moved). */
  readonly messageUrl: string
}

/** The notice in the new topic. @category views */
export const movedHereNotice = (input: MoveNoticeInput): string =>
  input.wholeTopic
    ? `This topic was moved here from ${input.from} by ${input.mover}.`
    : input.count === 1
    ? `[A message](${input.messageUrl}) was moved here from ${input.from} by ${input.mover}.`
    : `${input.count} messages were moved here from ${input.from} by ${input.mover}.`

/** The notice in the old topic. @category views */
export const movedAwayNotice = (input: MoveNoticeInput): string =>
  input.wholeTopic
    ? `This topic was moved to ${input.to} by ${input.mover}.`
    : input.count === 1
    ? `A message was moved from this topic to ${input.to} by ${input.mover}.`
    : `${input.count} messages were moved from this topic to ${input.to} by ${input.mover}.`

/** The notice of a resolve or unresolve, in the (new) topic. @category views */
export const resolveNotice = (mover: string, resolved: boolean): string =>
  `${mover} has marked this topic as ${resolved ? "resolved" : "unresolved"}.`

const resolveNoticePattern = /^@_\*\*[^\n]*\|\d+\*\* has marked this topic as (?:un)?resolved\.$/u

/**
 * Whether a message's content is a resolve or unresolve notice (with the
 * Notification Bot as its sender, Zulip's `RESOLVE_TOPIC_NOTIFICATION`
 * message type: only the bot writes such content under its name).
 *
 * @category predicates
 */
export const isResolveNotice = (content: string): boolean => resolveNoticePattern.test(content)
