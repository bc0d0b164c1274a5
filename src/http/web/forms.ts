import type { z } from 'zod';
import type { WorkspaceMembershipView } from '../../core/identity/memberships.js';
import { markup, raw, type SafeHtml } from './html.js';

/** The hidden CSRF field every form posts (see csrf.ts). */
export function csrfField(token: string): SafeHtml {
  return hidden('_csrf', token);
}

/** A hidden input. */
export function hidden(name: string, value: string): SafeHtml {
  return markup`<input type="hidden" name="${name}" value="${value}" />`;
}

/** One labelled input with its hint and error tied to it for screen readers. */
export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  value?: string | undefined;
  error?: string | undefined;
  hint?: string | undefined;
  autocomplete?: string | undefined;
  required?: boolean;
  disabled?: boolean;
  minlength?: number;
  maxlength?: number;
  /** The id of a <datalist> with suggestions. */
  list?: string;
  /** Monospaced, upper-case entry, for codes. */
  code?: boolean;
}

// Codes are typed in capitals, and spell-checking them only gets in the way.
const CODE_INPUT = raw(' class="code" autocapitalize="characters" spellcheck="false"');

/** A labelled text, email or password input. */
export function inputField(spec: FieldSpec): SafeHtml {
  const id = `f-${spec.name}`;
  return markup`<div class="field${spec.error ? ' invalid' : ''}">
    <label for="${id}">${spec.label}</label>${describe(spec)}
    <input
      id="${id}"
      name="${spec.name}"
      type="${spec.type ?? 'text'}"
      ${spec.value === undefined ? '' : markup` value="${spec.value}"`}${attributes(spec)}${spec.code ? CODE_INPUT : ''}
    />
  </div>`;
}

/** A labelled multi-line input. */
export function textareaField(spec: FieldSpec & { rows: number }): SafeHtml {
  const id = `f-${spec.name}`;
  return markup`<div class="field${spec.error ? ' invalid' : ''}">
    <label for="${id}">${spec.label}</label>${describe(spec)}
    <textarea id="${id}" name="${spec.name}" rows="${spec.rows}" ${attributes(spec)}>${spec.value ?? ''}</textarea>
  </div>`;
}

/** A labelled select of fixed options. */
export function selectField(
  spec: Omit<FieldSpec, 'type'> & { options: readonly { value: string; label: string }[] },
): SafeHtml {
  const id = `f-${spec.name}`;
  const options = spec.options.map(
    (o) => markup`<option value="${o.value}" ${o.value === spec.value ? raw(' selected') : ''}>${o.label}</option>`,
  );
  return markup`<div class="field${spec.error ? ' invalid' : ''}">
    <label for="${id}">${spec.label}</label>${describe(spec)}
    <select id="${id}" name="${spec.name}" ${attributes(spec)}>
      ${options}
    </select>
  </div>`;
}

/**
 * A message above a form. Errors are announced at once (role=alert, aria-live assertive);
 * confirmations politely, so a screen reader does not cut off what it is reading.
 */
export function notice(message: string | undefined, kind: 'error' | 'success' | 'info' = 'error'): SafeHtml {
  if (!message) return markup``;
  if (kind === 'error') return markup`<div class="notice error" role="alert" aria-live="assertive">${message}</div>`;
  return markup`<div class="notice ${kind}" role="status" aria-live="polite">${message}</div>`;
}

/** How long to wait, in words, for a `rate_limited` error's Retry-After seconds. */
export function waitText(seconds: number | undefined): string {
  if (seconds === undefined) return 'a few minutes';
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** The first message for each top-level field of a failed parse, for showing beside the inputs. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '_form');
    errors[key] ??= sentence(issue.message);
  }
  return errors;
}

function sentence(message: string): string {
  const text = message.replace(/^Invalid input: /, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function describe(spec: FieldSpec): SafeHtml {
  return markup`${spec.hint ? markup`<p class="hint" id="f-${spec.name}-hint">${spec.hint}</p>` : ''}${
    spec.error ? markup`<p class="field-error" id="f-${spec.name}-error">${spec.error}</p>` : ''
  }`;
}

function attributes(spec: FieldSpec): SafeHtml {
  const describedBy = [spec.hint && `f-${spec.name}-hint`, spec.error && `f-${spec.name}-error`]
    .filter(Boolean)
    .join(' ');
  const pairs: [string, string | number | undefined][] = [
    ['autocomplete', spec.autocomplete],
    ['minlength', spec.minlength],
    ['maxlength', spec.maxlength],
    ['list', spec.list],
    ['aria-describedby', describedBy || undefined],
  ];
  const flags = [spec.required && 'required', spec.disabled && 'disabled', spec.error && 'aria-invalid="true"'];
  return markup`${pairs.map(([name, value]) => (value === undefined ? '' : markup` ${name}="${value}"`))}${flags
    .filter((flag): flag is string => typeof flag === 'string')
    .map((flag) => raw(` ${flag}`))}`;
}

/** One required radio per workspace of the person's (the device and OAuth consent pages), `selected` checked. */
export function workspaceChoices(workspaces: WorkspaceMembershipView[], selected: string): SafeHtml[] {
  return workspaces.map(
    (w) =>
      markup`<label class="choice"
        ><input
          type="radio"
          name="workspaceId"
          value="${w.workspaceId}"
          ${w.workspaceId === selected ? raw(' checked') : ''}
          required
        /><span>${w.name}<small>${w.role === 'owner' ? 'Owner' : 'Member'}</small></span></label
      >`,
  );
}
