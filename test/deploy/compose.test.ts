import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { parse as parseDotenv } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { startMessage } from '../../src/cli/start-message.js';
import { loadConfig } from '../../src/config.js';
import { compose, dockerfileInstructions, environmentOf } from './files.js';

// There is no Docker engine here: docker-compose.yml is parsed and its parts checked (and run,
// where they are scripts), and the Dockerfile is read.
const { services } = compose;
const api = services.api!;
const worker = services.worker!;

/**
 * Runs the mongo health check's script as mongosh would, against a fake replica set; returns the
 * exit code (mongosh: 0 whatever the last value, 1 on an uncaught error, n on quit(n)) and the
 * initiate calls.
 */
function mongoCheck(node: { initiated: boolean; primary: boolean; down?: boolean }) {
  const script = services.mongo!.healthcheck!.test.at(-1)!;
  const initiated: unknown[] = [];
  class Quit extends Error {
    constructor(readonly code: number) {
      super(`quit(${code})`);
    }
  }
  const fail = (codeName: string) => Object.assign(new Error(codeName), { codeName });
  const rs = {
    status: () => {
      if (node.down) throw fail('HostUnreachable');
      if (!node.initiated) throw fail('NotYetInitialized');
      return { ok: 1 };
    },
    initiate: (config: unknown) => {
      initiated.push(config);
      return { ok: 1 };
    },
  };
  const db = { hello: () => ({ isWritablePrimary: node.primary }) };
  let code = 0;
  try {
    runInNewContext(script, {
      rs,
      db,
      quit: (n = 0) => {
        throw new Quit(n);
      },
    });
  } catch (error) {
    code = error instanceof Quit ? error.code : 1;
  }
  return { code, initiated };
}

describe('docker-compose.yml', () => {
  it('gives the api and the worker the secrets in .env (optional), which git and the build context leave out', () => {
    for (const service of [api, worker]) {
      expect(service.env_file).toEqual([{ path: '.env', required: false }]);
    }
    expect(readFileSync(path.resolve('.gitignore'), 'utf8').split('\n')).toContain('.env');
    expect(readFileSync(path.resolve('.dockerignore'), 'utf8').split('\n')).toContain('.env');
  });

  it('has one TikTok emulator, behind the emulator profile, which the api and worker use instead of their own', () => {
    const emulators = Object.entries(services).filter(([, s]) => s.command?.slice(0, 2).join(' ') === 'emulate tiktok');
    expect(emulators.map(([name]) => name)).toEqual(['tiktok-emulator']);
    const emulator = services['tiktok-emulator']!;
    expect(emulator.profiles).toEqual(['emulator']);
    for (const name of ['mongo', 'api', 'worker']) expect(services[name]!.profiles).toBeUndefined();

    const flag = (name: string) => emulator.command![emulator.command!.indexOf(name) + 1];
    expect(flag('--host')).toBe('0.0.0.0');
    for (const service of [api, worker]) {
      const env = environmentOf(service);
      expect(env.TIKTOK_EMULATOR_URL).toBe(`http://tiktok-emulator:${flag('--port')}`);
      // The consent page at the port published to the browser.
      expect(emulator.ports).toContain(`${new URL(env.TIKTOK_EMULATOR_PUBLIC_URL!).port}:${flag('--port')}`);
      // Registered for the server's callback, from the same PUBLIC_URL.
      expect(environmentOf(emulator).PUBLIC_URL).toBe(env.PUBLIC_URL);
      expect(service.depends_on!['tiktok-emulator']).toEqual({ condition: 'service_healthy', required: false });
    }
    // Photo pulls reach the api service, not the emulator container's own localhost.
    expect(flag('--pull-via')).toBe(`http://api:${api.ports![0]!.split(':')[1]}`);
  });

  it('gives the worker a health check that reads its heartbeat instead of probing HTTP', () => {
    const test = worker.healthcheck!.test;
    expect(test).toEqual(['CMD', 'node', 'bin/postdeck.js', 'admin', 'worker-health']);
    expect(test.join(' ')).not.toMatch(/healthz|fetch|http/);
  });

  it("checks the api's readiness (/readyz): healthy on 200, unhealthy otherwise", async () => {
    const check = api.healthcheck!.test;
    expect(check.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    for (const status of [200, 503]) {
      const server = createServer((req, res) => res.writeHead(req.url === '/readyz' ? status : 404).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const child = spawn(process.execPath, check.slice(2), { env: { ...process.env, PORT: String(port) } });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      server.close();
      expect({ status, code }).toEqual({ status, code: status === 200 ? 0 : 1 });
    }
  });

  it('gives a stopping process time for the readiness grace, the drain and the unwinding before Docker kills it', () => {
    const { readyGraceMs, jobs } = loadConfig({}, { cwd: path.resolve('test') });
    for (const service of [api, worker]) {
      expect(service.stop_grace_period).toMatch(/^\d+s$/);
      expect(parseInt(service.stop_grace_period!, 10) * 1000).toBeGreaterThanOrEqual(
        readyGraceMs + jobs.drainMs + 5_000,
      );
    }
  });

  it('reports MongoDB healthy only once it has a writable primary, initiating the replica set on the first run', () => {
    const fresh = mongoCheck({ initiated: false, primary: false });
    expect(fresh.code).not.toBe(0);
    expect(fresh.initiated).toEqual([{ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] }]);
    const electing = mongoCheck({ initiated: true, primary: false });
    expect(electing).toEqual({ code: 1, initiated: [] });
    expect(mongoCheck({ initiated: true, primary: true })).toEqual({ code: 0, initiated: [] });
    // Any other failure is no reason to initiate.
    expect(mongoCheck({ initiated: true, primary: true, down: true })).toEqual({ code: 1, initiated: [] });
    // The same replica set everywhere.
    expect(services.mongo!.command).toEqual(['--replSet', 'rs0', '--bind_ip_all']);
    expect(environmentOf(api).MONGODB_URI).toBe('mongodb://mongo:27017/?replicaSet=rs0');
  });

  it('builds the Postdeck image once, in the api service, and runs that one image in the others', () => {
    const postdeck = ['api', 'worker', 'tiktok-emulator'];
    const building = Object.entries(services).filter(([, s]) => s.build !== undefined);
    expect(building.map(([name]) => name)).toEqual(['api']);
    expect(api.build).toBe('.');
    const images = new Set(postdeck.map((name) => services[name]!.image));
    expect([...images]).toEqual(['postdeck:local']);
    // The others never look for it in a registry: it exists only once the api service built it.
    for (const name of postdeck) expect(services[name]!.pull_policy, name).toBe('never');
    expect(services.mongo!.image).toBe('mongo:8');
  });

  it('tells a Docker user to get a key with the CLI in the api container, which the image puts on PATH', () => {
    const example = parseDotenv(readFileSync(path.resolve('.env.example'), 'utf8'));
    const config = loadConfig({ ...example, ...environmentOf(api) }, { cwd: path.resolve('test') });
    for (const freshInstall of [true, false]) {
      const message = startMessage({
        publicUrl: config.publicUrl,
        listeningOn: 'http://0.0.0.0:8080',
        freshInstall,
        command: config.client.command,
      });
      expect(message).toMatch(/[Gg]et an API key with: {2}docker compose exec api postdeck login/);
      expect(message).not.toContain('npx');
    }
    // `api` is the service that serves HTTP, and the CLI there talks to it on its own port.
    expect(api.command).toEqual(['serve', '--role', 'api']);
    expect(config.client.defaultServer).toBe(`http://127.0.0.1:${api.ports![0]!.split(':')[1]}`);
    const link = dockerfileInstructions().find((i) => i.name === 'RUN' && i.args.includes('/usr/local/bin/postdeck'));
    expect(link?.args).toMatch(/ln -s \/app\/bin\/postdeck\.js \/usr\/local\/bin\/postdeck/);
  });

  it('leaves health checks to the compose file: the image runs every role, and no one check fits them all', () => {
    expect(dockerfileInstructions().filter((i) => i.name === 'HEALTHCHECK' && i.args !== 'NONE')).toEqual([]);
  });
});

describe('.env.example', () => {
  const text = readFileSync(path.resolve('.env.example'), 'utf8');
  const example = parseDotenv(text);

  it('names the secrets, each a setting the README documents', () => {
    const readme = readFileSync(path.resolve('README.md'), 'utf8');
    for (const name of [
      'TIKTOK_CLIENT_KEY',
      'TIKTOK_CLIENT_SECRET',
      'TOKEN_ENCRYPTION_KEY',
      'OPENAI_API_KEY',
      'SLACK_SIGNING_SECRET',
      'SLACK_BOT_TOKEN',
      'DISCORD_BOT_TOKEN',
    ]) {
      expect(example).toHaveProperty(name);
    }
    for (const name of Object.keys(example).filter((n) => n !== 'COMPOSE_PROFILES')) {
      expect(readme, name).toMatch(new RegExp(`\\| \`${name}\`|\`${name}\`,|, \`${name}\``));
    }
  });

  it('is a valid configuration for the api as it stands, with the emulator profile on', () => {
    expect(example.COMPOSE_PROFILES).toBe('emulator');
    const config = loadConfig({ ...example, ...environmentOf(api) }, { cwd: path.resolve('test') });
    expect(config.tiktokEmulator).toMatchObject({
      url: 'http://tiktok-emulator:8090',
      publicUrl: 'http://localhost:8090',
    });
  });
});
