import type { ComponentChildren } from 'preact';

export interface Column<T> {
  label: string;
  cell: (item: T) => ComponentChildren;
}

interface TableProps<T> {
  /** Names the table for assistive technology. */
  caption: string;
  columns: Column<T>[];
  items: T[];
  rowKey: (item: T) => string;
}

/** A table whose rows become labelled cards at phone width (styles.css), so nothing scrolls sideways. */
export function Table<T>({ caption, columns, items, rowKey }: TableProps<T>) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.label}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)}>
              {columns.map((column) => (
                <td key={column.label} data-label={column.label}>
                  {column.cell(item)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
