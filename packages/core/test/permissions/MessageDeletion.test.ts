/**
 * Who may delete a message (the rule DELETE /messages/{id} applies), as a
 * table: the organization's and the channel's groups, whose message it is,
 * and its age against `message_content_delete_limit_seconds`.
 */
import { assert, describe, it } from "@effect/vitest"
import type { GroupSettingValue } from "../../src/domain/GroupSetting.ts"
import { groupId, userId } from "../../src/domain/Ids.ts"
import { deletionDecision } from "../../src/permissions/MessageDeletion.ts"
import type { DeletionDecision, DeletionInput } from "../../src/permissions/MessageDeletion.ts"

const admins = groupId(1)
const everyone = groupId(2)
const nobody = groupId(3)
const me = userId(10)
const other = userId(11)
const myBot = userId(12)

/** The deleting user is in `everyone`, and in `admins` when `isAdmin`; a guest holds no "any" setting. */
const input = (over: Partial<DeletionInput> & { readonly isAdmin?: boolean; readonly guest?: boolean }): DeletionInput => ({
  userId: me,
  sender: { id: me, bot_owner_id: null },
  realm: { can_delete_any_message_group: admins, can_delete_own_message_group: everyone, message_content_delete_limit_seconds: 600 },
  channel: { can_delete_any_message_group: nobody, can_delete_own_message_group: everyone },
  holds: (value: GroupSettingValue, options) => {
    if (over.guest === true && !options.allowEveryoneGroup) return false
    return value === everyone || (value === admins && over.isAdmin === true)
  },
  ageSeconds: 10,
  ...over
})

const cases: ReadonlyArray<readonly [string, DeletionInput, DeletionDecision]> = [
  ["own message, just sent", input({}), "allowed"],
  ["own message at the limit exactly (no grace)", input({ ageSeconds: 600 }), "allowed"],
  ["own message past the limit", input({ ageSeconds: 600.5 }), "time_limit_passed"],
  ["own message past the limit, no limit set", input({ ageSeconds: 1e9, realm: { ...input({}).realm, message_content_delete_limit_seconds: null } }), "allowed"],
  ["someone else's message", input({ sender: { id: other, bot_owner_id: null } }), "not_permitted"],
  ["one's bot's message", input({ sender: { id: myBot, bot_owner_id: me } }), "allowed"],
  ["someone else's bot's message", input({ sender: { id: myBot, bot_owner_id: other } }), "not_permitted"],
  ["an administrator, someone else's old message", input({ isAdmin: true, sender: { id: other, bot_owner_id: null }, ageSeconds: 1e9 }), "allowed"],
  ["the channel's can_delete_any_message_group", input({ sender: { id: other, bot_owner_id: null }, channel: { can_delete_any_message_group: everyone, can_delete_own_message_group: nobody } }), "allowed"],
  ["a guest named in can_delete_any_message_group gets nothing from it", input({ guest: true, sender: { id: other, bot_owner_id: null }, channel: { can_delete_any_message_group: everyone, can_delete_own_message_group: nobody } }), "not_permitted"],
  ["own message, organization refuses, channel allows", input({ realm: { ...input({}).realm, can_delete_own_message_group: nobody } }), "allowed"],
  ["own message, neither allows", input({ realm: { ...input({}).realm, can_delete_own_message_group: nobody }, channel: { can_delete_any_message_group: nobody, can_delete_own_message_group: nobody } }), "not_permitted"],
  ["own direct message, organization refuses (no channel to allow it)", input({ realm: { ...input({}).realm, can_delete_own_message_group: nobody }, channel: undefined }), "not_permitted"],
  ["own message, not permitted comes before the time limit", input({ ageSeconds: 1e9, realm: { ...input({}).realm, can_delete_own_message_group: nobody }, channel: undefined }), "not_permitted"]
]

describe("deletionDecision", () => {
  for (const [name, given, expected] of cases) {
    it(name, () => assert.strictEqual(deletionDecision(given), expected))
  }
})
