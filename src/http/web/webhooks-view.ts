import type { z } from 'zod';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../core/webhooks/documents.js';
import type { WebhookDeliverySchema, WebhookSchema } from '../../core/webhooks/schema.js';
import { csrfField, hidden, inputField, notice } from './forms.js';
import { markup, type SafeHtml } from './html.js';
import { when } from './layout.js';
import { renderTable } from './table.js';

type Delivery = z.infer<typeof WebhookDeliverySchema>;

export interface EndpointWithLog {
  endpoint: z.infer<typeof WebhookSchema>;
  deliveries: Delivery[];
}

/** What the add form shows: empty, or what was sent when it was refused. */
export interface AddForm {
  url: string;
  events: WebhookEvent[];
}

export interface WebhooksView {
  csrf: string;
  workspaceId: string;
  workspaceName: string;
  endpoints: EndpointWithLog[];
  form: AddForm;
  errors?: Record<string, string>;
  /** The new endpoint's signing secret, shown this once. */
  secret?: string;
  notice?: string;
}

const EVENT_HINTS: Record<WebhookEvent, string> = {
  'post.created': 'a draft or post was created',
  'post.published': 'a post went out on its network (TikTok or Instagram)',
  'post.failed': 'publishing a post failed for good',
  'generation.done': 'a slideshow generation finished',
  'generation.failed': 'a slideshow generation failed',
};

export function webhooksView(view: WebhooksView): SafeHtml {
  const errors = view.errors ?? {};
  return markup`<h1>Webhooks of ${view.workspaceName}</h1>
    ${notice(view.notice, 'success')}
    ${view.secret ? secretNotice(view.secret) : ''}
    ${notice(Object.keys(errors).length > 0 ? 'The endpoint was not added; see below.' : undefined)}
    <p class="muted">
      Postdeck POSTs each event to your endpoints, signed as the Standard Webhooks specification says, and retries a
      failed delivery with a growing wait for 24 hours.
    </p>
    ${view.endpoints.length === 0 ? markup`<div class="card"><p>No endpoints yet.</p></div>` : view.endpoints.map((entry) => endpointCard(entry, view))}
    <form method="post" action="/webhooks" class="card">
      <h2>Add an endpoint</h2>
      ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
      ${inputField({
        name: 'url',
        label: 'URL',
        value: view.form.url,
        error: errors.url,
        hint: 'https://…; addresses on a private network are refused unless the server allows them',
        required: true,
      })}
      <fieldset>
        <legend>Events</legend>
        ${errors.events ? markup`<p class="field-error">${errors.events}</p>` : ''}
        ${WEBHOOK_EVENTS.map(
          (event) => markup`<label class="choice">
            <input type="checkbox" name="event:${event}" value="on" ${view.form.events.includes(event) ? markup`checked` : ''} />
            <span><code>${event}</code><small>${EVENT_HINTS[event]}</small></span>
          </label>`,
        )}
      </fieldset>
      <div class="actions"><button type="submit" class="primary">Add endpoint</button></div>
    </form>`;
}

function secretNotice(secret: string): SafeHtml {
  return markup`<div class="notice success" role="status">
    <p><strong>The endpoint was added.</strong> Its signing secret, shown only now: verify deliveries with it.</p>
    <div class="secret">${secret}</div>
  </div>`;
}

function endpointCard({ endpoint, deliveries }: EndpointWithLog, view: WebhooksView): SafeHtml {
  return markup`<section class="card" aria-label="Endpoint ${endpoint.url}">
    <h2 class="endpoint-url"><code>${endpoint.url}</code></h2>
    <p class="muted">${endpoint.events.join(', ')} · added ${when(new Date(endpoint.createdAt))}</p>
    ${renderTable({
      caption: 'Last deliveries, newest first',
      empty: markup`<p class="muted">Nothing delivered yet.</p>`,
      rows: deliveries,
      columns: [
        { header: 'Event', cell: (d: Delivery) => markup`<code>${d.event}</code>` },
        { header: 'Status', cell: (d: Delivery) => statusBadge(d) },
        { header: 'Attempts', cell: (d: Delivery) => String(d.attempt) },
        { header: 'Last answer', cell: (d: Delivery) => lastAnswer(d) },
        {
          header: 'Next attempt',
          cell: (d: Delivery) => when(d.nextAttemptAt ? new Date(d.nextAttemptAt) : null, '—'),
        },
        {
          header: 'Action',
          mutedHeader: true,
          cell: (
            d: Delivery,
          ) => markup`<form class="inline" method="post" action="/webhooks/${endpoint.id}/deliveries/${d.id}/redeliver">
            ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
            <button type="submit" class="small" aria-label="Redeliver ${d.event} ${d.id}">Redeliver</button>
          </form>`,
        },
      ],
    })}
    <div class="actions">
      <form class="inline" method="post" action="/webhooks/${endpoint.id}/test">
        ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
        <button type="submit" class="small" aria-label="Send a test event to ${endpoint.url}">Send test event</button>
      </form>
      <form class="inline" method="post" action="/webhooks/${endpoint.id}/delete">
        ${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}
        <button type="submit" class="danger small" aria-label="Delete ${endpoint.url}">Delete</button>
      </form>
    </div>
  </section>`;
}

function statusBadge(delivery: Delivery): SafeHtml {
  if (delivery.status === 'delivered') return markup`<span class="badge done">Delivered</span>`;
  if (delivery.status === 'failed') return markup`<span class="badge off">Failed</span>`;
  return markup`<span class="badge queue">Pending</span>`;
}

function lastAnswer(delivery: Delivery): SafeHtml | string {
  if (delivery.statusCode !== null) return `HTTP ${delivery.statusCode}`;
  if (delivery.error) return markup`<span class="muted">${delivery.error}</span>`;
  return markup`<span class="muted">—</span>`;
}
