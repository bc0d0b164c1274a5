import { markup, type HtmlValue, type SafeHtml } from './html.js';

/** One column of a table: its header and what each row shows in it. */
export interface Column<Row> {
  header: string;
  /** A muted header, for a column of buttons whose header says little ("Action"). */
  mutedHeader?: boolean;
  cell: (row: Row) => HtmlValue;
}

/** A table of `rows`, one `<tr>` each, with a cell per column. */
export interface Table<Row> {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  /** The muted line above the table, e.g. "2 keys, newest first". */
  caption?: string;
  /** Shown instead of the table when there are no rows; without it an empty table is shown. */
  empty?: SafeHtml;
}

/**
 * The pages' tables (keys, members, invitations, accounts), all the same structure. On a narrow
 * screen each row becomes a card whose cells carry their column's name (`data-label`), so buttons
 * never sit off screen.
 */
export function renderTable<Row>(table: Table<Row>): SafeHtml {
  if (table.rows.length === 0 && table.empty) return table.empty;
  const headers = table.columns.map(
    (column) =>
      markup`<th scope="col">${column.mutedHeader ? markup`<span class="muted">${column.header}</span>` : column.header}</th>`,
  );
  const rows = table.rows.map(
    (row) =>
      markup`<tr>
        ${table.columns.map(
          (column) => markup`<td data-label="${column.mutedHeader ? '' : column.header}">${column.cell(row)}</td>`,
        )}
      </tr>`,
  );
  return markup`<div class="table">
    <table>
      ${table.caption === undefined ? '' : markup`<caption class="muted">${table.caption}</caption>`}
      <thead>
        <tr>
          ${headers}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
