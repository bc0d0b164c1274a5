import { chromium, type Browser } from 'playwright-core';
import { findExecutable } from './executables.js';

/**
 * The Chromium the browser tests drive (playwright-core downloads none): CHROMIUM_PATH when set,
 * else the first of the usual names on PATH (Debian, Ubuntu, Google's builds), else a macOS app.
 */
function chromiumPath(): string {
  return findExecutable({
    setting: 'CHROMIUM_PATH',
    names: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'],
    alsoTry: [
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ],
    missing:
      'The browser tests need Chromium or Chrome (Debian: apt-get install -y chromium; macOS: brew install --cask chromium).',
  });
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
