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
import type { Directory, LinkableChannel, MentionableGroup, MentionableUser, RenderState } from "./renderState.ts"
import { buildDirectory, stateEnv } from "./renderState.ts"
import { alignListItems, normalizeLines, separateHangingLists } from "./sourceLines.ts"

export interface Context {
  readonly users: ReadonlyArray<MentionableUser>
  readonly groups: ReadonlyArray<MentionableGroup>
  readonly channels: ReadonlyArray<LinkableChannel>
}

export interface Findings {
  readonly html: string
  readonly mentionedUserIds: ReadonlySet<number>
  readonly mentionedGroupIds: ReadonlySet<number>
  readonly channelWildcard: boolean
  readonly topicWildcard: boolean
  readonly hasLink: boolean
  readonly hasImage: boolean
  readonly hasAttachment: boolean
}

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
