import type { DeviceAuthorization } from '../core/device/start.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchServer } from './server-fetch.js';

/** The device authorization as the server starts it (spec 4). */
export type DeviceStart = DeviceAuthorization;

/** How a device login ended. */
export type DeviceLoginOutcome = { status: 'approved'; apiKey: string } | { status: 'denied' } | { status: 'expired' };

const SLOW_DOWN_STEP_S = 5;

/** Starts a device authorization on `server` for a client called `clientName`. */
export async function startDeviceLogin(server: string, clientName: string): Promise<DeviceStart> {
  const response = await fetchServer(new URL('/auth/device/start', server), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: clientName }),
  });
  if (!response.ok) throw new Error(`the server refused to start a login (HTTP ${response.status})`);
  return (await response.json()) as DeviceStart;
}

/**
 * Polls the token endpoint as RFC 8628 asks: never faster than `interval`, five seconds slower
 * after each `slow_down`, and not past `expires_in`.
 */
export async function pollDeviceLogin(
  server: string,
  start: DeviceStart,
  onWait: (secondsLeft: number) => void = () => {},
): Promise<DeviceLoginOutcome> {
  const deadline = Date.now() + start.expires_in * 1000;
  let intervalS = start.interval;
  for (;;) {
    // Never sleep past the expiry: the person should hear at once that the code is gone. A sleep cut
    // short by the expiry means it expired, even if the timer fired a millisecond early.
    const untilExpiry = deadline - Date.now();
    await sleep(Math.max(0, Math.min(intervalS * 1000, untilExpiry)));
    if (untilExpiry <= intervalS * 1000 || Date.now() >= deadline) return { status: 'expired' };
    onWait(Math.round((deadline - Date.now()) / 1000));

    const response = await fetchServer(new URL('/auth/device/token', server), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_code: start.device_code }),
    });
    const body = (await response.json().catch(() => ({}))) as { api_key?: string; error?: string };
    if (response.ok && body.api_key) return { status: 'approved', apiKey: body.api_key };
    switch (body.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        intervalS += SLOW_DOWN_STEP_S;
        continue;
      case 'access_denied':
        return { status: 'denied' };
      case 'expired_token':
        return { status: 'expired' };
      default:
        throw new Error(
          `unexpected answer from the token endpoint (HTTP ${response.status}, ${body.error ?? 'no error code'})`,
        );
    }
  }
}
