import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../../test/support/executables.js';
import { freePort, waitForOk } from './util.js';

// Shared by the benches (bench:scale) and the deploy tests (rolling restart): one nginx set-up.

const NGINX_ELSEWHERE = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/opt/homebrew/bin/nginx'];

/**
 * The nginx to run: NGINX_PATH when set, else `nginx` on PATH, else where Debian (`/usr/sbin`, off a
 * user's PATH) and Homebrew put it. `env` and `alsoTry` are parameters for the finder's own test.
 */
export function nginxPath(env: NodeJS.ProcessEnv = process.env, alsoTry = NGINX_ELSEWHERE): string {
  return findExecutable(
    {
      setting: 'NGINX_PATH',
      names: ['nginx'],
      alsoTry,
      missing:
        'The reverse-proxy tests and bench:scale need nginx (Debian: apt-get install -y nginx; macOS: brew install nginx).',
    },
    env,
  );
}

/** A running nginx in front of some Postdeck API processes. */
export interface RunningProxy {
  url: string;
  /** nginx's error log so far: why it passed a request to the next server. */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts nginx as a reverse proxy over `upstreams` (host:port each), unprivileged and self-contained:
 * its config, pid, logs and temp files live in a temp dir. nginx open source has no active health
 * checks, so it learns of a stopped server passively: a refused connection or a 503 makes it pass the
 * request to the next server (`proxy_next_upstream`) and count a failure (`max_fails`), which keeps
 * that server out for `fail_timeout`. Each answer names the server that gave it in `x-upstream`.
 */
export async function startNginx(upstreams: string[], port?: number): Promise<RunningProxy> {
  const executable = nginxPath();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-nginx-'));
  port ??= await freePort();
  const at = (file: string) => path.join(dir, file);
  const config = `
daemon off;
worker_processes 1;
${process.getuid?.() === 0 ? '# Run by root: keep the workers as root too, or they become nobody, who cannot write this dir.\nuser root;' : ''}
pid ${at('nginx.pid')};
error_log ${at('error.log')} warn;
events { worker_connections 512; }
http {
  access_log ${at('access.log')};
  client_body_temp_path ${at('client_body')};
  proxy_temp_path ${at('proxy')};
  fastcgi_temp_path ${at('fastcgi')};
  uwsgi_temp_path ${at('uwsgi')};
  scgi_temp_path ${at('scgi')};
  upstream postdeck {
${upstreams.map((upstream) => `    server ${upstream} max_fails=1 fail_timeout=2s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://postdeck;
      proxy_next_upstream error timeout http_503;
      proxy_connect_timeout 5s;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      add_header x-upstream $upstream_addr always;
    }
  }
}
`;
  writeFileSync(at('nginx.conf'), config);
  // -e: the log for what goes wrong before the config is read (else /var/log/nginx, not ours to write).
  const nginx = spawn(executable, ['-p', dir, '-c', at('nginx.conf'), '-e', at('error.log')], { stdio: 'ignore' });
  const exited = once(nginx, 'exit').then(([code]) => code as number | null);
  const errorLog = () => (existsSync(at('error.log')) ? readFileSync(at('error.log'), 'utf8') : '');
  const url = `http://127.0.0.1:${port}`;
  const problem = await Promise.race([
    waitForOk(`${url}/healthz`, 60_000).then(
      () => undefined,
      (error: Error) => error.message,
    ),
    exited.then((code) => `nginx exited ${code}: ${errorLog()}`),
  ]);
  if (problem) {
    if (nginx.exitCode === null) nginx.kill('SIGKILL');
    throw new Error(problem);
  }
  return {
    url,
    errorLog,
    async stop() {
      if (nginx.exitCode === null) nginx.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
