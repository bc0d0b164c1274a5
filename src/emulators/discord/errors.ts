/** An error as Discord's REST API answers it: an HTTP status and `{ message, code[, errors] }`. */
export class DiscordError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Record<string, unknown>,
  ) {
    super(message);
  }

  get body(): Record<string, unknown> {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) };
  }
}

export const unauthorized = () => new DiscordError(401, 0, '401: Unauthorized');
export const unknownWebhook = () => new DiscordError(404, 10015, 'Unknown Webhook');
export const unknownMessage = () => new DiscordError(404, 10008, 'Unknown Message');
export const unknownChannel = () => new DiscordError(404, 10003, 'Unknown Channel');
export const unknownInteraction = () => new DiscordError(404, 10062, 'Unknown interaction');
export const unknownApplication = () => new DiscordError(404, 10002, 'Unknown Application');
export const alreadyAcknowledged = () => new DiscordError(400, 40060, 'Interaction has already been acknowledged.');
export const emptyMessage = () => new DiscordError(400, 50006, 'Cannot send an empty message');
export const invalidJson = () => new DiscordError(400, 50109, 'The request body contains invalid JSON.');

/**
 * Collects field problems the way Discord reports them (code 50035): a tree following the body's
 * shape, each leaf `{ _errors: [{ code, message }] }`.
 */
export class FormErrors {
  private readonly tree: Record<string, unknown> = {};
  private count = 0;

  add(path: (string | number)[], code: string, message: string): void {
    let node = this.tree;
    for (const key of path) {
      const next = (node[String(key)] ?? {}) as Record<string, unknown>;
      node[String(key)] = next;
      node = next;
    }
    const list = (node._errors ?? []) as unknown[];
    list.push({ code, message });
    node._errors = list;
    this.count += 1;
  }

  maxLength(path: (string | number)[], value: unknown, max: number): void {
    if (typeof value === 'string' && value.length > max) {
      this.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
    }
  }

  throwIfAny(): void {
    if (this.count > 0) throw new DiscordError(400, 50035, 'Invalid Form Body', this.tree);
  }
}
