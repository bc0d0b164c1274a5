import { escapeHtml } from '../shared/escape-html.js';

/** Markup that is already safe to send: built by `markup` or marked by `raw`, never from input. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** What may be interpolated: text (escaped), safe markup, lists of either, or nothing. */
export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

/**
 * Builds markup from a template in which every interpolated value is escaped unless it is
 * SafeHtml. Pages are made only with this, so no user-supplied text can become markup.
 */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Marks a constant string as markup; never call it with anything derived from a request. */
export function raw(trusted: string): SafeHtml {
  return new SafeHtml(trusted);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}
