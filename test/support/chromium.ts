import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Names Chromium goes by on PATH (Debian, Ubuntu, Google's builds), then the macOS app bundles. */
const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const MAC_APPS = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/**
 * The Chromium the browser tests drive (playwright-core downloads none): CHROMIUM_PATH when set,
 * else the first of the usual names on PATH, else a macOS app. None found is a failure, never a
 * skip: CI installs Chromium, so a browser test that cannot run there must say so.
 */
function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (isExecutable(configured)) return configured;
    throw new Error(`CHROMIUM_PATH is ${configured}, which is not an executable file`);
  }
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of ON_PATH) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  const app = MAC_APPS.find(isExecutable);
  if (app) return app;
  throw new Error(
    `No Chromium found for the browser tests: set CHROMIUM_PATH to a Chromium or Chrome executable, or put one of ${ON_PATH.join(', ')} on PATH (Debian: apt-get install -y chromium; macOS: brew install --cask chromium)`,
  );
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Chromium as the browser tests run it (as root: no sandbox; nothing fetched in the background). It
 * sees the machine's own fonts, as a visitor's browser would: the slide renderer points this process's
 * FONTCONFIG_FILE at the bundled caption fonts, which would otherwise draw every page in a display face.
 */
export function launchChromium(): Promise<Browser> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[0] !== 'FONTCONFIG_FILE' && entry[1] !== undefined,
    ),
  );
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
    env,
  });
}
