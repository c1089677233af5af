import type { ComponentChildren } from 'preact';

interface RowsProps<T> {
  /** Names the group: "Actions". */
  legend: string;
  /** Names one row: "Action" (rows are "Action 1", "Action 2"…). */
  noun: string;
  items: T[];
  /** A new row's values. */
  blank: T;
  onChange: (items: T[]) => void;
  hint?: ComponentChildren;
  /** A row's fields; `update` merges changes into that row. */
  children: (item: T, update: (changes: Partial<T>) => void, index: number) => ComponentChildren;
}

/** A list of like fields a form repeats (a page's actions, widgets, scripts), with add and remove. */
export function Rows<T>({ legend, noun, items, blank, onChange, hint, children }: RowsProps<T>) {
  const update = (index: number) => (changes: Partial<T>) =>
    onChange(items.map((item, at) => (at === index ? { ...item, ...changes } : item)));
  return (
    <fieldset>
      <legend>{legend}</legend>
      {hint && <p class="hint muted">{hint}</p>}
      {items.map((item, index) => (
        // Rows have no id of their own until saved; their position is their identity here.
        <fieldset key={index}>
          <legend>{`${noun} ${index + 1}`}</legend>
          {children(item, update(index), index)}
          <p>
            <button type="button" onClick={() => onChange(items.filter((_, at) => at !== index))}>
              Remove {noun.toLowerCase()} {index + 1}
            </button>
          </p>
        </fieldset>
      ))}
      <p>
        <button type="button" onClick={() => onChange([...items, blank])}>
          Add {items.length === 0 ? 'a' : 'another'} {noun.toLowerCase()}
        </button>
      </p>
    </fieldset>
  );
}
