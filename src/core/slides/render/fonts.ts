import { mkdirSync, renameSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { decompress } from 'wawoff2';

const require = createRequire(import.meta.url);

/** Font folders of the npm packages (one weight each: fontconfig then finds exactly that file). */
const TTF_DIRS = [
  '@expo-google-fonts/anton/400Regular',
  '@expo-google-fonts/montserrat/800ExtraBold',
  '@expo-google-fonts/poppins/700Bold',
  '@expo-google-fonts/league-spartan/700Bold',
  '@expo-google-fonts/noto-sans-jp/700Bold',
  '@expo-google-fonts/noto-sans-kr/700Bold',
  '@expo-google-fonts/noto-sans-sc/700Bold',
  '@expo-google-fonts/noto-sans-tc/700Bold',
  '@expo-google-fonts/be-vietnam-pro/700Bold',
];

/** TikTok Sans ships only as WOFF2 subsets, which sharp's FreeType cannot read: converted to TrueType once. */
const TIKTOK_SANS_SUBSETS = ['latin', 'latin-ext', 'vietnamese'];

let ready: Promise<string> | undefined;

/**
 * Makes every bundled font visible to sharp's text renderer: converts TikTok Sans to TrueType into a
 * cache folder, writes a fontconfig file naming only our folders (so rendering is the same on every
 * machine, whatever fonts it has) and points FONTCONFIG_FILE at it. Must run before the process
 * renders any text: fontconfig reads its configuration once. Returns the configuration's path.
 */
export function prepareFonts(): Promise<string> {
  ready ??= setUp();
  return ready;
}

async function setUp(): Promise<string> {
  const version = (require('@fontsource/tiktok-sans/package.json') as { version: string }).version;
  const root = path.join(os.tmpdir(), `postdeck-fonts-${version}`);
  const converted = path.join(root, 'tiktok-sans');
  mkdirSync(converted, { recursive: true });
  for (const subset of TIKTOK_SANS_SUBSETS) {
    const target = path.join(converted, `TikTokSans-${subset}-700.ttf`);
    if (existsSync(target)) continue;
    const woff2 = readFileSync(require.resolve(`@fontsource/tiktok-sans/files/tiktok-sans-${subset}-700-normal.woff2`));
    writeAtomically(target, Buffer.from(await decompress(woff2)));
  }
  const dirs = [converted, ...TTF_DIRS.map((dir) => path.dirname(require.resolve(`${dir}/index.js`)))];
  const config = path.join(root, 'fonts.conf');
  writeAtomically(
    config,
    Buffer.from(
      [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        '<fontconfig>',
        ...dirs.map((dir) => `  <dir>${escapeXml(dir)}</dir>`),
        `  <cachedir>${escapeXml(path.join(root, 'cache'))}</cachedir>`,
        '</fontconfig>',
        '',
      ].join('\n'),
    ),
  );
  process.env.FONTCONFIG_FILE = config;
  return config;
}

// Several processes may prepare the same folder at once: each writes its own file and renames it in.
function writeAtomically(target: string, bytes: Buffer): void {
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, target);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
