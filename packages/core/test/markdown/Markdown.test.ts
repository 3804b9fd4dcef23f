import { describe, expect, it } from "@effect/vitest"
import type { RenderContext } from "../../src/markdown/Markdown.ts"
import { containsWord, render } from "../../src/markdown/Markdown.ts"

const context: RenderContext = {
  users: [
    { id: 12, full_name: "Full Name", is_active: true },
    { id: 13, full_name: "Old Timer", is_active: false },
    { id: 14, full_name: "Twin", is_active: true },
    { id: 15, full_name: "Twin", is_active: true },
    { id: 16, full_name: "all", is_active: true }
  ],
  groups: [
    { id: 5, name: "group name", deactivated: false },
    { id: 6, name: "retired", deactivated: true }
  ],
  channels: [
    { id: 3, name: "Denmark" },
    { id: 4, name: "social life" }
  ]
}

const html = (content: string): string => render(content, context).html

const emoji = (code: string, name: string): string => {
  const title = name.replace(/_/g, " ")
  return `<span aria-label="${title}" class="emoji emoji-${code}" role="img" title="${title}">:${name}:</span>`
}

describe("Markdown: text", () => {
  it("wraps paragraphs and turns single newlines into <br>", () => {
    expect(html("hello\nworld\n\nagain")).toBe("<p>hello<br>\nworld</p>\n<p>again</p>")
  })

  it("renders blank input as nothing", () => {
    expect(html("")).toBe("")
    expect(html("  \n\t\n")).toBe("")
  })

  it("renders emphasis with asterisks only", () => {
    expect(html("**bold** *it* ***both*** ~~gone~~")).toBe(
      "<p><strong>bold</strong> <em>it</em> <strong><em>both</em></strong> <del>gone</del></p>"
    )
    expect(html("_not_ __not__ snake_case_name")).toBe("<p>_not_ __not__ snake_case_name</p>")
    expect(html("const char *x = (char *)y")).toBe("<p>const char *x = (char *)y</p>")
  })

  it("never pairs emphasis across a line break", () => {
    expect(html("**a\nb**")).toBe("<p>**a<br>\nb**</p>")
  })

  it("keeps inline code verbatim", () => {
    expect(html("` spaced ` and `<b>&amp;</b>`")).toBe("<p><code> spaced </code> and <code>&lt;b&gt;&amp;amp;&lt;/b&gt;</code></p>")
  })

  it("renders headings, lists, rules and tables", () => {
    expect(html("# Title\n#not a title")).toBe("<h1>Title</h1>\n<p>#not a title</p>")
    expect(html("Intro:\n* a\n* b\n  * c")).toBe(
      "<p>Intro:</p>\n<ul>\n<li>a</li>\n<li>b<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>"
    )
    expect(html("1. A\n2. B\n  3. C")).toBe("<ol>\n<li>A</li>\n<li>B<ol start=\"3\">\n<li>C</li>\n</ol>\n</li>\n</ol>")
    expect(html("* one\n- two\n+ three")).toBe("<ul>\n<li>one</li>\n<li>two</li>\n<li>three</li>\n</ul>")
    expect(html("a\n\n---")).toBe("<p>a</p>\n<hr>")
    expect(html("| a | b |\n|:--|--:|\n| 1 | 2 |")).toBe(
      "<table>\n<thead>\n<tr>\n<th style=\"text-align: left;\">a</th>\n<th style=\"text-align: right;\">b</th>\n</tr>\n</thead>\n" +
        "<tbody>\n<tr>\n<td style=\"text-align: left;\">1</td>\n<td style=\"text-align: right;\">2</td>\n</tr>\n</tbody>\n</table>"
    )
  })

  it("has no setext headings and no reference links", () => {
    expect(html("Title\n===")).toBe("<p>Title<br>\n===</p>")
    expect(html("[ref]\n\n[ref]: https://example.com")).toBe(
      "<p>[ref]</p>\n<p>[ref]: <a href=\"https://example.com\">https://example.com</a></p>"
    )
  })

  it("renders /me messages as plain paragraphs", () => {
    expect(html("/me waves")).toBe("<p>/me waves</p>")
  })
})

describe("Markdown: links", () => {
  it("renders written links with their href only", () => {
    const result = render("[Zulip](https://zulip.com/help)", context)
    expect(result.html).toBe("<p><a href=\"https://zulip.com/help\">Zulip</a></p>")
    expect(result.hasLink).toBe(true)
    expect(result.hasImage).toBe(false)
  })

  it("links bare URLs, domains and email addresses", () => {
    expect(html("see https://example.com/a_(b), or example.org. mail a@b.com")).toBe(
      "<p>see <a href=\"https://example.com/a_(b)\">https://example.com/a_(b)</a>, or " +
        "<a href=\"http://example.org\">example.org</a>. mail <a href=\"mailto:a@b.com\">a@b.com</a></p>"
    )
    expect(html("readme.md and views.py")).toBe("<p>readme.md and views.py</p>")
  })

  it("keeps relative and fragment links", () => {
    expect(html("[here](/#narrow/channel/3-Denmark) [top](#top)")).toBe(
      "<p><a href=\"/#narrow/channel/3-Denmark\">here</a> <a href=\"#top\">top</a></p>"
    )
  })

  it("shows the href of a link without text", () => {
    expect(html("[](https://github.com)")).toBe("<p><a href=\"https://github.com\">https://github.com</a></p>")
  })

  it("flags links into /user_uploads/ as attachments", () => {
    const result = render("[file.pdf](/user_uploads/2/ab/file.pdf)", context)
    expect(result.html).toBe("<p><a href=\"/user_uploads/2/ab/file.pdf\">file.pdf</a></p>")
    expect(result.hasAttachment).toBe(true)
    expect(render("[file](https://elsewhere.org/user_uploads/1/a.pdf)", context).hasAttachment).toBe(false)
    expect(render("no links", context).hasLink).toBe(false)
  })

  it("previews linked images after their paragraph", () => {
    const result = render("Look: https://example.com/cat.png\nnice", context)
    expect(result.html).toBe(
      "<p>Look: <a href=\"https://example.com/cat.png\">https://example.com/cat.png</a><br>\nnice</p>\n" +
        "<div class=\"message_inline_image\"><a href=\"https://example.com/cat.png\"><img src=\"https://example.com/cat.png\"></a></div>"
    )
    expect(result.hasImage).toBe(true)
  })

  it("replaces a paragraph that is only an image URL by its preview", () => {
    expect(html("https://example.com/cat.JPG")).toBe(
      "<div class=\"message_inline_image\"><a href=\"https://example.com/cat.JPG\"><img src=\"https://example.com/cat.JPG\"></a></div>"
    )
  })

  it("titles previews of named links, including image syntax (which Zulip reads as ! and a link)", () => {
    expect(html("![a cat](/user_uploads/2/ab/cat.gif)")).toBe(
      "<p>!<a href=\"/user_uploads/2/ab/cat.gif\">a cat</a></p>\n" +
        "<div class=\"message_inline_image\"><a href=\"/user_uploads/2/ab/cat.gif\" title=\"a cat\"><img src=\"/user_uploads/2/ab/cat.gif\"></a></div>"
    )
    const result = render("![a cat](/user_uploads/2/ab/cat.gif)", context)
    expect(result.hasImage && result.hasAttachment && result.hasLink).toBe(true)
  })

  it("previews each image once, never inside quotes", () => {
    expect(html("https://x.org/a.webp https://x.org/a.webp")).toBe(
      "<p><a href=\"https://x.org/a.webp\">https://x.org/a.webp</a> <a href=\"https://x.org/a.webp\">https://x.org/a.webp</a></p>\n" +
        "<div class=\"message_inline_image\"><a href=\"https://x.org/a.webp\"><img src=\"https://x.org/a.webp\"></a></div>"
    )
    const quoted = render("> https://x.org/a.png", context)
    expect(quoted.html).toBe("<blockquote>\n<p><a href=\"https://x.org/a.png\">https://x.org/a.png</a></p>\n</blockquote>")
    expect(quoted.hasImage).toBe(false)
  })

  it("previews images in tight list items inside the item", () => {
    expect(html("* a https://x.org/a.png\n* b")).toBe(
      "<ul>\n<li>a <a href=\"https://x.org/a.png\">https://x.org/a.png</a>" +
        "<div class=\"message_inline_image\"><a href=\"https://x.org/a.png\"><img src=\"https://x.org/a.png\"></a></div></li>\n<li>b</li>\n</ul>"
    )
  })

  it("previews videos without flagging an image", () => {
    const result = render("https://x.org/clip.mp4", context)
    expect(result.html).toBe(
      "<div class=\"message_inline_image message_inline_video\"><a href=\"https://x.org/clip.mp4\">" +
        "<video preload=\"metadata\" src=\"https://x.org/clip.mp4\"></video></a></div>"
    )
    expect(result.hasImage).toBe(false)
  })
})

describe("Markdown: user mentions", () => {
  it("renders a mention and records it", () => {
    const result = render("hi @**Full Name**", context)
    expect(result.html).toBe("<p>hi <span class=\"user-mention\" data-user-id=\"12\">@Full Name</span></p>")
    expect([...result.mentionedUserIds]).toEqual([12])
  })

  it("matches names case-insensitively and shows the real name", () => {
    expect(html("@**full NAME**")).toBe("<p><span class=\"user-mention\" data-user-id=\"12\">@Full Name</span></p>")
  })

  it("picks the user by id with the name|id syntax", () => {
    const result = render("@**Twin|15** @**|14**", context)
    expect(result.html).toBe(
      "<p><span class=\"user-mention\" data-user-id=\"15\">@Twin</span> <span class=\"user-mention\" data-user-id=\"14\">@Twin</span></p>"
    )
    expect([...result.mentionedUserIds].sort()).toEqual([14, 15])
  })

  it("rejects a name|id pair whose name is not that user's exact name", () => {
    const result = render("@**Twin|12** @**full name|12**", context)
    expect(result.html).toBe("<p>@<strong>Twin|12</strong> @<strong>full name|12</strong></p>")
    expect(result.mentionedUserIds.size).toBe(0)
  })

  it("renders silent mentions without recording them", () => {
    const result = render("@_**Full Name**", context)
    expect(result.html).toBe("<p><span class=\"user-mention silent\" data-user-id=\"12\">Full Name</span></p>")
    expect(result.mentionedUserIds.size).toBe(0)
  })

  it("silences mentions of deactivated users", () => {
    const result = render("@**Old Timer**", context)
    expect(result.html).toBe("<p><span class=\"user-mention silent\" data-user-id=\"13\">Old Timer</span></p>")
    expect(result.mentionedUserIds.size).toBe(0)
  })

  it("silences quoted mentions, including fenced quotes", () => {
    const result = render("> @**Full Name** @*group name* @**all**\n\n```quote\n@**Full Name**\n```", context)
    expect(result.html).toBe(
      "<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"12\">Full Name</span> " +
        "<span class=\"user-group-mention silent\" data-user-group-id=\"5\">group name</span> " +
        "<span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">all</span></p>\n</blockquote>\n" +
        "<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"12\">Full Name</span></p>\n</blockquote>"
    )
    expect(result.mentionedUserIds.size).toBe(0)
    expect(result.mentionedGroupIds.size).toBe(0)
    expect(result.channelWildcard).toBe(false)
  })

  it("leaves unknown names as text, whose asterisks then read as emphasis", () => {
    const result = render("@**Nobody** @*nogroup*", context)
    expect(result.html).toBe("<p>@<strong>Nobody</strong> @<em>nogroup</em></p>")
    expect(result.mentionedUserIds.size).toBe(0)
  })

  it("needs a boundary before the @", () => {
    expect(html("mail@**Full Name**")).toBe("<p>mail@<strong>Full Name</strong></p>")
    expect(html("(@**Full Name**)")).toBe("<p>(<span class=\"user-mention\" data-user-id=\"12\">@Full Name</span>)</p>")
  })
})

describe("Markdown: wildcard mentions", () => {
  it("renders the channel wildcards with the word typed", () => {
    for (const word of ["all", "everyone", "channel", "stream"]) {
      const result = render(`@**${word}**`, context)
      expect(result.html).toBe(`<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${word}</span></p>`)
      expect(result.channelWildcard).toBe(true)
      expect(result.topicWildcard).toBe(false)
      expect(result.mentionedUserIds.size).toBe(0)
    }
  })

  it("renders the topic wildcard", () => {
    const result = render("@**topic**", context)
    expect(result.html).toBe("<p><span class=\"topic-mention\">@topic</span></p>")
    expect(result.topicWildcard).toBe(true)
    expect(result.channelWildcard).toBe(false)
  })

  it("renders silent wildcards without flags", () => {
    const result = render("@_**everyone** @_**topic**", context)
    expect(result.html).toBe(
      "<p><span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">everyone</span> " +
        "<span class=\"topic-mention silent\">topic</span></p>"
    )
    expect(result.channelWildcard).toBe(false)
    expect(result.topicWildcard).toBe(false)
  })

  it("matches wildcards exactly, before users of the same name", () => {
    expect(render("@**all**", context).mentionedUserIds.size).toBe(0)
    expect(html("@**All**")).toBe("<p><span class=\"user-mention\" data-user-id=\"16\">@all</span></p>")
  })
})

describe("Markdown: group mentions", () => {
  it("renders loud and silent group mentions", () => {
    const result = render("@*group name* and @_*Group Name*", context)
    expect(result.html).toBe(
      "<p><span class=\"user-group-mention\" data-user-group-id=\"5\">@group name</span> and " +
        "<span class=\"user-group-mention silent\" data-user-group-id=\"5\">group name</span></p>"
    )
    expect([...result.mentionedGroupIds]).toEqual([5])
  })

  it("silences deactivated groups", () => {
    const result = render("@*retired*", context)
    expect(result.html).toBe("<p><span class=\"user-group-mention silent\" data-user-group-id=\"6\">retired</span></p>")
    expect(result.mentionedGroupIds.size).toBe(0)
  })
})

describe("Markdown: channel and topic links", () => {
  it("links channels by exact name", () => {
    const result = render("#**Denmark** #**social life** #**denmark**", context)
    expect(result.html).toBe(
      "<p><a class=\"stream\" data-stream-id=\"3\" href=\"/#narrow/channel/3-Denmark\">#Denmark</a> " +
        "<a class=\"stream\" data-stream-id=\"4\" href=\"/#narrow/channel/4-social-life\">#social life</a> " +
        "#<strong>denmark</strong></p>"
    )
    expect(result.hasLink).toBe(true)
  })

  it("links topics with Zulip's fragment encoding", () => {
    expect(html("#**Denmark>some topic** #**Denmark>v1.2 (beta)!**")).toBe(
      "<p><a class=\"stream-topic\" data-stream-id=\"3\" href=\"/#narrow/channel/3-Denmark/topic/some.20topic\">#Denmark &gt; some topic</a> " +
        "<a class=\"stream-topic\" data-stream-id=\"3\" href=\"/#narrow/channel/3-Denmark/topic/v1.2E2.20.28beta.29.21\">" +
        "#Denmark &gt; v1.2 (beta)!</a></p>"
    )
  })

  it("links messages by topic and id", () => {
    expect(html("#**Denmark>plans@42**")).toBe(
      "<p><a class=\"message-link\" href=\"/#narrow/channel/3-Denmark/topic/plans/near/42\">#Denmark &gt; plans @ 💬</a></p>"
    )
  })

  it("leaves channels the sender cannot see as text", () => {
    expect(html("#**Secret>plans**")).toBe("<p>#<strong>Secret&gt;plans</strong></p>")
  })
})

describe("Markdown: emoji", () => {
  it("renders Zulip's emoji names", () => {
    expect(html(":smile: :+1: :thumbs_up: :heart: :tada: :joy: :octopus:")).toBe(
      `<p>${emoji("1f642", "smile")} ${emoji("1f44d", "+1")} ${emoji("1f44d", "thumbs_up")} ${emoji("2764", "heart")} ` +
        `${emoji("1f389", "tada")} ${emoji("1f602", "joy")} ${emoji("1f419", "octopus")}</p>`
    )
  })

  it("leaves unknown names as text", () => {
    expect(html(":not_an_emoji: :slight_smile:")).toBe("<p>:not_an_emoji: :slight_smile:</p>")
  })

  it("wraps emoji typed as Unicode under their canonical name", () => {
    expect(html("🐙 👍 #️⃣ 1 ©")).toBe(`<p>${emoji("1f419", "octopus")} ${emoji("1f44d", "+1")} ${emoji("0023-20e3", "hash")} 1 ©</p>`)
  })

  it("renders the zulip emoji as an image", () => {
    expect(html(":zulip:")).toBe(
      "<p><img alt=\":zulip:\" class=\"emoji\" src=\"/static/generated/emoji/images/emoji/unicode/zulip.png\" title=\"zulip\"></p>"
    )
  })
})

describe("Markdown: code", () => {
  it("renders fenced code with and without a language", () => {
    expect(html("```python\nprint(\"<hi>\")\n```")).toBe(
      "<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code>print(&quot;&lt;hi&gt;&quot;)\n</code></pre></div>"
    )
    expect(html("~~~\nplain 'text'\n~~~")).toBe(
      "<div class=\"codehilite\"><pre><span></span><code>plain &#39;text&#39;\n</code></pre></div>"
    )
    expect(html("```madeup\nx\n```")).toBe(
      "<div class=\"codehilite\" data-code-language=\"madeup\"><pre><span></span><code>x\n</code></pre></div>"
    )
  })

  it("renders indented code blocks the same way", () => {
    expect(html("    indented\n    code")).toBe("<div class=\"codehilite\"><pre><span></span><code>indented\ncode\n</code></pre></div>")
  })

  it("runs an unclosed fence to the end of the message", () => {
    expect(html("text\n```\nopen")).toBe("<p>text</p>\n<div class=\"codehilite\"><pre><span></span><code>open\n</code></pre></div>")
  })

  it("does not expand anything inside code", () => {
    const content = "`@**Full Name** :smile: #**Denmark** https://x.org/a.png $$x$$`\n\n" +
      "```\n@**Full Name** :smile: #**Denmark** https://x.org/a.png **b** <script>\n```"
    const result = render(content, context)
    expect(result.html).toBe(
      "<p><code>@**Full Name** :smile: #**Denmark** https://x.org/a.png $$x$$</code></p>\n" +
        "<div class=\"codehilite\"><pre><span></span><code>@**Full Name** :smile: #**Denmark** https://x.org/a.png **b** &lt;script&gt;\n</code></pre></div>"
    )
    expect(result.mentionedUserIds.size).toBe(0)
    expect(result.hasLink).toBe(false)
    expect(result.hasImage).toBe(false)
  })
})

describe("Markdown: quotes, spoilers and math", () => {
  it("renders quotes and fenced quotes alike", () => {
    expect(html("> text")).toBe("<blockquote>\n<p>text</p>\n</blockquote>")
    expect(html("```quote\ntext\n```")).toBe("<blockquote>\n<p>text</p>\n</blockquote>")
    expect(html(">")).toBe("<p>&gt;</p>")
  })

  it("renders spoilers with a Markdown header", () => {
    expect(html("```spoiler Header *text*\ncontent\n```")).toBe(
      "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>Header <em>text</em></p>\n</div>" +
        "<div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>"
    )
    expect(html("```spoiler\ncontent\n```")).toBe(
      "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n</div>" +
        "<div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>"
    )
  })

  it("shows math as escaped source", () => {
    expect(html("so $$x^2 < y$$ holds")).toBe("<p>so <span class=\"tex-error\">$$x^2 &lt; y$$</span> holds</p>")
    expect(html("```math\n\\frac{a}{b} <\n\nc\n```")).toBe(
      "<p><span class=\"tex-error\">\\frac{a}{b} &lt;</span>\n\n<span class=\"tex-error\">c</span></p>"
    )
    expect(html("it costs $5 or $$$")).toBe("<p>it costs $5 or $$$</p>")
  })
})

describe("Markdown: unsafe input", () => {
  it("escapes raw HTML", () => {
    expect(html("<script>alert(1)</script>")).toBe("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>")
    expect(html("<img src=x onerror=alert(1)>")).toBe("<p>&lt;img src=x onerror=alert(1)&gt;</p>")
    expect(html("<a href=\"javascript:alert(1)\">x</a>")).toBe("<p>&lt;a href=\"javascript:alert(1)\"&gt;x&lt;/a&gt;</p>")
  })

  it("never links unsafe schemes", () => {
    expect(html("[x](javascript:alert(1))")).toBe("<p>[x](javascript:alert(1))</p>")
    expect(html("[x](JavaScript:alert(1)) [y](data:text/html;base64,PHNjcmlwdD4=) [z](vbscript:msgbox)")).toBe(
      "<p>[x](JavaScript:alert(1)) [y](data:text/html;base64,PHNjcmlwdD4=) [z](vbscript:msgbox)</p>"
    )
    expect(html("javascript://example.com/%0aalert(1)")).toBe("<p>javascript://example.com/%0aalert(1)</p>")
    expect(render("[x](javascript:alert(1))", context).hasLink).toBe(false)
  })

  it("escapes attribute breakouts in links", () => {
    expect(html("[x](https://a.org/\"onmouseover=\"alert(1) \"t\\\" onclick=\")")).toBe(
      "<p><a href=\"https://a.org/&quot;onmouseover=&quot;alert(1)\" title=\"t&quot; onclick=\">x</a></p>"
    )
  })

  it("escapes HTML in mentions, spoiler headers and code", () => {
    const evil: RenderContext = { users: [{ id: 1, full_name: "<b>Bob</b>", is_active: true }], groups: [], channels: [] }
    expect(render("@**<b>Bob</b>**", evil).html).toBe(
      "<p><span class=\"user-mention\" data-user-id=\"1\">@&lt;b&gt;Bob&lt;/b&gt;</span></p>"
    )
    expect(html("```spoiler <img src=x onerror=alert(1)>\nx\n```")).toBe(
      "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>&lt;img src=x onerror=alert(1)&gt;</p>\n</div>" +
        "<div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>x</p>\n</div></div>"
    )
  })

  it("cannot forge the renderer's placeholders", () => {
    expect(html("```\ncode\n```\n\u0002zulipstasha\u0003")).toBe(
      "<div class=\"codehilite\"><pre><span></span><code>code\n</code></pre></div>\n<p>zulipstasha</p>"
    )
  })
})

describe("containsWord", () => {
  const rendered = html("Deploy **now**: the Release-train leaves at <b>noon</b> & then")

  it("finds whole words case-insensitively", () => {
    expect(containsWord(rendered, "deploy")).toBe(true)
    expect(containsWord(rendered, "NOW")).toBe(true)
    expect(containsWord(rendered, "release")).toBe(true)
    expect(containsWord(rendered, "release-train")).toBe(true)
    expect(containsWord(rendered, "& then")).toBe(true)
  })

  it("does not match inside words or tags", () => {
    expect(containsWord(rendered, "deplo")).toBe(false)
    expect(containsWord(rendered, "strong")).toBe(false)
    expect(containsWord(rendered, "noo")).toBe(false)
    expect(containsWord(rendered, "")).toBe(false)
  })
})
