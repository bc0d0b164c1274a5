import { emptyMessage, FormErrors } from './errors.js';
import type { MessageContent } from './state.js';

type Json = Record<string, unknown>;

const ACTION_ROW = 1;
const BUTTON = 2;
const TEXT_INPUT = 4;
const LABEL = 18;
const LINK_STYLE = 5;

/**
 * Checks a message body against Discord's documented limits (content 2000, 10 embeds of at most
 * 6000 characters together, 25 fields, 5 rows of 5 buttons, custom ids 100, labels 80) and
 * answers what it would store. Throws Discord's 50035 Invalid Form Body, or 50006 when empty.
 */
export function checkedMessage(body: Json, previous?: MessageContent): MessageContent {
  const errors = new FormErrors();
  // In a PATCH, a field left out keeps its value and null clears it.
  const content = body.content === undefined ? previous?.content : (body.content ?? '');
  if (content !== undefined && typeof content !== 'string')
    errors.add(['content'], 'STRING_TYPE_CONVERT', 'Must be a string.');
  errors.maxLength(['content'], content, 2000);
  const embeds = listOr(body.embeds, previous?.embeds, ['embeds'], errors);
  const components = listOr(body.components, previous?.components, ['components'], errors);
  if (embeds.length > 10) errors.add(['embeds'], 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  let total = 0;
  embeds.forEach((embed, index) => (total += checkEmbed(embed as Json, ['embeds', index], errors)));
  if (total > 6000) errors.add(['embeds'], 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
  if (components.length > 5) errors.add(['components'], 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
  components.forEach((row, index) => checkButtonRow(row as Json, ['components', index], errors));
  errors.throwIfAny();
  const text = typeof content === 'string' ? content : '';
  if (!text && embeds.length === 0) throw emptyMessage();
  const flags = typeof body.flags === 'number' ? body.flags : (previous?.flags ?? 0);
  return { content: text, embeds, components, flags };
}

/** Checks a modal (an interaction response of type 9) against Discord's limits. */
export function checkModal(data: Json): FormErrors {
  const errors = new FormErrors();
  const at = (...path: (string | number)[]) => ['data', ...path];
  if (typeof data.custom_id !== 'string' || !data.custom_id)
    errors.add(at('custom_id'), 'BASE_TYPE_REQUIRED', 'This field is required');
  errors.maxLength(at('custom_id'), data.custom_id, 100);
  if (typeof data.title !== 'string' || !data.title)
    errors.add(at('title'), 'BASE_TYPE_REQUIRED', 'This field is required');
  errors.maxLength(at('title'), data.title, 45);
  const parts = Array.isArray(data.components) ? (data.components as Json[]) : [];
  if (parts.length < 1 || parts.length > 5) {
    errors.add(at('components'), 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
  }
  parts.forEach((part, index) => {
    const path = at('components', index);
    if (part.type === LABEL) {
      errors.maxLength([...path, 'label'], part.label, 45);
      errors.maxLength([...path, 'description'], part.description, 100);
      const input = (part.component ?? {}) as Json;
      if (input.label !== undefined)
        errors.add([...path, 'component', 'label'], 'UNKNOWN_FIELD', 'A labelled input has no label of its own');
      checkTextInput(input, [...path, 'component'], errors);
    } else if (part.type === ACTION_ROW) {
      // Deprecated by Discord, still accepted: a row holding one text input with its own label.
      const inputs = Array.isArray(part.components) ? (part.components as Json[]) : [];
      inputs.forEach((input, i) => {
        errors.maxLength([...path, 'components', i, 'label'], input.label, 45);
        checkTextInput(input, [...path, 'components', i], errors);
      });
    } else errors.add([...path, 'type'], 'COMPONENT_TYPE_INVALID', 'A modal holds labels (or action rows)');
  });
  return errors;
}

function checkTextInput(input: Json, path: (string | number)[], errors: FormErrors): void {
  if (input.type !== TEXT_INPUT) errors.add([...path, 'type'], 'COMPONENT_TYPE_INVALID', 'Expected a text input');
  if (input.style !== 1 && input.style !== 2)
    errors.add([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2).');
  errors.maxLength([...path, 'custom_id'], input.custom_id, 100);
  errors.maxLength([...path, 'placeholder'], input.placeholder, 100);
  const max = typeof input.max_length === 'number' ? input.max_length : 4000;
  if (max > 4000)
    errors.add([...path, 'max_length'], 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 4000.');
  errors.maxLength([...path, 'value'], input.value, max);
}

function listOr(value: unknown, fallback: unknown[] | undefined, path: string[], errors: FormErrors): unknown[] {
  if (value === undefined) return fallback ?? [];
  if (value === null) return [];
  if (!Array.isArray(value)) {
    errors.add(path, 'BASE_TYPE_ARRAY', 'Must be an array.');
    return [];
  }
  return value;
}

/** Checks one embed and answers how many characters it counts toward the 6000. */
function checkEmbed(embed: Json, path: (string | number)[], errors: FormErrors): number {
  errors.maxLength([...path, 'title'], embed.title, 256);
  errors.maxLength([...path, 'description'], embed.description, 4096);
  const footer = (embed.footer ?? {}) as Json;
  errors.maxLength([...path, 'footer', 'text'], footer.text, 2048);
  const fields = Array.isArray(embed.fields) ? (embed.fields as Json[]) : [];
  if (fields.length > 25) errors.add([...path, 'fields'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  let size = length(embed.title) + length(embed.description) + length(footer.text);
  fields.forEach((field, index) => {
    errors.maxLength([...path, 'fields', index, 'name'], field.name, 256);
    errors.maxLength([...path, 'fields', index, 'value'], field.value, 1024);
    if (!length(field.name) || !length(field.value)) {
      errors.add([...path, 'fields', index], 'BASE_TYPE_REQUIRED', 'A field needs a name and a value.');
    }
    size += length(field.name) + length(field.value);
  });
  return size;
}

function checkButtonRow(row: Json, path: (string | number)[], errors: FormErrors): void {
  const buttons = Array.isArray(row.components) ? (row.components as Json[]) : [];
  if (row.type !== 1 || buttons.length < 1 || buttons.length > 5) {
    errors.add(path, 'BASE_TYPE_BAD_LENGTH', 'An action row holds 1 to 5 components.');
  }
  buttons.forEach((button, index) => {
    const at = [...path, 'components', index];
    if (button.type !== BUTTON) return;
    errors.maxLength([...at, 'label'], button.label, 80);
    errors.maxLength([...at, 'custom_id'], button.custom_id, 100);
    const isLink = button.style === LINK_STYLE;
    if (isLink && typeof button.url !== 'string')
      errors.add([...at, 'url'], 'BASE_TYPE_REQUIRED', 'This field is required');
    if (!isLink && typeof button.custom_id !== 'string') {
      errors.add([...at, 'custom_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
    }
  });
}

function length(value: unknown): number {
  return typeof value === 'string' ? value.trim().length : 0;
}
