import { randomUUID } from 'node:crypto';
import type { Cluster } from './cluster.js';
import { uploadJpeg, type BenchPlatform, type Tenant } from './seed.js';
import { mapLimit } from './util.js';

/** JPEGs inside Instagram's rules (width 320..1440, aspect ratio 4:5 to 1.91:1): 4:5, 1:1, 1.91:1 and the narrowest. */
const IMAGES = [
  { width: 1080, height: 1350, background: '#c35' },
  { width: 1080, height: 1080, background: '#35c' },
  { width: 1080, height: 566, background: '#3a5' },
  { width: 320, height: 400, background: '#a73' },
] as const;

/**
 * Connects `accounts` emulated Instagram business accounts to `tenant`'s workspace the way
 * `admin connect-emulated-instagram` does (core's connect path: state, the emulator's consent page, code
 * exchange, long-lived token), uploads four JPEGs through the API and answers the accounts as bench
 * platforms whose posts take, in turn, one image or a carousel of two or three.
 */
export async function connectInstagramAccounts(
  cluster: Cluster,
  tenant: Tenant,
  accounts: number,
): Promise<BenchPlatform[]> {
  const [portrait, square, wide, narrow] = await mapLimit([...IMAGES], 2, (image) =>
    uploadJpeg(cluster.apiUrl, tenant.apiKey, image),
  );
  const mediaOptions = [[portrait], [square, wide, portrait], [wide], [narrow, portrait]] as string[][];
  const provider = cluster.core.deps.providers.of({ provider: 'instagram' });
  return mapLimit(Array.from({ length: accounts }), 4, async (): Promise<BenchPlatform> => {
    const account = await createAccount(cluster.instagram.url);
    const binding = `bench:${randomUUID()}`;
    const started = await provider.connect.start(cluster.core.deps, tenant.scope, { binding });
    const callback = await allowOnConsentPage(started.authorizeUrl, account);
    const result = await provider.connect.complete(
      cluster.core.deps,
      { state: callback.get('state') ?? '', code: callback.get('code') ?? undefined },
      binding,
    );
    if (result.outcome !== 'connected')
      throw new Error(`connecting Instagram ${account} failed: ${result.description}`);
    return { platformId: result.platform._id, openId: account, network: 'instagram', mediaOptions };
  });
}

async function createAccount(emulatorUrl: string): Promise<string> {
  const suffix = randomUUID().slice(0, 8);
  const answer = await fetch(`${emulatorUrl}/__control/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: `bench.${suffix}`, name: `Bench ${suffix}` }),
  });
  if (answer.status !== 201) throw new Error(`Instagram emulator account: ${answer.status} ${await answer.text()}`);
  return ((await answer.json()) as { id: string }).id;
}

/** Presses Allow for `accountId` on the emulator's consent page; answers the callback's query (not visited). */
async function allowOnConsentPage(authorizeUrl: string, accountId: string): Promise<URLSearchParams> {
  const form = new URLSearchParams(new URL(authorizeUrl).search);
  form.set('account_id', accountId);
  form.set('decision', 'allow');
  const answer = await fetch(new URL('/oauth/authorize', authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) throw new Error(`Instagram consent answered ${answer.status}`);
  return new URL(location).searchParams;
}

/** The faults injected on a share of the accounts, by name: what Postdeck must see through. */
const FAULT_PLANS: { name: string; faults: Record<string, unknown>[] }[] = [
  { name: 'none', faults: [] },
  {
    // The documented "published but reported failed": the publish takes effect, the answer is an error.
    name: 'false failure after publish (4/2207051), twice',
    faults: [{ endpoint: 'media_publish', code: 4, subcode: 2207051, afterSuccess: true, times: 2 }],
  },
  {
    name: 'connection cut after publish, then a spurious media read error (100/33)',
    faults: [
      { endpoint: 'media_publish', drop: true, afterSuccess: true },
      { endpoint: 'media_read', code: 100, subcode: 33 },
    ],
  },
  {
    name: 'spurious container read errors (100/33), three',
    faults: [{ endpoint: 'container_status', code: 100, subcode: 33, times: 3 }],
  },
];

/**
 * Injects faults through the emulator's control API on three accounts of every four (the fourth runs clean),
 * before the posts fall due; answers how many accounts got each plan, and the calls the faults spoil in all.
 */
export async function injectInstagramFaults(
  cluster: Cluster,
  platforms: readonly BenchPlatform[],
): Promise<{ plans: Map<string, number>; calls: number }> {
  const plans = new Map<string, number>();
  let calls = 0;
  await mapLimit([...platforms.entries()], 4, async ([i, platform]) => {
    const plan = FAULT_PLANS[i % FAULT_PLANS.length]!;
    plans.set(plan.name, (plans.get(plan.name) ?? 0) + 1);
    for (const fault of plan.faults) {
      calls += typeof fault.times === 'number' ? fault.times : 1;
      const answer = await fetch(`${cluster.instagram.url}/__control/accounts/${platform.openId}/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      });
      if (answer.status !== 201) throw new Error(`fault injection answered ${answer.status}: ${await answer.text()}`);
    }
  });
  return { plans, calls };
}
