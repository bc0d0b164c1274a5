/** Escapes text for HTML content and attribute values with numeric entities (`&#60;` for `<`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
