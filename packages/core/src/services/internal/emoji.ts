/**
 * Zulip's emoji checks (`zerver/lib/emoji.py`), shared by statuses and
 * reactions: a name looked up alone, and a full triple checked against
 * itself. No custom emoji can be uploaded yet, so a name is `zulip` or one
 * of the table's Unicode names, and every `realm_emoji` triple is refused.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { emojiCode, emojiName, ZulipExtraEmoji } from "../../domain/Emoji.ts"
import type { ReactionType } from "../../domain/Emoji.ts"
import {
  EmojiDoesNotExist,
  InvalidCustomEmoji,
  InvalidEmojiCode,
  InvalidEmojiName,
  InvalidEmojiType
} from "../../errors/Errors.ts"

/** Zulip's `get_emoji_data`: the emoji a name stands for. */
export const lookupEmoji = (name: string): Effect.Effect<{ code: string; type: ReactionType }, EmojiDoesNotExist> => {
  if (name === ZulipExtraEmoji) return Effect.succeed({ code: ZulipExtraEmoji, type: "zulip_extra_emoji" })
  const code = emojiCode(name)
  return code === undefined ? Effect.fail(new EmojiDoesNotExist({ emoji_name: name })) : Effect.succeed({ code, type: "unicode_emoji" })
}

/** Zulip's `check_emoji_request`: the triple must name one emoji of its namespace. */
export const checkEmojiTriple = (
  name: string,
  code: string,
  type: string
): Effect.Effect<ReactionType, InvalidCustomEmoji | InvalidEmojiCode | InvalidEmojiName | InvalidEmojiType> => {
  switch (type) {
    case "realm_emoji":
      // There are no custom emoji to match.
      return Effect.fail(new InvalidCustomEmoji())
    case "zulip_extra_emoji":
      if (code !== ZulipExtraEmoji) return Effect.fail(new InvalidEmojiCode())
      return name === code ? Effect.succeed(type) : Effect.fail(new InvalidEmojiName())
    case "unicode_emoji":
      if (emojiName(code) === undefined) return Effect.fail(new InvalidEmojiCode())
      return emojiCode(name) === code ? Effect.succeed(type) : Effect.fail(new InvalidEmojiName())
    default:
      return Effect.fail(new InvalidEmojiType())
  }
}
