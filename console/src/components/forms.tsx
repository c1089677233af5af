import type { ComponentChildren, InputHTMLAttributes, JSX } from 'preact';
import { useId } from 'preact/hooks';
import { type Failure, fieldError } from '../api.ts';
import { ProblemMessage } from './problem.tsx';

/**
 * A labelled form control with its hint and, beside it, the API's error for its field: `name` is the
 * field's JSON pointer under /body (`name`, `actions/0/buttonTitle`), as problem `errors` name it.
 */
interface FieldProps {
  label: string;
  name: string;
  failure?: Failure | null;
  hint?: ComponentChildren;
  children: (control: ControlProps) => JSX.Element;
}

/** What a control needs to be tied to its label, hint and error. */
export interface ControlProps {
  id: string;
  name: string;
  'aria-invalid'?: 'true';
  'aria-describedby'?: string;
}

export function Field({ label, name, failure, hint, children }: FieldProps) {
  const id = useId();
  const error = fieldError(failure, name);
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {children({
        id,
        name,
        ...(error ? { 'aria-invalid': 'true' } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** The attributes the console's text controls take, beside their ControlProps. */
interface TextProps extends Partial<ControlProps> {
  value: string;
  onValue: (value: string) => void;
  required?: boolean;
  placeholder?: string;
}

interface InputProps extends TextProps {
  type?: 'text' | 'search' | 'password' | 'url' | 'email' | 'number';
  list?: string;
  autocomplete?: string;
  spellcheck?: boolean;
  inputMode?: 'numeric' | 'text';
  readOnly?: boolean;
  min?: number;
  max?: number;
}

/** A text input that reports its value as a string. */
export function TextInput({ value, onValue, ...rest }: InputProps) {
  // Preact 11 types the attributes of each input type apart; these hold for every type above.
  const attributes = { type: 'text', ...rest } as InputHTMLAttributes<HTMLInputElement>;
  return (
    <input
      {...attributes}
      value={value}
      onInput={(event) => onValue((event.currentTarget as HTMLInputElement).value)}
    />
  );
}

export function TextArea({ value, onValue, ...rest }: TextProps) {
  return (
    <textarea
      {...rest}
      value={value}
      onInput={(event) => onValue((event.currentTarget as HTMLTextAreaElement).value)}
    />
  );
}

/** One option of a Select: the value it stands for and what it shows. */
export interface Choice<T extends string> {
  value: T;
  label: string;
}

interface SelectProps<T extends string> extends Partial<ControlProps> {
  value: T;
  choices: readonly Choice<T>[];
  onValue: (value: T) => void;
  disabled?: boolean;
}

/**
 * A select that reports the value of the choice picked, typed as the choices are: the value is found
 * among them, so a view never casts what the DOM hands back.
 */
export function Select<T extends string>({ value, choices, onValue, ...rest }: SelectProps<T>) {
  const onChange = (event: Event) => {
    const picked = (event.currentTarget as HTMLSelectElement).value;
    const choice = choices.find((candidate) => candidate.value === picked);
    if (choice) onValue(choice.value);
  };
  return (
    <select {...rest} value={value} onChange={onChange}>
      {choices.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}

interface CheckboxProps {
  label: string;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  hint?: string;
}

export function Checkbox({ label, checked, onChecked, hint }: CheckboxProps) {
  const id = useId();
  return (
    <div class="check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(event) => onChecked((event.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>
        {label}
        {hint && <span class="muted"> · {hint}</span>}
      </label>
    </div>
  );
}

interface SubmitFormProps {
  onSubmit: () => void;
  /** The API's problem with the last submission, shown above the fields (field errors go beside each). */
  problem?: Failure | null;
  class?: string;
  children: ComponentChildren;
}

/** A form that submits through `onSubmit`, never by loading a page. */
export function SubmitForm({ onSubmit, problem, class: className, children }: SubmitFormProps) {
  return (
    <form
      class={className}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {problem !== undefined && <ProblemMessage failure={problem} />}
      {children}
    </form>
  );
}
