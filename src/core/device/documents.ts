// Stored documents of the device flow (RFC 8628). Ids are UUID strings kept in `_id`.

/**
 * Where a device login was started: a device of its own (a terminal, an agent, an app), or a chat
 * bot's `/postdeck login`, which is its own RFC 8628 client. The verification page words its
 * answers for it ("go back to Slack").
 */
export type DeviceLoginOrigin = 'device' | 'slack' | 'discord';

/**
 * One RFC 8628 device authorization as issued, plus its poll state. The device code is stored
 * only as its SHA-256. The outcome lives apart, in `device_decisions`: on the emulator an
 * updateOne rewrites the whole document, so a poll recording `lastPolledAt` could otherwise
 * wipe out an approval written at the same moment.
 */
export interface DeviceCodeDoc {
  _id: string;
  deviceCodeHash: string;
  /** The 8 code characters, normalized (no prefix, no dash, upper-case). */
  userCode: string;
  prefix: string;
  clientName: string | null;
  /** Absent on codes issued before it was recorded: those are `device`. */
  origin?: DeviceLoginOrigin;
  /** Seconds the device must wait between polls; grows by 5 on each slow_down. */
  interval: number;
  lastPolledAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
}

/** How a device authorization was settled; `locked` means too many near-miss guesses. */
export type DeviceOutcome = 'approved' | 'denied' | 'locked';

/**
 * The outcome of a device authorization, `_id` = the device authorization's id. Inserted
 * once (the unique `_id` decides between approve, deny and lock racing); afterwards only the
 * one poll that won the redemption writes `redeemedAt` and `apiKeyId`.
 */
export interface DeviceDecisionDoc {
  _id: string;
  outcome: DeviceOutcome;
  /** For approvals: the workspace the key is scoped to. */
  workspaceId: string | null;
  accountId: string | null;
  /** The user who approved or denied; null for a lock. */
  decidedBy: string | null;
  decidedAt: Date;
  redeemedAt: Date | null;
  apiKeyId: string | null;
}

/** Reserves a user code among live codes: `_id` is the normalized code, so an insert decides. */
export interface DeviceUserCodeDoc {
  _id: string;
  deviceId: string;
  expiresAt: Date;
}
