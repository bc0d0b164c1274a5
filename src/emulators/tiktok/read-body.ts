import type { Context } from 'koa';

/**
 * Reads the raw request body as UTF-8 text, throwing as soon as the declared or the received
 * length passes `limitBytes` (so a huge body is never buffered). The emulator's routes answer
 * any failure to read generically.
 */
export async function readBodyText(ctx: Context, limitBytes: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(limitBytes: number): Error {
  return new Error(`The request body is larger than ${limitBytes} bytes`);
}
