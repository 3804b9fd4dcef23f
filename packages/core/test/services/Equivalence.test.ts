/**
 * Model-based equivalence of the persistence backends: random command
 * sequences (valid and invalid) run through the services on the in-memory
 * backend and on SQL (PGlite, PostgreSQL) must give the same result for
 * every command (errors included) and the same observable state afterwards
 * (the runner: `equivalence/Runner.ts`). The commands, one file per area in
 * `equivalence/`: the organization (users, groups, channels,
 * subscriptions), messages (sends, fetches, flags, scheduled messages),
 * message actions (edits and moves, deletion, reactions, muting, marking
 * read, submessages, topics; in their own script kind only, to keep the
 * suite's time),
 * presence, drafts, saved snippets, invitations, push devices, user status,
 * custom profile fields (and their values) and user groups.
 *
 * One script kind draws from every area; the others are each about a few
 * areas, over an organization where most commands can succeed, and count
 * that each of their commands succeeded in enough runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { propertySeed } from "../support/Properties.ts"
import { drafts } from "./equivalence/Drafts.ts"
import { invitations } from "./equivalence/Invitations.ts"
import { messageActions, messageActionsMustSucceed } from "./equivalence/MessageActions.ts"
import { messaging, messagingMustSucceed } from "./equivalence/Messaging.ts"
import { organization } from "./equivalence/Organization.ts"
import { presence } from "./equivalence/Presence.ts"
import { profileFields } from "./equivalence/ProfileFields.ts"
import { pushDevices } from "./equivalence/PushDevices.ts"
import type { Area, Command, Scripts } from "./equivalence/Runner.ts"
import { busyScenario, equivalence, memory, runOn, runs, scenario, tagOf, weightedCommand } from "./equivalence/Runner.ts"
import { savedSnippets } from "./equivalence/SavedSnippets.ts"
import { userGroups } from "./equivalence/UserGroups.ts"
import { userStatus } from "./equivalence/UserStatus.ts"

const everyArea: ReadonlyArray<Area> = [
  organization,
  messaging,
  presence,
  drafts,
  savedSnippets,
  invitations,
  pushDevices,
  userStatus,
  profileFields,
  userGroups
]

const tagsOf = (areas: ReadonlyArray<Area>) => areas.flatMap((area) => area.commands.map(([, schema]) => tagOf(schema)))

/** Changes of people among the commands of a focused script: who may act changes under it. */
const peopleChanges = ["ChangeRole", "Deactivate", "Reactivate"]

/** A focused script kind: some areas' commands (and changes of people), each of them to be reached. */
const focused = (label: string, areas: ReadonlyArray<Area>, reach: ReadonlyArray<string>, prefix: ReadonlyArray<Command> = []): Scripts => ({
  label,
  areas: [organization, ...areas],
  setup: busyScenario,
  script: Arbitrary.array(
    weightedCommand([organization, ...areas], new Set([...tagsOf(areas), ...peopleChanges])),
    { minLength: 30, maxLength: 45 }
  ).pipe(Arbitrary.map((script): ReadonlyArray<Command> => [...prefix, ...script])),
  // Each command succeeded in at least one script of ten.
  reach: { labels: reach, share: 0.1 }
})

const any: Scripts = {
  label: "any commands",
  areas: everyArea,
  setup: scenario,
  script: Arbitrary.array(weightedCommand(everyArea), { minLength: 3, maxLength: 15 })
}

/**
 * Scripts about messages: an organization with people in a public channel
 * (so most sends, flags and schedules can succeed), then messaging commands
 * with a few changes of membership and status among them.
 */
const messages: Scripts = {
  label: "messages, flags, scheduled messages",
  areas: [organization, messaging],
  setup: busyScenario,
  script: Arbitrary.array(
    weightedCommand(
      [organization, messaging],
      new Set([...tagsOf([messaging]), "Subscribe", "Unsubscribe", "Deactivate", "Reactivate", "CreateChannel"])
    ),
    { minLength: 20, maxLength: 30 }
  ).pipe(Arbitrary.map((script): ReadonlyArray<Command> => [
    // Something to edit and delete from the start: two messages due in 60 hours.
    { _tag: "Schedule", sender: 0, toChannel: true, channel: 0, recipients: [], content: 0, inMinutes: 3 },
    { _tag: "Schedule", sender: 1, toChannel: false, channel: 0, recipients: [0], content: 1, inMinutes: 3 },
    // And one due in a minute, for the first delivery.
    { _tag: "Schedule", sender: 2, toChannel: true, channel: 0, recipients: [], content: 2, inMinutes: 1 },
    ...script
  ])),
  reach: { labels: messagingMustSucceed, share: 0.2 }
}

/**
 * Scripts about what people do with sent messages: a busy organization, a
 * few messages in four topics of its public channel, a direct message, a
 * poll, a reaction, a mute and a resolved topic, then edits, moves, deletions, reactions, muting, reads, votes and
 * topic lists (with sends, changes of people and of membership among them).
 */
const messageActionScripts: Scripts = {
  label: "edits, moves, deletion, reactions, muting, reads, submessages, topics",
  areas: [organization, messaging, messageActions],
  setup: busyScenario,
  script: Arbitrary.array(
    weightedCommand(
      [organization, messaging, messageActions],
      new Set([...tagsOf([messageActions]), "Send", "Subscribe", "Unsubscribe", "CreateChannel", "AdvanceClock", ...peopleChanges])
    ),
    { minLength: 20, maxLength: 30 }
  ).pipe(Arbitrary.map((script): ReadonlyArray<Command> => [
    { _tag: "Send", sender: 0, toChannel: true, channel: 0, recipients: [], topic: 0, content: 0 },
    { _tag: "Send", sender: 1, toChannel: true, channel: 0, recipients: [], topic: 0, content: 1 },
    { _tag: "Send", sender: 2, toChannel: true, channel: 0, recipients: [], topic: 1, content: 2 },
    { _tag: "Send", sender: 0, toChannel: true, channel: 0, recipients: [], topic: 0, content: 4 },
    { _tag: "Send", sender: 1, toChannel: false, channel: 0, recipients: [0], topic: 0, content: 0 },
    { _tag: "SendToTopic", sender: 1, channel: 0, kind: 0, topic: 2 },
    { _tag: "SendToTopic", sender: 2, channel: 0, kind: 3, topic: 3 },
    { _tag: "React", by: 0, message: 0, emoji: 0 },
    { _tag: "MuteUser", user: 1, target: 2 },
    // A resolved topic from the start, for the first unresolve.
    { _tag: "ResolveTopic", by: 0, message: 0, again: 0, mode: 2, notifyNew: true },
    ...script
  ])),
  // A deeper search (TEAMCHAT_EQUIVALENCE_RUNS, e.g. 40) must see every command of the area succeed
  // (in one script of twenty);
  // the few default runs, the commands that succeed in most scripts.
  reach: {
    labels: process.env.TEAMCHAT_EQUIVALENCE_RUNS === undefined
      ? ["SendToTopic", "EditContent", "ResolveTopic", "React", "Unreact", "MuteUser", "MessagePolicy"]
      : messageActionsMustSucceed,
    // Mark-topic-read succeeds only for a user with messages in the topic: in about one script of ten.
    share: 0.05
  }
}

const personal = focused(
  "presence, drafts, snippets, push devices, status",
  [presence, drafts, savedSnippets, pushDevices, userStatus],
  [
    "Ping",
    "CreateDraft",
    "EditDraft",
    "DeleteDraft",
    "CreateSnippet",
    "EditSnippet",
    "DeleteSnippet",
    "DeviceRegistered",
    "DeviceRefusedByBouncer",
    "SetStatus",
    "SetOthersStatus"
  ],
  // A draft and a snippet of the owner's from the start, for the first edits.
  [
    { _tag: "CreateDraft", user: 0, kind: 0, channel: 0, recipients: [], topic: 1, content: 0, time: 0 },
    { _tag: "CreateSnippet", user: 0, title: 0, content: 0 }
  ]
)

const administration = focused(
  "invitations, profile fields, user groups",
  [invitations, profileFields, userGroups],
  [
    "Invite",
    "RevokeInvite",
    "JoinByInvite",
    "CreateField",
    "ReorderFields",
    "UpdateField",
    "DeleteField",
    "SetProfileValues",
    "CreateUserGroup",
    "EditUserGroup",
    "UserGroupMembers",
    "UserGroupSubgroups",
    "DeactivateUserGroup"
  ],
  // The owner makes a field, two groups and a link first, so that edits have something to act on from the start.
  [
    { _tag: "CreateField", by: 0, type: 0, name: 0, summary: false },
    { _tag: "CreateUserGroup", by: 0, name: 2, members: [0, 1], subgroups: [] },
    { _tag: "CreateUserGroup", by: 0, name: 0, members: [2], subgroups: [] },
    { _tag: "Invite", user: 0, as: 400, expires: 1, channels: [0] }
  ]
)

describe("Equivalence", () => {
  equivalence("PGlite", () => TestDatabase.pgliteMigratedLayer(), any, runs(25))
  equivalence("PGlite", () => TestDatabase.pgliteMigratedLayer(), messages, runs(10))
  equivalence("PGlite", () => TestDatabase.pgliteMigratedLayer(), messageActionScripts, runs(6))
  equivalence("PGlite", () => TestDatabase.pgliteMigratedLayer(), personal, runs(15))
  equivalence("PGlite", () => TestDatabase.pgliteMigratedLayer(), administration, runs(15))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), any, runs(15))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), messages, runs(8))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), messageActionScripts, runs(4))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), personal, runs(10))
  equivalence("PostgreSQL", () => TestDatabase.postgresLayer(), administration, runs(10))
})

/** Sanity of the model itself: memory runs are repeatable and start from nothing, so shrinking is sound. */
describe("Equivalence model", () => {
  it.live.prop(
    "two memory runs of the same script agree",
    { setup: scenario, script: any.script },
    ({ script, setup }) =>
      Effect.gen(function*() {
        const first = yield* runOn(memory(), everyArea, setup, script)
        const second = yield* runOn(memory(), everyArea, setup, script)
        assert.deepStrictEqual(second, first)
        assert.strictEqual(first.state.realm.id, 1)
        assert.strictEqual((first.state.byArea.organization as { owner: ReadonlyArray<{ user_id: number }> }).owner[0]!.user_id, 1)
      }),
    { timeout: 120_000, arbitrary: { runs: runs(30), seed: propertySeed } }
  )
})
