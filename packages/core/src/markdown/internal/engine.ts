/**
 * The markdown-it instance speaking Zulip's dialect: CommonMark blocks minus
 * what Zulip leaves out (raw HTML, setext headings, reference links,
 * backslash escapes, CommonMark fences and images), plus Zulip's inline
 * syntax. Built once; rendering never mutates it.
 *
 * @internal
 */
import MarkdownIt from "markdown-it"
import type { MarkdownIt as Engine } from "markdown-it"
import { channelLinkRule } from "./channelLinks.ts"
import { codeSpanRule } from "./codeSpans.ts"
import { emojiNameRule, unicodeEmojiRule } from "./emoji.ts"
import { installEmphasis } from "./emphasis.ts"
import { installLinks } from "./links.ts"
import { groupMentionRule, userMentionRule } from "./mentions.ts"
import { installParagraphs } from "./paragraphs.ts"
import { previewsRule } from "./previews.ts"
import { installQuotes } from "./quotes.ts"
import { installRenderRules } from "./renderRules.ts"
import { texRule } from "./tex.ts"
import { textRule } from "./textRule.ts"
import { timestampRule } from "./timestamps.ts"
import { webLinkRule } from "./webLinks.ts"

const build = (): Engine => {
  const md = new MarkdownIt("default", { html: false, linkify: true, breaks: true, typographer: false })
  // Zulip's fences are handled before parsing (fencedBlocks.ts); its URL
  // detection replaces linkify-it (webLinks.ts).
  md.disable(["lheading", "reference", "fence", "html_block", "html_inline", "image", "autolink", "entity", "escape", "linkify"])

  md.inline.ruler.at("text", textRule)
  md.inline.ruler.before("text", "zulip_web_link", webLinkRule)
  md.inline.ruler.at("backticks", codeSpanRule)
  md.inline.ruler.after("backticks", "zulip_user_mention", userMentionRule)
  md.inline.ruler.after("zulip_user_mention", "zulip_tex", texRule)
  md.inline.ruler.after("zulip_tex", "zulip_channel_link", channelLinkRule)
  md.inline.ruler.after("zulip_channel_link", "zulip_timestamp", timestampRule)
  md.inline.ruler.after("zulip_timestamp", "zulip_group_mention", groupMentionRule)
  installEmphasis(md)
  md.inline.ruler.after("link", "zulip_emoji", emojiNameRule)

  installQuotes(md)
  installParagraphs(md)
  installLinks(md)
  md.core.ruler.after("zulip_blank_link_text", "zulip_unicode_emoji", unicodeEmojiRule)
  md.core.ruler.after("zulip_unicode_emoji", "zulip_previews", previewsRule)

  installRenderRules(md)
  return md
}

let engine: Engine | undefined

export const zulipMarkdown = (): Engine => (engine ??= build())
