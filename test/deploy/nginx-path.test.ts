import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nginxPath } from '../../bench/support/nginx.js';

// The deploy tests and bench:scale run nginx. On a machine without it they must say how to get it
// (not `spawn /usr/sbin/nginx ENOENT`), and find it where it is, as the browser tests find Chromium.
describe('the nginx the reverse-proxy tests run', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-nginx-path-'));
  const empty = path.join(dir, 'empty');
  const bin = path.join(dir, 'bin');
  mkdirSync(empty);
  mkdirSync(bin);
  const installed = path.join(bin, 'nginx');
  writeFileSync(installed, '#!/bin/sh\n');
  chmodSync(installed, 0o755);
  const notExecutable = path.join(dir, 'nginx.txt');
  writeFileSync(notExecutable, '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is NGINX_PATH when set, and an error naming it when that is no executable', () => {
    expect(nginxPath({ NGINX_PATH: installed, PATH: empty }, [])).toBe(installed);
    expect(() => nginxPath({ NGINX_PATH: notExecutable, PATH: bin }, [])).toThrow(
      `NGINX_PATH is ${notExecutable}, which is not an executable file`,
    );
  });

  it('is the nginx on PATH, else one where packages install it off PATH (Debian: /usr/sbin)', () => {
    expect(nginxPath({ PATH: [empty, bin].join(path.delimiter) }, [])).toBe(installed);
    expect(nginxPath({ PATH: empty }, [notExecutable, installed])).toBe(installed);
  });

  it('fails naming the setting and the install command when there is none', () => {
    expect(() => nginxPath({ PATH: empty }, [notExecutable])).toThrow(/set NGINX_PATH .*apt-get install -y nginx/);
  });

  it("finds this machine's nginx with the defaults", () => {
    expect(nginxPath()).toMatch(/nginx$/);
  });
});
