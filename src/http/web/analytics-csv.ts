/** One cell: text (quoted and made safe) or a number we computed. */
export type CsvCell = string | number | null;

/**
 * A CSV file (RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds a quote, comma
 * or line break, its quotes doubled). A text cell starting with = + - @ (or a tab or CR) gets a leading
 * apostrophe, so a spreadsheet shows a caption like "=HYPERLINK(…)" as text and never runs it.
 */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

function csvCell(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return String(cell);
  const text = /^[=+\-@\t\r]/u.test(cell) ? `'${cell}` : cell;
  return /[",\r\n]/u.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
