/**
 * One render from source to HTML and findings, in Zulip's order: line
 * clean-ups, fenced blocks, Markdown, then the fenced blocks' HTML put back.
 * Blank input renders to nothing.
 *
 * @internal
 */
import { zulipMarkdown } from "./engine.ts"
import { processFencedBlocks } from "./fencedBlocks.ts"
import { Placeholders, stripMarkers } from "./placeholders.ts"
import type { Rendered, RenderContext } from "./shapes.ts"
import type { Directory, RenderState } from "./renderState.ts"
import { buildDirectory, stateEnv } from "./renderState.ts"
import { alignListItems, normalizeLines, separateHangingLists } from "./sourceLines.ts"

// The public shapes (Markdown.ts) are the pipeline's input and output.
export type Context = RenderContext
export type Findings = Rendered

/** Lookups are rebuilt only when a new context object is passed. */
const directories = new WeakMap<Context, Directory>()

const directoryFor = (context: Context): Directory => {
  let directory = directories.get(context)
  if (directory === undefined) {
    directory = buildDirectory(context)
    directories.set(context, directory)
  }
  return directory
}

export const renderMarkdown = (content: string, context: Context, options: { readonly previews: boolean }): Findings => {
  const state: RenderState = {
    directory: directoryFor(context),
    previews: options.previews,
    inQuote: false,
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    channelWildcard: false,
    topicWildcard: false,
    hasLink: false,
    hasImage: false,
    hasAttachment: false
  }
  const source = stripMarkers(content).replace(/\r\n?/g, "\n")
  let html = ""
  if (source.trim() !== "") {
    const placeholders = new Placeholders()
    const lines = alignListItems(
      processFencedBlocks(normalizeLines(separateHangingLists(source.split("\n"))), placeholders)
    )
    html = placeholders.restore(zulipMarkdown().render(lines.join("\n"), stateEnv(state))).trim()
  }
  return {
    html,
    mentionedUserIds: state.mentionedUserIds,
    mentionedGroupIds: state.mentionedGroupIds,
    channelWildcard: state.channelWildcard,
    topicWildcard: state.topicWildcard,
    hasLink: state.hasLink,
    hasImage: state.hasImage,
    hasAttachment: state.hasAttachment
  }
}
