import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { InstagramHttp, GraphError, GraphTransportError } from '../../src/core/providers/instagram/graph.js';
import { createLogger } from '../../src/logger.js';
import { startInstagramFixture, type InstagramFixture } from '../support/instagram.js';
import { answerInstagramConsent } from '../support/instagram.js';
import { buildInstagramAuthorizeUrl, exchangeInstagramCode } from '../../src/core/providers/instagram/oauth.js';

let f: InstagramFixture;
let account: { id: string; userId: string };
let token: string;

beforeAll(async () => {
  f = await startInstagramFixture();
  account = await f.createAccount({ username: 'graph.tester' });
  const callback = await answerInstagramConsent(buildInstagramAuthorizeUrl(f.http, 'csrf'), account.id);
  token = (await exchangeInstagramCode(f.http, callback.searchParams.get('code') ?? '', new Date())).accessToken;
});
afterAll(async () => {
  await f.close();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('the Instagram Graph client against the emulator', () => {
  it('reads a Graph node on a versioned path with the token in the Authorization header', async () => {
    const me = await f.http.get<{ user_id: string; username: string }>('/me', { fields: 'user_id,username' }, token);
    expect(me).toMatchObject({ user_id: account.userId, username: 'graph.tester' });
    const counted = (await (await f.control('GET', '/__control/requests')).json()) as { requests: object };
    expect(counted.requests).toHaveProperty(['GET /me']);
  });

  it('throws a GraphError with the code, subcode, type and the words for people', async () => {
    const error = await failure(
      f.http.post(`/${account.userId}/media`, { image_url: 'http://127.0.0.1:9/none.jpg', caption: 'x' }, token),
    );
    expect(error).toBeInstanceOf(GraphError);
    expect(error).toMatchObject({ httpStatus: 400, code: 9004, subcode: 2207052, type: 'OAuthException' });
    expect((error as GraphError).detail).toContain('code 9004/2207052');
  });

  it('parses the throttling headers onto the error (retryAfterMs from estimated_time_to_regain_access)', async () => {
    const fault = { endpoint: 'me', code: 80002, regainMinutes: 7, httpStatus: 400 };
    expect((await f.control('POST', `/__control/accounts/${account.id}/faults`, fault)).status).toBe(201);
    const error = (await failure(f.http.get('/me', { fields: 'user_id' }, token))) as GraphError;
    expect(error).toMatchObject({ code: 80002, subcode: null, retryAfterMs: 7 * 60_000, appCallPercent: 100 });
  });

  it('reads the code exchange error, which is not Graph-shaped, as a GraphError', async () => {
    const error = await failure(exchangeInstagramCode(f.http, 'AQ-never-issued', new Date()));
    expect(error).toBeInstanceOf(GraphError);
    expect(error).toMatchObject({
      code: 400,
      type: 'OAuthException',
      message: 'Matching code was not found or was already used',
    });
  });

  it('throws GraphTransportError when the connection is cut with no answer (the request may have arrived)', async () => {
    const fault = { endpoint: 'me', drop: true };
    expect((await f.control('POST', `/__control/accounts/${account.id}/faults`, fault)).status).toBe(201);
    const error = await failure(f.http.get('/me', { fields: 'user_id' }, token));
    expect(error).toBeInstanceOf(GraphTransportError);
    expect(error).toMatchObject({ maybeArrived: true });
  });

  it('throws GraphTransportError saying nothing arrived when no connection could be made', async () => {
    const gone = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => gone.once('listening', resolve));
    const port = (gone.address() as { port: number }).port;
    await new Promise((resolve) => gone.close(resolve));
    const closed = new InstagramHttp(
      { ...f.config, graphBaseUrl: `http://127.0.0.1:${port}` },
      createLogger({ level: 'silent' }),
    );
    const error = await failure(closed.get('/me', {}, token));
    expect(error).toBeInstanceOf(GraphTransportError);
    expect(error).toMatchObject({ maybeArrived: false });
  });

  it('throws GraphTransportError when the answer takes longer than the timeout', async () => {
    // The emulator's media fetch from a silent server takes longer than this call's short deadline.
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const port = (silent.address() as { port: number }).port;
    const slow = new InstagramHttp(
      { ...f.config, graphBaseUrl: `http://127.0.0.1:${port}` },
      createLogger({ level: 'silent' }),
    );
    const error = await failure(slow.get('/me', {}, token, { timeoutMs: 200 }));
    silent.closeAllConnections();
    silent.close();
    expect(error).toBeInstanceOf(GraphTransportError);
    expect(error).toMatchObject({ maybeArrived: true });
  });
});
