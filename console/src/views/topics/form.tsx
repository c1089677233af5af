import type { Brand, Topic, TopicCreate } from '@tailor/client';
import { useId, useState } from 'preact/hooks';
import {
  Checkbox,
  Field,
  FieldMessage,
  outcomeOf,
  Submit,
  SubmitForm,
  TextArea,
  TextInput,
} from '../../components/forms.tsx';
import type { Action } from '../../hooks.ts';
import { useBrands } from '../brands/names.tsx';

/** What the form edits: a topic's fields, with its brand scoping as a choice and the brands chosen. */
export interface TopicDraft {
  title: string;
  purpose: string;
  sortOrder: string;
  isDefault: boolean;
  /** Only for the brands in `brandIds`; otherwise shared by every brand. */
  scoped: boolean;
  brandIds: string[];
}

export const NEW_TOPIC: TopicDraft = {
  title: '',
  purpose: '',
  sortOrder: '0',
  isDefault: false,
  scoped: false,
  brandIds: [],
};

export function draftOf(topic: Topic): TopicDraft {
  return {
    title: topic.title,
    purpose: topic.purpose,
    sortOrder: String(topic.sortOrder),
    isDefault: topic.isDefault,
    scoped: topic.brandIds.length > 0,
    brandIds: topic.brandIds,
  };
}

/** The create body, or every field for a PATCH: a topic scoped to no brand is shared by every brand. */
export function bodyOf(draft: TopicDraft): Required<TopicCreate> {
  return {
    title: draft.title,
    purpose: draft.purpose,
    // An order that is not a whole number is refused in the API's words, beside its field.
    sortOrder: draft.sortOrder.trim() === '' ? 0 : Number(draft.sortOrder),
    isDefault: draft.isDefault,
    brandIds: draft.scoped ? draft.brandIds : [],
  };
}

/** The fields of a PATCH that change `topic`, so that saving an unchanged topic changes nothing. */
export function changesOf(draft: TopicDraft, topic: Topic): Partial<TopicCreate> {
  const body = bodyOf(draft);
  const same = (key: keyof TopicCreate) => JSON.stringify(body[key]) === JSON.stringify(topic[key]);
  return Object.fromEntries(
    (Object.keys(body) as (keyof TopicCreate)[]).filter((key) => !same(key)).map((key) => [key, body[key]]),
  );
}

interface BrandScopeProps {
  scoped: boolean;
  brandIds: string[];
  brands: Brand[];
  onChange: (scope: { scoped: boolean; brandIds: string[] }) => void;
}

/**
 * Which brands' pages may draw on the topic: every brand, or those chosen from the brand profiles
 * (a brand id the topic has without a profile stays offered, by its id).
 */
function BrandScope({ scoped, brandIds, brands, onChange }: BrandScopeProps) {
  const name = useId();
  const profiles = new Set(brands.map((brand) => brand.brandId));
  const choices = [
    ...brands.map((brand) => ({ brandId: brand.brandId, label: brand.name })),
    ...brandIds.filter((id) => !profiles.has(id)).map((id) => ({ brandId: id, label: `${id} (no profile)` })),
  ];
  const toggle = (brandId: string, on: boolean) =>
    onChange({ scoped, brandIds: on ? [...brandIds, brandId] : brandIds.filter((id) => id !== brandId) });
  return (
    <fieldset>
      <legend>Brands</legend>
      <div class="check">
        <input
          type="radio"
          id={`${name}-all`}
          name={name}
          checked={!scoped}
          onChange={() => onChange({ scoped: false, brandIds })}
        />
        <label for={`${name}-all`}>Shared by every brand</label>
      </div>
      <div class="check">
        <input
          type="radio"
          id={`${name}-some`}
          name={name}
          checked={scoped}
          onChange={() => onChange({ scoped: true, brandIds })}
        />
        <label for={`${name}-some`}>Only for the pages of these brands:</label>
      </div>
      {scoped && (
        <div class="indented">
          {choices.length === 0 && (
            <p class="muted">No brand profile yet: make one under Brands to scope topics to it.</p>
          )}
          {choices.map((choice) => (
            <Checkbox
              key={choice.brandId}
              label={choice.label}
              checked={brandIds.includes(choice.brandId)}
              onChecked={(on) => toggle(choice.brandId, on)}
            />
          ))}
          {choices.length > 0 && brandIds.length === 0 && (
            <p class="hint muted">With no brand chosen, the topic is shared by every brand.</p>
          )}
        </div>
      )}
      {/* An error may name the list or one of its items (/body/brandIds/2). */}
      <FieldMessage name="brandIds" nested />
    </fieldset>
  );
}

interface TopicFormProps {
  initial: TopicDraft;
  /** What the form sends, whose schema states its limits. */
  operation: 'createTopic' | 'updateTopic';
  submitLabel: string;
  /** Sends the draft. */
  save: Action<[TopicDraft]>;
}

export function TopicForm({ initial, operation, submitLabel, save }: TopicFormProps) {
  const [draft, setDraft] = useState(initial);
  const brands = useBrands();
  const set = (changes: Partial<TopicDraft>) => setDraft((current) => ({ ...current, ...changes }));
  return (
    <SubmitForm onSubmit={() => void save.run(draft)} {...outcomeOf(save)} operation={operation}>
      <div class="card">
        <div class="row">
          <Field label="Title" name="title" hint="What the knowledge is: Pricing, Security…">
            {(control) => (
              <TextInput {...control} required value={draft.title} onValue={(title) => set({ title })} />
            )}
          </Field>
          <Field label="Order" name="sortOrder" hint="Lower comes first; equal orders put the newest first">
            {(control) => (
              <TextInput
                {...control}
                type="number"
                min={0}
                inputMode="numeric"
                value={draft.sortOrder}
                onValue={(sortOrder) => set({ sortOrder })}
              />
            )}
          </Field>
        </div>
        <Field label="Purpose" name="purpose" hint="What it is about and when generation should draw on it">
          {(control) => (
            <TextArea {...control} value={draft.purpose} onValue={(purpose) => set({ purpose })} />
          )}
        </Field>
        <Checkbox
          label="The default topic"
          hint="general knowledge for every page, such as the company overview; it takes the place of the current default"
          checked={draft.isDefault}
          onChecked={(isDefault) => set({ isDefault })}
        />
      </div>
      <BrandScope scoped={draft.scoped} brandIds={draft.brandIds} brands={brands.data ?? []} onChange={set} />
      <div class="actions">
        <Submit label={submitLabel} pendingLabel="Saving…" />
      </div>
    </SubmitForm>
  );
}
