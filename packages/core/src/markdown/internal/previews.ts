/**
 * Link-derived message flags and inline previews, following Zulip's
 * link post-processing:
 *
 * - `hasLink` for any link (channel links included), `hasAttachment` for
 *   links into this server's `/user_uploads/`.
 * - Links to images (by file extension), videos (`.mp4`, `.webm`) and
 *   YouTube get a preview block, once per URL, none inside quotes, none at
 *   all past 24 distinct URLs. The preview goes right after the paragraph
 *   holding the link (replacing it when the paragraph is nothing but the
 *   bare link), at the end of a tight list item, or else at the end of the
 *   message. Image previews (YouTube's included) set `hasImage`.
 *
 * Previews point at the original image; this server has no thumbnailer.
 *
 * @internal
 */
import { element, openTag } from "./html.ts"
import type { StateCore, Token } from "./inlineRules.ts"
import type { RenderState } from "./renderState.ts"
import { renderState } from "./renderState.ts"
import { siteLocation } from "./sanitizeUrl.ts"

const previewLimit = 24
const imageExtensions = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"]
const videoExtensions = [".mp4", ".webm"]

interface FoundLink {
  readonly url: string
  /** The link's leading text, as the server compares it with the URL. */
  readonly text: string | undefined
  readonly inQuote: boolean
  /** Index of the inline token holding the link. */
  readonly block: number
  /** Index of the `link_open` among that token's children. */
  readonly child: number
  /** Whether the link sits directly in its block, not inside emphasis. */
  readonly topLevel: boolean
}

const findLinks = (tokens: ReadonlyArray<Token>): Array<FoundLink> => {
  const found: Array<FoundLink> = []
  let quoteDepth = 0
  tokens.forEach((token, block) => {
    if (token.type === "blockquote_open") quoteDepth++
    if (token.type === "blockquote_close") quoteDepth--
    if (token.type !== "inline" || token.children === null) return
    let depth = 0
    token.children.forEach((child, i, children) => {
      if (child.type === "link_open") {
        let text: string | undefined
        for (let j = i + 1; children[j]?.type === "text"; j++) text = (text ?? "") + children[j]!.content
        found.push({ url: String(child.attrGet("href") ?? ""), text, inQuote: quoteDepth > 0, block, child: i, topLevel: depth === 0 })
      }
      depth += child.nesting
    })
  })
  return found
}

/** Path of a URL, without query or fragment. */
const pathOf = (url: string): string => siteLocation(url)?.path ?? url

const hostOf = (url: string): string => siteLocation(url)?.host ?? ""

const isImage = (url: string): boolean =>
  hostOf(url) !== "pasteboard.co" && imageExtensions.some((ext) => pathOf(url).toLowerCase().endsWith(ext))

const isVideo = (url: string): boolean => videoExtensions.some((ext) => pathOf(url).endsWith(ext))

const youtubeId = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined
  const host = parsed.hostname.toLowerCase()
  let id: string | undefined
  if (["m.youtube.com", "www.youtube.com", "www.youtube-nocookie.com", "youtube.com", "youtube-nocookie.com"].includes(host)) {
    const path = parsed.pathname
    if ((path === "/watch" || path === "/watch_popup") && parsed.searchParams.has("v")) id = parsed.searchParams.get("v")!
    else if (path === "/watch_videos" && parsed.searchParams.has("video_ids")) id = parsed.searchParams.get("video_ids")!.split(",")[0]
    else if (/^\/(embed|shorts|v)\//.test(path)) id = path.split("/")[2]
  } else if (host === "youtu.be" && parsed.pathname.startsWith("/")) {
    id = parsed.pathname.slice(1)
  }
  return id !== undefined && /^[0-9A-Za-z_-]+$/.test(id) ? id : undefined
}

/** GitHub "blob" pages of images are shown from their raw file. */
const imageSource = (url: string): string => {
  const match = /^https?:\/\/(?:[^/?#]*\.)?github\.com\/([^/?#]+)\/([^/?#]+)\/blob\/([^?#]*)/i.exec(url)
  return match === null ? url : `https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}`
}

/** Wikipedia file pages and linx.li shares are shown from the file itself. */
const correctedImageUrl = (url: string): string | undefined => {
  const wiki = /^(https?:\/\/[^/?#]*\.wikipedia\.org)\/wiki\/File:(.*)$/i.exec(url)
  if (wiki !== null) return `${wiki[1]}/wiki/Special:FilePath/File:${wiki[2]}`
  const linx = /^https?:\/\/linx\.li(\/[^?#]*)/.exec(url)
  return linx === null ? undefined : `https://linx.li/s${linx[1]}`
}

interface Preview {
  readonly html: string
  readonly image: boolean
  /** Whether a bare link on its own may be replaced by the preview. */
  readonly replaces: boolean
  /** Whether the link counts as a bare URL (its text is the URL, or no text). */
  readonly bare: boolean
}

const previewFor = (url: string, text: string | undefined): Preview | undefined => {
  const bare = text === undefined || text === url
  const title = bare ? undefined : text
  const withTitle = (href: string, t: string | undefined): Array<readonly [string, string]> =>
    t === undefined ? [["href", href]] : [["href", href], ["title", t]]
  if (isVideo(url)) {
    return {
      html: element(
        "div",
        [["class", "message_inline_image message_inline_video"]],
        element("a", withTitle(url, title), element("video", [["preload", "metadata"], ["src", url]], ""))
      ),
      image: false,
      replaces: true,
      bare
    }
  }
  if (isImage(url)) {
    const corrected = correctedImageUrl(url)
    const link = corrected ?? url
    return {
      html: element(
        "div",
        [["class", "message_inline_image"]],
        element("a", withTitle(link, corrected === undefined ? title : undefined), openTag("img", [["src", imageSource(link)]]))
      ),
      image: true,
      replaces: true,
      bare: corrected !== undefined || bare
    }
  }
  if (hostOf(url) === "") return undefined
  const id = youtubeId(url)
  if (id === undefined) return undefined
  return {
    html: element(
      "div",
      [["class", "youtube-video message_inline_image"]],
      element("a", [["data-id", id], ["href", url]], openTag("img", [["src", `https://i.ytimg.com/vi/${id}/default.jpg`]]))
    ),
    image: true,
    replaces: false,
    bare
  }
}

const setFlags = (render: RenderState, links: ReadonlyArray<FoundLink>): void => {
  if (links.length > 0) render.hasLink = true
  for (const { url } of links) {
    const location = siteLocation(url)
    if (location !== undefined && location.host === "" && location.path.startsWith("/user_uploads/")) {
      render.hasAttachment = true
    }
  }
}

const htmlBlock = (state: StateCore, html: string, level: number): Token => {
  const token = new state.Token("html_block", "", 0)
  token.content = html
  token.block = true
  token.level = level
  return token
}

/** Index of the token closing the list item that contains `from`. */
const listItemEnd = (tokens: ReadonlyArray<Token>, from: number): number => {
  let depth = 0
  for (let i = from; i < tokens.length; i++) {
    const type = tokens[i]!.type
    if (type === "list_item_open") depth++
    if (type === "list_item_close") {
      if (depth === 0) return i
      depth--
    }
  }
  return tokens.length
}

export const previewsRule = (state: StateCore): void => {
  const render = renderState(state.env)
  const tokens = state.tokens
  const links = findLinks(tokens)
  setFlags(render, links)
  if (!render.previews) return
  const previewable = new Set(links.filter((l) => !l.inQuote).map((l) => l.url))
  if (previewable.size === 0 || previewable.size > previewLimit) return

  /** Previews to insert after a token index; paragraph tokens and link tokens to drop. */
  const after = new Map<number, Array<string>>()
  const atEnd: Array<string> = []
  const dropped = new Set<number>()
  const dropLinks = new Map<number, number>()
  const seen = new Set<string>()

  for (const link of links) {
    if (link.inQuote || seen.has(link.url)) continue
    seen.add(link.url)
    const preview = previewFor(link.url, link.text)
    if (preview === undefined) continue
    if (preview.image) render.hasImage = true
    const inline = tokens[link.block]!
    const opener = tokens[link.block - 1]
    const children = inline.children ?? []
    const closeIndex = children.findIndex((t, i) => i > link.child && t.type === "link_close" && t.level === children[link.child]!.level)
    if (link.topLevel && opener?.type === "paragraph_open" && !opener.hidden) {
      const alone = link.child === 0 && closeIndex === children.length - 1
      if (preview.replaces && preview.bare && alone) dropped.add(link.block - 1).add(link.block).add(link.block + 1)
      const close = link.block + 1
      after.set(close, [...(after.get(close) ?? []), preview.html])
    } else if (link.topLevel && opener?.type === "paragraph_open" && opener.hidden) {
      const onlyText = link.child === 0 && children[closeIndex + 1]?.type !== "text"
      if (preview.replaces && preview.bare && onlyText) dropLinks.set(link.block, closeIndex)
      const end = listItemEnd(tokens, link.block + 2) - 1
      after.set(end, [...(after.get(end) ?? []), preview.html])
    } else {
      atEnd.push(preview.html)
    }
  }

  for (const [block, closeIndex] of dropLinks) tokens[block]!.children!.splice(0, closeIndex + 1)
  const out: Array<Token> = []
  tokens.forEach((token, i) => {
    if (!dropped.has(i)) out.push(token)
    for (const html of after.get(i) ?? []) out.push(htmlBlock(state, html, token.level))
  })
  for (const html of atEnd) out.push(htmlBlock(state, html, 0))
  state.tokens.splice(0, state.tokens.length, ...out)
}

