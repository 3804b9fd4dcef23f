/**
 * Links to channels, topics and messages written by name: `#**channel**`,
 * `#**channel>topic**` and `#**channel>topic@123**`. Only channels the
 * sender can see resolve (exact name); anything else stays text, whose
 * asterisks then read as emphasis, as on the server.
 *
 * @internal
 */
import { element, escapeText } from "./html.ts"
import type { InlineRule } from "./inlineRules.ts"
import { atMentionBoundary, matchHere, pushHtml } from "./inlineRules.ts"
import { channelUrl, topicUrl } from "./narrowUrls.ts"
import { renderState } from "./renderState.ts"

const messagePattern = /#\*\*([^*>]+)>([^*]+)@(\d+)\*\*/y
const topicPattern = /#\*\*([^*>]+)>([^*]+)\*\*/y
const channelPattern = /#\*\*([^*]+)\*\*/y

export const channelLinkRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x23 || !atMentionBoundary(state.src, state.pos)) return false
  const render = renderState(state.env)
  const channels = render.directory.channelsByName
  let html: string | undefined
  let length = 0

  const message = matchHere(messagePattern, state)
  const messageChannel = message === null ? undefined : channels.get(message[1]!)
  if (message !== null && messageChannel !== undefined) {
    const [whole, name, topic, id] = message as unknown as [string, string, string, string]
    html = element(
      "a",
      [["class", "message-link"], ["href", `${topicUrl(messageChannel.id, name, topic)}/near/${id}`]],
      escapeText(`#${name} > ${topic} @ 💬`)
    )
    length = whole.length
  }
  const topicMatch = html === undefined ? matchHere(topicPattern, state) : null
  const topicChannel = topicMatch === null ? undefined : channels.get(topicMatch[1]!)
  if (topicMatch !== null && topicChannel !== undefined) {
    const [whole, name, topic] = topicMatch as unknown as [string, string, string]
    html = element(
      "a",
      [["class", "stream-topic"], ["data-stream-id", String(topicChannel.id)], ["href", topicUrl(topicChannel.id, name, topic)]],
      escapeText(`#${name} > ${topic}`)
    )
    length = whole.length
  }
  const channelMatch = html === undefined ? matchHere(channelPattern, state) : null
  const channel = channelMatch === null ? undefined : channels.get(channelMatch[1]!)
  if (channelMatch !== null && channel !== undefined) {
    const [whole, name] = channelMatch as unknown as [string, string]
    html = element(
      "a",
      [["class", "stream"], ["data-stream-id", String(channel.id)], ["href", channelUrl(channel.id, name)]],
      escapeText(`#${name}`)
    )
    length = whole.length
  }
  if (html === undefined) return false
  if (!silent) {
    render.hasLink = true
    pushHtml(state, html)
  }
  state.pos += length
  return true
}
