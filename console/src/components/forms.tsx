import type { ComponentChildren, InputHTMLAttributes, JSX } from 'preact';
import { createContext } from 'preact';
import { useContext, useId, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { limitsOf, numberInWords, type Rules, sizeOf } from '../../../src/shared/rules-in-words.ts';
import { type Failure, fieldError } from '../api.ts';
import { atFormFields } from '../form-fields.ts';
import { type Action, useOperationSchema } from '../hooks.ts';
import { type OperationId, type OperationSchema, schemaAt } from '../operation-schemas.ts';
import { ProblemMessage, ProblemText } from './problem.tsx';

/** Which errors a form's fields show, and whether it has a Submit: kept for the form's life. */
class FormRegistry {
  /** The pointers of the fields shown, each with whether the field shows its items' errors too. */
  private readonly fields = new Map<string, boolean>();
  submits = 0;

  /** A field shows the errors at `/body/{field}` (and under it, when `nested`) from now on. */
  show(field: string, nested: boolean): () => void {
    this.fields.set(`/body/${field}`, nested);
    return () => this.fields.delete(`/body/${field}`);
  }

  isShown(path: string): boolean {
    return [...this.fields].some(
      ([field, nested]) => path === field || (nested && path.startsWith(`${field}/`)),
    );
  }

  /** A Submit is in the form: the outcome is said beside it rather than above the fields. */
  addSubmit(): () => void {
    this.submits++;
    return () => {
      this.submits--;
    };
  }
}

/**
 * What the fields and buttons of a SubmitForm share: the last submission's problem and outcome, the
 * rules of the operation it sends (stated beside each input), and which errors its fields show.
 */
interface FormState {
  problem: Failure | null;
  pending: boolean;
  /** Said beside the pressed button once its save succeeded, until the form is edited again. */
  saved: string | false;
  /** The value of the submit button pressed last. */
  pressed: string | undefined;
  operation: OperationSchema | undefined;
  /** The pointer of the request a field stands for: `/body/name`, or a parameter's (`/params/brand_id`). */
  pointerOf: (field: string) => string;
  registry: FormRegistry;
}

const FormContext = createContext<FormState | null>(null);

/**
 * The error of the field `name` (a JSON pointer under /body: `name`, `actions/0/buttonTitle`), from
 * `failure` or the form's problem; the form then knows that this field shows it. `nested`: the field
 * shows its items' errors too (`events/2`).
 */
export function useFieldError(name: string, failure?: Failure | null, nested = false): string | undefined {
  const form = useContext(FormContext);
  const registry = form?.registry;
  useLayoutEffect(() => registry?.show(name, nested), [registry, name, nested]);
  const problem = failure ?? form?.problem;
  if (!nested) return fieldError(problem, name);
  return problem?.errors?.find((error) => `${error.path}/`.startsWith(`/body/${name}/`))?.message;
}

/**
 * The error of a field that is not one control (a group of checkboxes, an upload), shown where the
 * form puts it; `nested`: its items' errors too.
 */
export function FieldMessage({ name, nested = false }: { name: string; nested?: boolean }) {
  const error = useFieldError(name, undefined, nested);
  return error ? <p class="field-error">{error}</p> : null;
}

/**
 * The schema the form's operation has for the field `name` (`content/content`); undefined outside a
 * SubmitForm with an `operation`, or until the API's document is read.
 */
export function useFieldRules(name: string | undefined): Rules | undefined {
  const form = useContext(FormContext);
  return name === undefined || !form?.operation ? undefined : schemaAt(form.operation, form.pointerOf(name));
}

/** What the operation's schema asks of the field `name`, in words ("At most 255 characters"). */
function useLimits(name: string): string[] {
  const rules = useFieldRules(name);
  return rules ? limitsOf(rules) : [];
}

/**
 * How long the text of the field `name` is against the most its schema allows, counted as the API
 * counts (characters, not UTF-16 units): "42 of 10,000 characters", or how far over it is.
 */
export function CharacterCount({ name, text }: { name: string; text: string }) {
  const form = useContext(FormContext);
  const limit = useFieldRules(name)?.maxLength;
  if (limit === undefined) return null;
  const length = [...text].length;
  // Once the field is marked, its error says how far over it is: the count only counts.
  if (length > limit && !fieldError(form?.problem, name))
    return (
      <span class="field-error">
        {numberInWords(length)} characters: {numberInWords(length - limit)} over the limit
      </span>
    );
  return (
    <span class="hint count">
      {numberInWords(length)} of {numberInWords(limit)} characters
    </span>
  );
}

/**
 * A labelled form control with its hint, the limits the API holds it to (stated before anything is
 * typed, from the schema the form's operation has in the OpenAPI document) and, beside it, the
 * API's error for its field: `name` is the field's JSON pointer under /body (`name`,
 * `actions/0/buttonTitle`), as problem `errors` name it. In a SubmitForm, `failure` may be left out:
 * the form's problem is used.
 */
interface FieldProps {
  label: string;
  name: string;
  failure?: Failure | null;
  hint?: ComponentChildren;
  /** State the schema's limits under the label (false for a control whose choices are its limits, a select). */
  limits?: boolean;
  children: (control: ControlProps) => JSX.Element;
}

/** What a control needs to be tied to its label, hint and error. */
export interface ControlProps {
  id: string;
  name: string;
  'aria-invalid'?: 'true';
  'aria-describedby'?: string;
}

export function Field({ label, name, failure, hint, limits: stated = true, children }: FieldProps) {
  const id = useId();
  const error = useFieldError(name, failure);
  const rules = useLimits(name);
  const limits = stated ? rules : [];
  const describedBy = [
    hint ? `${id}-hint` : '',
    limits.length ? `${id}-limits` : '',
    error ? `${id}-error` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <div class="field">
      <div class="field-head">
        <label for={id}>{label}</label>
        {hint && (
          <span class="hint" id={`${id}-hint`}>
            {hint}
          </span>
        )}
        {limits.length > 0 && (
          <span class="hint limits" id={`${id}-limits`}>
            {limits.join('. ')}.
          </span>
        )}
      </div>
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
  type?: 'text' | 'search' | 'password' | 'url' | 'email' | 'number' | 'tel';
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

/** A form's outcome from the action that saves it: `{...outcomeOf(save)}` on a SubmitForm. */
export function outcomeOf<A extends unknown[]>(action: Action<A>, saved = 'Saved.') {
  return { problem: action.failure, pending: action.pending, saved: action.done && saved };
}

interface SubmitFormProps {
  /** Called with the value of the Submit pressed (its label unless given one). */
  onSubmit: (pressed: string) => void;
  /** The API's problem with the last submission: field errors beside each field, the rest beside the button. */
  problem?: Failure | null;
  /** The submission is under way. */
  pending?: boolean;
  /** What to say beside the pressed button once the submission succeeded ("Saved."). */
  saved?: string | false;
  /**
   * The operation the form sends: each field states its rules from its schema (the client checks the
   * request against the same schema before sending it: operation-schemas.ts).
   */
  operation?: OperationId;
  /** Pointers of parameters (`/params/brand_id`) to the field that holds each (`brandId`). */
  fields?: Record<string, string>;
  class?: string;
  children: ComponentChildren;
}

/**
 * A form that submits through `onSubmit`, never by loading a page. Each field error is beside its
 * field. With a `Submit` inside, the outcome of a submission is said beside the button pressed (and
 * announced), and errors no field shows are listed above the fields; without one, the whole problem
 * is said above the fields.
 */
export function SubmitForm({
  onSubmit,
  problem,
  pending = false,
  saved = false,
  operation,
  fields = {},
  class: className,
  children,
}: SubmitFormProps) {
  const schema = useOperationSchema(operation);
  const [pressed, setPressed] = useState<string | undefined>(undefined);
  const [edited, setEdited] = useState(false);
  const registry = useMemo(() => new FormRegistry(), []);
  const mapped = problem ? atFormFields(problem, fields) : null;
  const form: FormState = {
    problem: mapped,
    pending,
    saved: !edited && saved,
    pressed,
    operation: schema,
    pointerOf: (field) => Object.entries(fields).find(([, name]) => name === field)?.[0] ?? `/body/${field}`,
    registry,
  };
  const isShown = (path: string) => registry.isShown(path);
  // With a Submit, the outcome is beside it: above the fields only the errors no field shows.
  const others = registry.submits > 0 && mapped?.errors?.some((error) => !isShown(error.path));
  return (
    <form
      class={className}
      onInput={() => setEdited(true)}
      onSubmit={(event) => {
        event.preventDefault();
        const button = event.submitter as HTMLButtonElement | null;
        setPressed(button?.value || undefined);
        setEdited(false);
        onSubmit(button?.value ?? '');
      }}
    >
      <FormContext.Provider value={form}>
        {registry.submits === 0 && <ProblemMessage failure={mapped} />}
        {others && <ProblemMessage failure={mapped} isShown={isShown} />}
        {children}
      </FormContext.Provider>
    </form>
  );
}

interface SubmitProps {
  label: string;
  /** Shown while the submission runs: "Saving…". */
  pendingLabel?: string;
  /** Tells one Submit of a form from another (onSubmit gets it); the label by default. */
  value?: string;
  disabled?: boolean;
  /** The form's main button. */
  primary?: boolean;
}

/** A form's submit button, with the outcome of its last press beside it. */
export function Submit({ label, pendingLabel, value = label, disabled, primary = true }: SubmitProps) {
  const form = useContext(FormContext);
  const registry = form?.registry;
  useLayoutEffect(() => registry?.addSubmit(), [registry]);
  const pressed = form?.pressed === undefined || form.pressed === value;
  return (
    <>
      <button
        class={primary ? 'primary' : undefined}
        type="submit"
        value={value}
        disabled={disabled || form?.pending}
      >
        {form?.pending && pressed && pendingLabel ? pendingLabel : label}
      </button>
      <span class="outcome" role="status">
        {form && pressed && !form.pending && <Outcome form={form} />}
      </span>
    </>
  );
}

/** "Saved.", or why not, in the words of the problem: a field error is marked beside its field. */
function Outcome({ form }: { form: FormState }) {
  const { problem, saved } = form;
  if (!problem) return saved ? <span class="saved">{saved}</span> : null;
  const errors = problem.errors ?? [];
  if (errors.length === 0) {
    return (
      <span class="failed">
        Not saved. <ProblemText failure={problem} />
      </span>
    );
  }
  const marked = errors.filter((error) => form.registry.isShown(error.path)).length;
  const fields = marked === 1 ? 'the field marked' : `the ${marked} fields marked`;
  return (
    <span class="failed">
      Not saved. {marked === errors.length ? `Correct ${fields}.` : 'See what to correct above.'}
    </span>
  );
}

/** "PNG, JPEG or SVG": the media types a file may have, as people name them. */
const MEDIA_NAMES: Record<string, string> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
  'image/svg+xml': 'SVG',
};

function mediaName(type: string): string {
  return MEDIA_NAMES[type] ?? type;
}

interface FileFieldProps {
  label: string;
  /** The upload it is sent to: its schema says which types and how many bytes it takes. */
  operation: OperationId;
  /** The upload is under way. */
  pending: boolean;
  /** The last upload's problem. */
  failure: Failure | null;
  /** Said once the upload is done ("Uploaded."). */
  done?: string | false;
  /** A file of an accepted type and size was chosen: upload it. */
  onFile: (file: File) => void;
}

/**
 * A file input that states, before a file is chosen, the types and the largest size its upload
 * takes, and checks both when one is: a file it would refuse is never sent.
 */
export function FileField({ label, operation, pending, failure, done, onFile }: FileFieldProps) {
  const id = useId();
  const request = useOperationSchema(operation);
  const [refusal, setRefusal] = useState<string | null>(null);
  const types = Object.keys(request?.content ?? {});
  const maxBytes = types[0] ? request?.content[types[0]]?.maxLength : undefined;
  const names = types.map(mediaName);
  const accepted =
    names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '');
  const limits = [accepted, maxBytes === undefined ? '' : `at most ${sizeOf(maxBytes)}`].filter(Boolean);
  const choose = (file: File) => {
    if (!types.includes(file.type)) {
      setRefusal(
        `${file.name} is ${file.type ? mediaName(file.type) : 'of no known type'}: choose a ${accepted} file.`,
      );
    } else if (maxBytes !== undefined && file.size > maxBytes) {
      setRefusal(`${file.name} is ${sizeOf(file.size)}: the largest file is ${sizeOf(maxBytes)}.`);
    } else {
      setRefusal(null);
      onFile(file);
    }
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <span class="hint" id={`${id}-hint`}>
        {limits.length > 0 ? `${limits.join(', ')}.` : ' '}
      </span>
      <input
        id={id}
        type="file"
        accept={types.join(',')}
        aria-describedby={`${id}-hint ${id}-outcome`}
        {...(refusal || failure ? { 'aria-invalid': 'true' } : {})}
        disabled={pending || !request}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) choose(file);
        }}
      />
      <span class="outcome" role="status" id={`${id}-outcome`}>
        {pending && 'Uploading…'}
        {!pending && refusal && <span class="failed">Not uploaded: {refusal}</span>}
        {!pending && !refusal && failure && (
          <span class="failed">
            Not uploaded. <ProblemText failure={failure} />
          </span>
        )}
        {!pending && !refusal && !failure && done && <span class="saved">{done}</span>}
      </span>
    </div>
  );
}
