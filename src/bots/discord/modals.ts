import {
  ComponentType,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
  type APIModalSubmissionComponent,
} from 'discord.js';
import { formatWallClock, parseWallClock, wallClockAt, wallClockToUtc } from './wall-clock.js';

/** What a form is for; its custom id is `postdeck:<form>:<post id>`. */
export type CardForm = 'schedule-form' | 'edit-form';

export const FIELDS = { at: 'at', caption: 'caption' } as const;

export function parseFormId(customId: string): { form: CardForm; postId: string } | null {
  const match = /^postdeck:(schedule-form|edit-form):(.+)$/.exec(customId);
  return match ? { form: match[1] as CardForm, postId: match[2]! } : null;
}

/**
 * The Schedule form. Discord has no date picker, so the time is typed as YYYY-MM-DD HH:MM and read
 * in the link's time zone (set with `/postdeck timezone`), prefilled with the next quarter hour an
 * hour from now.
 */
export function scheduleModal(postId: string, zone: string, now: Date): APIModalInteractionResponseCallbackData {
  const long = `Publish at (YYYY-MM-DD HH:MM, ${zone})`;
  return {
    custom_id: `postdeck:schedule-form:${postId}`,
    title: 'Schedule the post',
    components: [
      {
        type: ComponentType.Label,
        // A label holds 45 characters; a long zone name moves to the description.
        label: long.length <= 45 ? long : 'Publish at (YYYY-MM-DD HH:MM)',
        description: `Read in ${zone} time; change it with /postdeck timezone.`.slice(0, 100),
        component: {
          type: ComponentType.TextInput,
          custom_id: FIELDS.at,
          style: TextInputStyle.Short,
          min_length: 12,
          max_length: 20,
          required: true,
          value: formatWallClock(wallClockAt(inAnHour(now).getTime(), zone)),
        },
      },
    ],
  };
}

/** The Edit caption form, filled with the caption as it stands. */
export function editModal(postId: string, caption: string, max: number): APIModalInteractionResponseCallbackData {
  return {
    custom_id: `postdeck:edit-form:${postId}`,
    title: 'Edit the caption',
    components: [
      {
        type: ComponentType.Label,
        label: 'Caption',
        component: {
          type: ComponentType.TextInput,
          custom_id: FIELDS.caption,
          style: TextInputStyle.Paragraph,
          max_length: max,
          required: true,
          ...(caption ? { value: caption.slice(0, max) } : {}),
        },
      },
    ],
  };
}

/** A text input's value from a submitted form, whichever layout it came in (labels or rows). */
export function submittedValue(components: APIModalSubmissionComponent[], customId: string): string {
  for (const part of components) {
    const inputs =
      part.type === ComponentType.Label
        ? [part.component]
        : part.type === ComponentType.ActionRow
          ? part.components
          : [];
    for (const input of inputs) {
      if (input.type === ComponentType.TextInput && input.custom_id === customId) return input.value;
    }
  }
  return '';
}

/** The instant a typed Schedule time names in `zone`, or why it cannot be used. */
export function scheduleTimeFrom(typed: string, zone: string, now: Date): { at: Date } | { problem: string } {
  const clock = parseWallClock(typed);
  if (!clock) {
    const example = formatWallClock(wallClockAt(inAnHour(now).getTime(), zone));
    return { problem: `Postdeck cannot read "${typed}" as a time: write it as YYYY-MM-DD HH:MM, e.g. ${example}.` };
  }
  const at = wallClockToUtc(clock, zone);
  if (at.getTime() <= now.getTime()) {
    return { problem: `${formatWallClock(clock)} in ${zone} has already passed; pick a time in the future.` };
  }
  return { at };
}

/** The next quarter hour at least an hour from now. */
function inAnHour(now: Date): Date {
  const quarter = 15 * 60_000;
  return new Date(Math.ceil((now.getTime() + 60 * 60_000) / quarter) * quarter);
}
