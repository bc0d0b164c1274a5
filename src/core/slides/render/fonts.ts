import { mkdirSync, renameSync, writeFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { decompress } from 'wawoff2';

const require = createRequire(import.meta.url);

/**
 * Font folders of the npm packages (one weight each: fontconfig then finds exactly that file), with
 * the family each file names itself.
 */
const TTF_DIRS: [string, string][] = [
  ['@expo-google-fonts/anton/400Regular', 'Anton'],
  ['@expo-google-fonts/montserrat/800ExtraBold', 'Montserrat ExtraBold'],
  ['@expo-google-fonts/poppins/700Bold', 'Poppins'],
  ['@expo-google-fonts/league-spartan/700Bold', 'League Spartan'],
  ['@expo-google-fonts/noto-sans-jp/700Bold', 'Noto Sans JP'],
  ['@expo-google-fonts/noto-sans-kr/700Bold', 'Noto Sans KR'],
  ['@expo-google-fonts/noto-sans-sc/700Bold', 'Noto Sans SC'],
  ['@expo-google-fonts/noto-sans-tc/700Bold', 'Noto Sans TC'],
  ['@expo-google-fonts/be-vietnam-pro/700Bold', 'Be Vietnam Pro'],
];

/** fontsource names TikTok Sans' bold file "Light". */
const TIKTOK_SANS_FAMILY = 'TikTok Sans Light';

/** TikTok Sans ships only as WOFF2 subsets, which sharp's FreeType cannot read: converted to TrueType once. */
const TIKTOK_SANS_SUBSETS = ['latin', 'latin-ext', 'vietnamese'];

/** The colour emoji font, as named inside its file; fontsource ships it as WOFF2 too (its whole emoji subset). */
export const EMOJI_FAMILY = 'Noto Color Emoji';
const EMOJI_WOFF2 = '@fontsource/noto-color-emoji/files/noto-color-emoji-emoji-400-normal.woff2';

export interface FontFile {
  file: string;
  family: string;
}

/** Every bundled font file: the text fonts in a fixed order, and the emoji font. */
export interface BundledFonts {
  config: string;
  text: FontFile[];
  emoji: FontFile;
}

let ready: Promise<BundledFonts> | undefined;

/**
 * Makes every bundled font visible to sharp's text renderer: converts TikTok Sans and the emoji font
 * to TrueType into a cache folder, writes a fontconfig file naming only our folders (so rendering is
 * the same on every machine, whatever fonts it has) and points FONTCONFIG_FILE at it. Must run before
 * the process renders any text: fontconfig reads its configuration once. Returns where the files are.
 */
export function prepareFonts(): Promise<BundledFonts> {
  ready ??= setUp();
  return ready;
}

async function setUp(): Promise<BundledFonts> {
  const version = [
    (require('@fontsource/tiktok-sans/package.json') as { version: string }).version,
    (require('@fontsource/noto-color-emoji/package.json') as { version: string }).version,
  ].join('-');
  const root = path.join(os.tmpdir(), `postdeck-fonts-${version}`);
  const converted = path.join(root, 'converted');
  mkdirSync(converted, { recursive: true });
  const sources = [
    ...TIKTOK_SANS_SUBSETS.map((subset) => ({
      woff2: `@fontsource/tiktok-sans/files/tiktok-sans-${subset}-700-normal.woff2`,
      target: `TikTokSans-${subset}-700.ttf`,
    })),
    { woff2: EMOJI_WOFF2, target: 'NotoColorEmoji.ttf' },
  ];
  for (const { woff2, target } of sources) {
    const file = path.join(converted, target);
    if (existsSync(file)) continue;
    writeAtomically(file, Buffer.from(await decompress(readFileSync(require.resolve(woff2)))));
  }
  const packaged = TTF_DIRS.map(([dir, family]) => ({ dir: path.dirname(require.resolve(`${dir}/index.js`)), family }));
  const dirs = [converted, ...packaged.map(({ dir }) => dir)];
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
  const filesIn = ({ dir, family }: { dir: string; family: string }) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.ttf'))
      .map((name) => ({ file: path.join(dir, name), family }));
  return {
    config,
    text: [
      ...TIKTOK_SANS_SUBSETS.map((subset) => ({
        file: path.join(converted, `TikTokSans-${subset}-700.ttf`),
        family: TIKTOK_SANS_FAMILY,
      })),
      ...packaged.flatMap(filesIn),
    ],
    emoji: { file: path.join(converted, 'NotoColorEmoji.ttf'), family: EMOJI_FAMILY },
  };
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
