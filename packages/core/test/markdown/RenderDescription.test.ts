import { describe, expect, it } from "@effect/vitest"
import { escapeHtml, renderDescription } from "../../src/markdown/Description.ts"

describe("renderDescription", () => {
  it("renders blank descriptions as nothing", () => {
    expect(renderDescription("")).toBe("")
    expect(renderDescription("   \n  ")).toBe("")
  })

  it("renders Markdown like a message", () => {
    expect(renderDescription("  **Team** chat: see https://example.com :tada:")).toBe(
      "<p><strong>Team</strong> chat: see <a href=\"https://example.com\">https://example.com</a> " +
        "<span aria-label=\"tada\" class=\"emoji emoji-1f389\" role=\"img\" title=\"tada\">:tada:</span></p>"
    )
  })

  it("resolves no names and adds no previews", () => {
    expect(renderDescription("@**Someone** #**general** https://example.com/logo.png")).toBe(
      "<p>@<strong>Someone</strong> #<strong>general</strong> " +
        "<a href=\"https://example.com/logo.png\">https://example.com/logo.png</a></p>"
    )
  })

  it("escapes HTML and unsafe links", () => {
    expect(renderDescription("<script>alert('x')</script> [a](javascript:alert(1))")).toBe(
      "<p>&lt;script&gt;alert('x')&lt;/script&gt; [a](javascript:alert(1))</p>"
    )
  })

  it("keeps escapeHtml for plain text", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  })
})
