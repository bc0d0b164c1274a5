import type { IssueDetail } from '../../../errors.js';
import type { AspectFit } from '../../../media/documents.js';

const COLOUR = /^#[0-9a-fA-F]{6}$/;

/** `settings.fit` as JSON Schema: how Postdeck makes an image outside Instagram's aspect ratios fit. */
export const FIT_JSON_SCHEMA = Object.freeze({
  description:
    'Images outside 4:5 to 1.91:1 (a 9:16 slide, say) are refused unless this asks Postdeck to render them: ' +
    '`{"mode":"pad","background":"blur"}` (the whole image on a blurred, darkened copy of itself), ' +
    '`{"mode":"pad","background":"#RRGGBB"}` (on a colour) or `{"mode":"crop"}` (its centre), to the nearest ' +
    'allowed ratio, at most 1440 px wide. The post is stored with the rendered JPEG; the original stays in the library.',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['mode'],
      properties: { mode: { const: 'crop' } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['mode', 'background'],
      properties: {
        mode: { const: 'pad' },
        background: { anyOf: [{ const: 'blur' }, { type: 'string', pattern: COLOUR.source }] },
      },
    },
  ],
});

/** The fit `settings.fit` asks for, or undefined when it asks none or is malformed (`fitIssues` says why). */
export function instagramFitOf(settings: Record<string, unknown>): AspectFit | undefined {
  return fitIssues(settings.fit).length === 0 ? (settings.fit as AspectFit | undefined) : undefined;
}

/** What is wrong with a `settings.fit` value, as issues at `['settings', 'fit', ...]`. */
export function fitIssues(fit: unknown): IssueDetail[] {
  if (fit === undefined) return [];
  const at = (message: string, ...path: string[]): IssueDetail[] => [{ path: ['settings', 'fit', ...path], message }];
  if (typeof fit !== 'object' || fit === null || Array.isArray(fit)) {
    return at('fit is {"mode":"crop"} or {"mode":"pad","background":"blur" or "#RRGGBB"}');
  }
  const { mode, background, ...rest } = fit as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return at(`fit takes mode and background only, not ${extra}`, extra);
  if (mode === 'crop') return background === undefined ? [] : at('a crop has no background', 'background');
  if (mode !== 'pad') return at('fit.mode is "pad" or "crop"', 'mode');
  if (background === 'blur' || (typeof background === 'string' && COLOUR.test(background))) return [];
  return at('a pad needs a background: "blur" or a colour "#RRGGBB"', 'background');
}
