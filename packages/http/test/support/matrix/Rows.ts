/**
 * The authorization matrix's table: every row, by area. A new endpoint adds
 * its rows to its area's file (or a new file listed here).
 */
import { channelsRows } from "./Channels.ts"
import { composingRows } from "./Composing.ts"
import { draftsRows, savedSnippetsRows } from "./Drafts.ts"
import { eventsRows } from "./Events.ts"
import { invitationsRows } from "./Invitations.ts"
import { messagesRows } from "./Messages.ts"
import { mutingRows } from "./Muting.ts"
import { profileFieldsRows } from "./ProfileFields.ts"
import { presenceRows } from "./Presence.ts"
import { pushDevicesRows } from "./PushDevices.ts"
import { scheduledMessagesRows } from "./ScheduledMessages.ts"
import { serverRows } from "./Server.ts"
import { settingsRows } from "./Settings.ts"
import type { Row } from "./Table.ts"
import { uploadsRows } from "./Uploads.ts"
import { userGroupsRows } from "./UserGroups.ts"
import { usersRows } from "./Users.ts"
import { userStatusRows } from "./UserStatus.ts"

export const matrix: ReadonlyArray<Row> = [
  ...serverRows,
  ...usersRows,
  ...userStatusRows,
  ...profileFieldsRows,
  ...presenceRows,
  ...userGroupsRows,
  ...channelsRows,
  ...eventsRows,
  ...settingsRows,
  ...messagesRows,
  ...mutingRows,
  ...composingRows,
  ...scheduledMessagesRows,
  ...draftsRows,
  ...savedSnippetsRows,
  ...invitationsRows,
  ...pushDevicesRows,
  ...uploadsRows
]
