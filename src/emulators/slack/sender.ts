import { createHmac } from 'node:crypto';

/** How to bend a request, for tests of what the app must refuse or tolerate. */
export interface SendOptions {
  /** Seconds since the epoch to sign with (Slack's clock); a stale one must be refused. */
  timestamp?: number;
  /** Sign with this secret instead (a forgery). */
  secret?: string;
  /** Slack's retry headers: the n-th retry of a delivery, and why. */
  retry?: { num: number; reason: string };
}

/**
 * Sends requests into an app as Slack does: slash commands and interactions form-encoded (an
 * interaction's JSON in `payload`), events as JSON, each signed with `v0=HMAC-SHA256(secret,
 * "v0:<timestamp>:<body>")` in X-Slack-Signature with X-Slack-Request-Timestamp.
 */
export class SlackSender {
  constructor(
    private readonly target: string,
    private readonly signingSecret: string,
  ) {}

  command(fields: Record<string, string>, options: SendOptions = {}): Promise<Response> {
    return this.send(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
  }

  interaction(payload: Record<string, unknown>, options: SendOptions = {}): Promise<Response> {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.send(body, 'application/x-www-form-urlencoded', options);
  }

  event(envelope: Record<string, unknown>, options: SendOptions = {}): Promise<Response> {
    return this.send(JSON.stringify(envelope), 'application/json', options);
  }

  private send(body: string, type: string, options: SendOptions): Promise<Response> {
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', options.secret ?? this.signingSecret)
      .update(`v0:${timestamp}:${body}`)
      .digest('hex');
    const headers: Record<string, string> = {
      'content-type': type,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': `v0=${signature}`,
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    };
    if (options.retry) {
      headers['x-slack-retry-num'] = String(options.retry.num);
      headers['x-slack-retry-reason'] = options.retry.reason;
    }
    return fetch(this.target, { method: 'POST', headers, body });
  }
}
