import { z } from 'zod';
import type { FIRST_CLASS_LANGUAGES as CODES } from '../tenancy/ai-settings-update.js';

/** The languages with first-class support (spec 4): named to the model, tested in the pixels. */
export const LANGUAGE_NAMES: Readonly<Record<(typeof CODES)[number], string>> = Object.freeze({
  en: 'English',
  vi: 'Vietnamese',
  ja: 'Japanese',
  ko: 'Korean',
  zh: 'Chinese (Simplified)',
  es: 'Spanish',
  fr: 'French',
  de: 'German',
  pt: 'Portuguese',
  id: 'Indonesian',
});

/** A language code: ISO 639 (`en`), optionally with BCP 47 subtags (`zh-TW`, `pt-BR`); others pass through. */
export const LanguageSchema = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be an ISO 639 code such as en, ja or pt-BR')
  .describe('ISO code; first-class: en, vi, ja, ko, zh, es, fr, de, pt, id; others are passed through');

/** How the model is told the language: its name for first-class codes, the code itself otherwise. */
export function languageName(code: string): string {
  const lower = code.toLowerCase();
  if (lower === 'zh-tw' || lower === 'zh-hant' || lower === 'zh-hk') return 'Chinese (Traditional)';
  const primary = lower.split('-')[0] as string;
  return (LANGUAGE_NAMES as Record<string, string>)[primary] ?? `the language with code "${code}"`;
}
