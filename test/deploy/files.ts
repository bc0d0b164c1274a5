import { readFileSync } from 'node:fs';
import path from 'node:path';
// `yaml` comes with openapi3-ts (a dependency of @asteasolutions/zod-to-openapi).
import { parse as parseYaml } from 'yaml';

/** One Dockerfile instruction: its name in capitals and its arguments, continuation lines joined. */
export interface DockerfileInstruction {
  name: string;
  args: string;
}

/** The repository's Dockerfile as instructions (comments and blank lines dropped). */
export function dockerfileInstructions(): DockerfileInstruction[] {
  const text = readFileSync(path.resolve('Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [name = '', ...rest] = line.split(/\s+/);
      return { name: name.toUpperCase(), args: rest.join(' ') };
    });
}

/** A service of a compose file, as far as the tests read it. */
export interface Service {
  build?: unknown;
  image?: string;
  pull_policy?: string;
  volumes?: string[];
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  env_file?: (string | { path: string; required?: boolean })[];
  ports?: string[];
  depends_on?: Record<string, { condition?: string; required?: boolean }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}

/** docker-compose.yml, parsed with its `<<` merges applied. */
export const compose = parseYaml(readFileSync(path.resolve('docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

/** `${NAME:-default}` as Compose interpolates it with nothing set. */
function interpolated(value: string): string {
  return value.replace(/\$\{\w+:-([^}]*)\}/g, '$1');
}

/** A service's environment with the defaults Compose fills in. */
export function environmentOf(service: Service): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolated(String(v))]));
}
