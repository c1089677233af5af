import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { countOf } from '../../../src/shared/rules-in-words.ts';
import { useFieldRules } from './forms.tsx';

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
  /**
   * The list's field in a SubmitForm (`content/sections`, a JSON pointer under /body): the most items
   * its schema allows are stated under the legend, and no "Add" is offered once there are that many.
   */
  name?: string;
  /** The order matters (a version's sections): each row can move up and down. */
  movable?: boolean;
  /** A row's fields; `update` merges changes into that row. */
  children: (item: T, update: (changes: Partial<T>) => void, index: number) => ComponentChildren;
}

type Direction = 'up' | 'down';

/** A list of like fields a form repeats (a page's actions, widgets, scripts), with add and remove. */
export function Rows<T>({
  legend,
  noun,
  items,
  blank,
  onChange,
  hint,
  name: field,
  movable,
  children,
}: RowsProps<T>) {
  const group = useRef<HTMLFieldSetElement>(null);
  const [moved, setMoved] = useState<{ to: number; direction: Direction } | null>(null);
  // The button pressed now belongs to the row that took the moved one's place: focus follows the
  // moved row, to the same button, or to the other one at the top or bottom of the list.
  useLayoutEffect(() => {
    if (!moved) return;
    const row = group.current?.querySelectorAll(':scope > fieldset')[moved.to];
    const other = moved.direction === 'up' ? 'down' : 'up';
    const button =
      row?.querySelector<HTMLButtonElement>(`[data-move="${moved.direction}"]`) ??
      row?.querySelector<HTMLButtonElement>(`[data-move="${other}"]`);
    button?.focus();
    setMoved(null);
  }, [moved]);

  const update = (index: number) => (changes: Partial<T>) =>
    onChange(items.map((item, at) => (at === index ? { ...item, ...changes } : item)));
  const move = (index: number, direction: Direction) => {
    const to = direction === 'up' ? index - 1 : index + 1;
    const next = [...items];
    [next[index], next[to]] = [next[to] as T, next[index] as T];
    onChange(next);
    setMoved({ to, direction });
  };
  const name = noun.toLowerCase();
  const max = useFieldRules(field)?.maxItems;
  const limit = max === undefined ? '' : `At most ${countOf(max, name)}.`;
  return (
    <fieldset ref={group}>
      <legend>{legend}</legend>
      {(hint || limit) && (
        <p class="hint muted">
          {hint}
          {hint && limit && ' '}
          {limit}
        </p>
      )}
      {items.map((item, index) => (
        // Rows have no id of their own until saved; their position is their identity here.
        <fieldset key={index}>
          <legend>{`${noun} ${index + 1}`}</legend>
          {children(item, update(index), index)}
          <p class="actions">
            {movable && index > 0 && (
              <button type="button" data-move="up" onClick={() => move(index, 'up')}>
                Move {name} {index + 1} up
              </button>
            )}
            {movable && index < items.length - 1 && (
              <button type="button" data-move="down" onClick={() => move(index, 'down')}>
                Move {name} {index + 1} down
              </button>
            )}
            <button type="button" onClick={() => onChange(items.filter((_, at) => at !== index))}>
              Remove {name} {index + 1}
            </button>
          </p>
        </fieldset>
      ))}
      {max !== undefined && items.length >= max ? (
        <p class="hint muted">As many {name}s as a page may have: remove one to add another.</p>
      ) : (
        <p>
          <button type="button" onClick={() => onChange([...items, blank])}>
            Add {items.length === 0 ? 'a' : 'another'} {name}
          </button>
        </p>
      )}
    </fieldset>
  );
}
