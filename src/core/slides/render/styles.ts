/** The caption fonts (spec 4): primary-sans is TikTok Sans, TikTok's own on-screen font. */
export const TEXT_STYLE_IDS = ['primary-sans', 'anton', 'montserrat', 'poppins', 'league-spartan'] as const;
export type TextStyleId = (typeof TEXT_STYLE_IDS)[number];

export const CAPTION_SIZES = ['small', 'medium', 'large'] as const;
export type CaptionSize = (typeof CAPTION_SIZES)[number];

/** outline: white text with a dark outline and soft shadow (TikTok's classic); box: dark text on a white box. */
export const TEXT_EFFECTS = ['outline', 'box'] as const;
export type TextEffect = (typeof TEXT_EFFECTS)[number];

/** Font size as a share of the slide's height (medium about 6%, as TikTok creators use). */
export const SIZE_SHARES: Readonly<Record<CaptionSize, number>> = Object.freeze({
  small: 0.045,
  medium: 0.06,
  large: 0.075,
});

/** The smallest a caption is shrunk to so that it fits. */
export const MIN_SIZE_SHARE = 0.022;

/** The family each style draws with, as named inside its font file (fontsource names TikTok Sans' bold file "Light"). */
export const STYLE_FAMILIES: Readonly<Record<TextStyleId, string>> = Object.freeze({
  'primary-sans': 'TikTok Sans Light',
  anton: 'Anton',
  montserrat: 'Montserrat ExtraBold',
  poppins: 'Poppins',
  'league-spartan': 'League Spartan',
});
