/**
 * The renderer's input and output, defined here so that the pipeline and the
 * public module (Markdown.ts, which re-exports them) both import downward.
 *
 * @internal
 */
export interface RenderContext {
  /** Mentionable users of the organization (active and deactivated). */
  readonly users: ReadonlyArray<{ readonly id: number; readonly full_name: string; readonly is_active: boolean }>
  /**
   * User groups that can be mentioned by name (non-system groups). A
   * deactivated group's mention renders silently and notifies no one.
   */
  readonly groups: ReadonlyArray<{ readonly id: number; readonly name: string; readonly deactivated: boolean }>
  /** Channels the sender can see, for #**channel** and #**channel>topic** links. */
  readonly channels: ReadonlyArray<{ readonly id: number; readonly name: string }>
}

export interface Rendered {
  readonly html: string
  /** Users mentioned non-silently (@**Name**), sets their `mentioned` flag. */
  readonly mentionedUserIds: ReadonlySet<number>
  /** Groups mentioned non-silently (@*group*). */
  readonly mentionedGroupIds: ReadonlySet<number>
  /** @**all**, @**everyone**, @**channel**, @**stream** (non-silent). */
  readonly channelWildcard: boolean
  /** @**topic** (non-silent). */
  readonly topicWildcard: boolean
  readonly hasLink: boolean
  readonly hasImage: boolean
  readonly hasAttachment: boolean
}
