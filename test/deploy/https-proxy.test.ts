import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { compose, dockerfileInstructions, environmentOf, type Service } from './files.js';

// The HTTPS example and the backup advice for Docker, read and checked part by part (there is no
// Docker engine, Caddy or nginx here): the override file parses, the Caddyfile's structure names the
// api's port, and the README's backup commands name real services and mounts.
const { services } = compose;
const api = services.api!;

describe('HTTPS behind Caddy (docker-compose.https.yml, deploy/Caddyfile)', () => {
  const text = readFileSync(path.resolve('docker-compose.https.yml'), 'utf8');
  const document = parseDocument(text);
  const override = document.toJS() as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const caddy = override.services.caddy!;
  const example = parseDotenv(readFileSync(path.resolve('.env.example'), 'utf8'));

  it('parses, and only adds Caddy and the api settings a proxy needs', () => {
    expect(document.errors).toEqual([]);
    expect(Object.keys(override.services).sort()).toEqual(['api', 'caddy']);
    // Compose 2.24's `!reset`: the api publishes no plain-http port once Caddy is in front.
    const ports = document.getIn(['services', 'api', 'ports'], true) as { tag?: string; items: unknown[] };
    expect({ tag: ports.tag, items: ports.items }).toEqual({ tag: '!reset', items: [] });
    expect(Object.keys(override.volumes).sort()).toEqual(['caddy-config', 'caddy-data']);
  });

  it('turns TRUST_PROXY on for the api, with an https PUBLIC_URL the configuration accepts', () => {
    const env = { ...example, ...environmentOf(api), ...environmentOf(override.services.api!) };
    const config = loadConfig({ ...env, PUBLIC_URL: 'https://deck.example.com' }, { cwd: path.resolve('test') });
    expect(config.trustProxy).toBe(true);
    expect(config.publicUrl).toBe('https://deck.example.com');
    expect(loadConfig({ ...example, ...environmentOf(api) }, { cwd: path.resolve('test') }).trustProxy).toBe(false);
  });

  it('runs Caddy on 80 and 443 with the Caddyfile, PUBLIC_URL required, after the api is healthy', () => {
    expect(caddy.image).toMatch(/^caddy:2/);
    expect(caddy.ports).toEqual(['80:80', '443:443', '443:443/udp']);
    expect(caddy.environment?.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:\?.+\}$/);
    expect(caddy.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(caddy.volumes).toContain('caddy-data:/data');
    expect(caddy.depends_on).toEqual({ api: { condition: 'service_healthy' } });
  });

  it('has a Caddyfile with one site, PUBLIC_URL, proxied to the port the api service listens on', () => {
    const sites = parseCaddyfile(readFileSync(path.resolve('deploy/Caddyfile'), 'utf8'));
    expect(sites).toHaveLength(1);
    const [site] = sites;
    // Substituted from Caddy's environment; an https URL makes Caddy get its certificate.
    expect(site!.address).toEqual(['{$PUBLIC_URL}']);
    const proxies = site!.directives.filter(([name]) => name === 'reverse_proxy');
    expect(proxies).toEqual([['reverse_proxy', 'api:8080']]);
    const [host, port] = proxies[0]![1]!.split(':');
    expect(services[host!]).toBe(api);
    expect(api.ports).toEqual([`${port}:${port}`]);
    const imagePort = dockerfileInstructions().find((i) => i.name === 'ENV' && /\bPORT=/.test(i.args));
    expect(imagePort?.args).toContain(`PORT=${port}`);
  });

  it('sends the Strict-Transport-Security header docs/security.md asks for, and nothing else', () => {
    const security = readFileSync(path.resolve('docs/security.md'), 'utf8');
    const asked = /`Strict-Transport-Security: ([^`]+)`/.exec(security)![1]!;
    const [site] = parseCaddyfile(readFileSync(path.resolve('deploy/Caddyfile'), 'utf8'));
    const headers = site!.directives.filter(([name]) => name === 'header');
    expect(headers).toEqual([['header', 'Strict-Transport-Security', asked]]);
  });
});

describe("the README's Docker section", () => {
  const readme = readFileSync(path.resolve('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Running with Docker'));

  it('says to back up both volumes, and why the key file in postdeck-data matters', () => {
    for (const volume of ['mongo-data', 'postdeck-data']) {
      expect(Object.keys(compose.volumes)).toContain(volume);
      expect(section).toContain(`\`${volume}\``);
    }
    expect(section).toMatch(/`TOKEN_ENCRYPTION_KEY` is empty, `token-encryption\.key`/);
  });

  it('backs up with commands that name real services and the mount of postdeck-data', () => {
    const dump = /docker compose exec -T (\S+) mongodump --archive --gzip >/.exec(section);
    expect(services[dump![1]!]!.image).toBe('mongo:8');
    expect(services[dump![1]!]!.volumes).toContain('mongo-data:/data/db');
    const tar = /docker compose exec -T (\S+) tar czf - -C (\S+) \. >/.exec(section);
    expect(services[tar![1]!]!.volumes).toContain(`postdeck-data:${tar![2]!}`);
    expect(section).toMatch(/mongorestore\s+--archive --gzip --drop/);
  });

  it('starts HTTPS with files that exist', () => {
    const command = /docker compose -f (\S+) -f (\S+) up -d --build/.exec(section);
    expect(command?.slice(1)).toEqual(['docker-compose.yml', 'docker-compose.https.yml']);
    expect(section).toContain('`deploy/Caddyfile`');
    expect(section).toContain('`TRUST_PROXY=true`');
  });
});

/** One site block of a Caddyfile: its address tokens and its directives, each as tokens. */
interface CaddySite {
  address: string[];
  directives: string[][];
}

/**
 * Reads a Caddyfile's structure as Caddy does for a simple file: `#` comments, quoted tokens, site blocks opened
 * by a line ending in `{` and closed by `}`, one directive a line; no global options, no nesting,
 * no directive outside a block (each would be a mistake in this example).
 */
function parseCaddyfile(text: string): CaddySite[] {
  const sites: CaddySite[] = [];
  let open: CaddySite | null = null;
  for (const raw of text.split('\n')) {
    // A quoted token keeps its spaces and loses its quotes, as Caddy reads it.
    const tokens = [...raw.replace(/(^|\s)#.*$/, '').matchAll(/"([^"]*)"|(\S+)/g)].map(
      (match) => match[1] ?? match[2]!,
    );
    if (tokens.length === 0) continue;
    if (tokens.at(-1) === '{') {
      if (open) throw new Error(`nested block: ${raw}`);
      if (tokens.length === 1) throw new Error('a global options block');
      open = { address: tokens.slice(0, -1), directives: [] };
    } else if (tokens.length === 1 && tokens[0] === '}') {
      if (!open) throw new Error('} without a block');
      sites.push(open);
      open = null;
    } else {
      if (!open) throw new Error(`directive outside a site: ${raw}`);
      open.directives.push(tokens);
    }
  }
  if (open) throw new Error('unclosed block');
  return sites;
}
