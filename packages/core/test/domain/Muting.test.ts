/**
 * Zulip's `is_row_muted` for unread counts, over every channel state and
 * topic policy (none, muted, unmuted, followed).
 */
import { assert, describe, it } from "@effect/vitest"
import { isMutedTopic, isVisibilityPolicy, topicKey, VisibilityPolicy } from "../../src/domain/Muting.ts"

describe("muted topics", () => {
  const table: ReadonlyArray<readonly [channelMuted: boolean, policy: VisibilityPolicy | undefined, muted: boolean]> = [
    [false, undefined, false],
    [false, VisibilityPolicy.muted, true],
    [false, VisibilityPolicy.unmuted, false],
    [false, VisibilityPolicy.followed, false],
    [true, undefined, true],
    [true, VisibilityPolicy.muted, true],
    [true, VisibilityPolicy.unmuted, false],
    [true, VisibilityPolicy.followed, false]
  ]
  it("a topic is muted by its own policy, or by its channel's unless unmuted or followed", () => {
    for (const [channelMuted, policy, muted] of table) {
      assert.strictEqual(isMutedTopic(channelMuted, policy), muted, `channel muted: ${channelMuted}, policy: ${policy}`)
    }
  })

  it("policies are 0 to 3; topics are keyed by channel and lower-cased name", () => {
    assert.deepStrictEqual([-1, 0, 1, 2, 3, 4].filter(isVisibilityPolicy), [0, 1, 2, 3])
    assert.strictEqual(topicKey(7, "Castle"), topicKey(7, "cASTLE"))
    assert.notStrictEqual(topicKey(7, "castle"), topicKey(8, "castle"))
  })
})
