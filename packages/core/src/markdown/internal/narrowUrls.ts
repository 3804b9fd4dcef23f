/**
 * Zulip's narrow links for channels and topics. Names are encoded for the
 * URL fragment as the server does: percent-encoding with `.` in place of `%`
 * (so it survives in fragments), and literal dots written `.2E`.
 *
 * @internal
 */

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

export const encodeHashComponent = (text: string): string =>
  encodeURIComponent(text.replace(loneSurrogate, "\uFFFD"))
    .replace(/[!'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/[%.]/g, (c) => (c === "%" ? "." : ".2E"))

const channelSlug = (id: number, name: string): string => `${id}-${encodeHashComponent(name.replace(/ /g, "-"))}`

export const channelUrl = (id: number, name: string): string => `/#narrow/channel/${channelSlug(id, name)}`

export const topicUrl = (id: number, name: string, topic: string): string =>
  `${channelUrl(id, name)}/topic/${encodeHashComponent(topic)}`
