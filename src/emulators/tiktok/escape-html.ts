/**
 * Escapes text for HTML element content and attribute values, with numeric entities only
 * (`&#60;` for `<`), which is what the CLI's emulator consent decodes.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
