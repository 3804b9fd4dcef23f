/**
 * What one render knows and gathers: name lookups built from the render
 * context, whether the text being parsed is quoted (quoted mentions are
 * silent), and the mentions and flags found so far. It travels in
 * markdown-it's `env`, which every rule receives.
 *
 * @internal
 */

export interface MentionableUser {
  readonly id: number
  readonly full_name: string
  readonly is_active: boolean
}

export interface MentionableGroup {
  readonly id: number
  readonly name: string
  readonly deactivated: boolean
}

export interface LinkableChannel {
  readonly id: number
  readonly name: string
}

export interface Directory {
  readonly usersByName: ReadonlyMap<string, MentionableUser>
  readonly usersById: ReadonlyMap<number, MentionableUser>
  readonly groupsByName: ReadonlyMap<string, MentionableGroup>
  readonly channelsByName: ReadonlyMap<string, LinkableChannel>
}

export interface RenderState {
  readonly directory: Directory
  /** Whether inline image and video previews are added (not for descriptions). */
  readonly previews: boolean
  /** Set while parsing text inside a blockquote. */
  inQuote: boolean
  readonly mentionedUserIds: Set<number>
  readonly mentionedGroupIds: Set<number>
  channelWildcard: boolean
  topicWildcard: boolean
  hasLink: boolean
  hasImage: boolean
  hasAttachment: boolean
}

const key = Symbol.for("teamchat/markdown/renderState")

export const stateEnv = (state: RenderState): Record<symbol, unknown> => ({ [key]: state })

export const renderState = (env: Record<string | symbol, unknown>): RenderState => {
  const state = env[key]
  if (state === undefined) throw new Error("markdown: rendered without a render state")
  return state as RenderState
}

/**
 * Case-insensitive name lookups. When two users share a name the first one
 * listed wins; senders disambiguate with `@**Name|id**`. Channel names match
 * exactly, as the server looks them up.
 */
export const buildDirectory = (context: {
  readonly users: ReadonlyArray<MentionableUser>
  readonly groups: ReadonlyArray<MentionableGroup>
  readonly channels: ReadonlyArray<LinkableChannel>
}): Directory => {
  const usersByName = new Map<string, MentionableUser>()
  const usersById = new Map<number, MentionableUser>()
  for (const user of context.users) {
    const name = user.full_name.toLowerCase()
    if (!usersByName.has(name)) usersByName.set(name, user)
    usersById.set(user.id, user)
  }
  const groupsByName = new Map<string, MentionableGroup>()
  for (const group of context.groups) {
    const name = group.name.toLowerCase()
    if (!groupsByName.has(name)) groupsByName.set(name, group)
  }
  const channelsByName = new Map<string, LinkableChannel>()
  for (const channel of context.channels) {
    if (!channelsByName.has(channel.name)) channelsByName.set(channel.name, channel)
  }
  return { usersByName, usersById, groupsByName, channelsByName }
}
