/**
 * The channels the message rows are tried on: one every principal is
 * subscribed to, a public one and a private one no principal is in (the
 * guest's cases: Zulip's guests reach only channels they are subscribed to,
 * public or not). A row's cases share its channel, since each principal
 * changes only its own part (its flags, its subscription, its messages).
 */
import type * as Effect from "effect/Effect"
import type { ChannelFixture, Fixture } from "./Table.ts"
import { principals } from "./Table.ts"

export type ChannelKind = "subscribed" | "public" | "private"

export const channelKinds: ReadonlyArray<ChannelKind> = ["subscribed", "public", "private"]

export const kindScenario: Record<ChannelKind, string> = {
  subscribed: "on a channel it is subscribed to",
  public: "on a public channel it is not in",
  private: "on a private channel it is not in"
}

const everyPrincipal = principals.filter((p) => p !== "anonymous" && p !== "deactivated") as ReadonlyArray<
  "owner" | "admin" | "moderator" | "member" | "guest" | "bot"
>

/** The row's channel of this kind, made on its first case (its message: by the owner, else by the bystander). */
export const rowChannel = (fixture: Fixture, row: string, kind: ChannelKind): Effect.Effect<ChannelFixture> =>
  fixture.once(
    `${row}: ${kind}`,
    kind === "subscribed"
      ? fixture.channel(everyPrincipal)
      : fixture.channel(["bystander"], { inviteOnly: kind === "private" })
  )
