import type { Page, PageCreate, PageType } from '@tailor/client';
import { useState } from 'preact/hooks';
import type { Failure } from '../../api.ts';
import {
  Checkbox,
  type Choice,
  Field,
  Select,
  Submit,
  SubmitForm,
  TextArea,
  TextInput,
} from '../../components/forms.tsx';
import { Rows } from '../../components/rows.tsx';
import type { OperationId } from '../../operation-schemas.ts';
import { useBrands } from '../brands/names.tsx';

type ActionDraft = PageCreate['actions'][number];
type WidgetDraft = PageCreate['actionCardWidgets'][number];
type ScriptDraft = PageCreate['scripts'][number];

/** What the form edits: the page's create fields, with its metadata title and description. */
export interface PageDraft {
  name: string;
  pageType: PageType;
  brandId: string;
  pageContext: string;
  title: string;
  description: string;
  actions: ActionDraft[];
  headerActionId: string;
  actionCardWidgets: WidgetDraft[];
  scripts: ScriptDraft[];
}

const PAGE_TYPES: Choice<PageType>[] = [
  { value: 'inbound', label: 'Inbound (visitors come to it)' },
  { value: 'outbound', label: 'Outbound (sent to a prospect)' },
  { value: 'call_followup', label: 'Call follow-up' },
  { value: 'sales_deck', label: 'Sales deck' },
  { value: 'custom', label: 'Custom' },
];
const ACTION_TYPES = ['link', 'form', 'phone', 'email'];

/** The action kinds offered, with an action's own kind when it is none of them (set through the API). */
function actionKinds(current: string): Choice<string>[] {
  return [...new Set([...ACTION_TYPES, current])].map((kind) => ({ value: kind, label: kind }));
}

/**
 * The widget kinds docs/resources.md names. The API takes any kind (the contract lists none) and a
 * page shows a widget by what it holds: its logos, else its title with the first action's button.
 */
const WIDGET_KINDS = [
  { value: 'logos', label: 'Logos (a strip of customer logos)' },
  { value: 'testimonial', label: 'Testimonial' },
  { value: 'cta', label: 'Call to action (the title and the first button)' },
];

/** The kinds offered, with a widget's own kind when it is none of them (set through the API). */
function widgetKinds(current: string): Choice<string>[] {
  return WIDGET_KINDS.some((kind) => kind.value === current)
    ? WIDGET_KINDS
    : [...WIDGET_KINDS, { value: current, label: current }];
}

/** The header button's choices: none, or one of the actions (one not saved yet by its place, `#0`). */
function headerChoices(actions: ActionDraft[]): Choice<string>[] {
  const choices = actions.map((action, index) => ({
    value: action.actionId || `#${index}`,
    label: action.buttonTitle || `Action ${index + 1}`,
  }));
  return [{ value: '', label: 'None' }, ...choices];
}

const BLANK_ACTION: ActionDraft = { actionId: '', buttonTitle: '', actionType: 'link', url: '', purpose: '' };
const BLANK_WIDGET: WidgetDraft = { type: 'logos', title: '', logos: [] };
const BLANK_SCRIPT: ScriptDraft = { name: '', content: '', enabled: true, description: '' };

export const NEW_PAGE: PageDraft = {
  name: '',
  pageType: 'inbound',
  brandId: '',
  pageContext: '',
  title: '',
  description: '',
  actions: [{ ...BLANK_ACTION, buttonTitle: 'Book a demo', actionType: 'form' }],
  headerActionId: '',
  actionCardWidgets: [],
  scripts: [],
};

export function draftOf(page: Page): PageDraft {
  return {
    name: page.name,
    pageType: page.pageType,
    brandId: page.brandId,
    pageContext: page.pageContext,
    title: page.metadata?.title ?? '',
    description: page.metadata?.description ?? '',
    actions: page.actions.map(({ actionId, buttonTitle, actionType, url, purpose }) => ({
      actionId,
      buttonTitle,
      actionType,
      url,
      purpose,
    })),
    headerActionId: page.headerActionId ?? '',
    actionCardWidgets: page.actionCardWidgets.map(({ type, title, logos }) => ({
      type,
      title,
      logos: logos.map(({ image }) => ({ image })),
    })),
    scripts: page.scripts,
  };
}

/** A readable action id from the button title, unique among `taken` ("book-a-demo", "book-a-demo-2"). */
function actionIdFor(title: string, taken: Set<string>): string {
  const base =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'action';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/**
 * The body for POST /v0/pages or PATCH /v0/pages/{id}. Actions without an id get one from their
 * title, so that the header action can name any of them; `metadata` keeps the page's other fields.
 */
export function bodyOf(draft: PageDraft, page?: Page): PageCreate {
  const taken = new Set(draft.actions.map((action) => action.actionId).filter(Boolean) as string[]);
  const actions = draft.actions.map((action) => ({
    ...action,
    actionId: action.actionId || actionIdFor(action.buttonTitle, taken),
  }));
  const headerIndex = draft.actions.findIndex(
    (action, index) => (action.actionId || `#${index}`) === draft.headerActionId,
  );
  const { title: _title, description: _description, ...otherMetadata } = page?.metadata ?? {};
  const metadata = {
    ...otherMetadata,
    ...(draft.title ? { title: draft.title } : {}),
    ...(draft.description ? { description: draft.description } : {}),
  };
  return {
    name: draft.name,
    pageType: draft.pageType,
    brandId: draft.brandId,
    pageContext: draft.pageContext,
    actions,
    ...(headerIndex >= 0 ? { headerActionId: actions[headerIndex]?.actionId } : {}),
    actionCardWidgets: draft.actionCardWidgets,
    scripts: draft.scripts,
    metadata,
  };
}

interface PageFormProps {
  initial: PageDraft;
  /** createPage or updatePage: the fields state its rules. */
  operation: OperationId;
  submitLabel: string;
  failure: Failure | null;
  pending: boolean;
  onSubmit: (draft: PageDraft) => void;
}

/** Every field a page needs, with the API's errors beside them. */
export function PageForm({ initial, operation, submitLabel, failure, pending, onSubmit }: PageFormProps) {
  const [draft, setDraft] = useState(initial);
  const brands = useBrands();
  const set = (changes: Partial<PageDraft>) => setDraft({ ...draft, ...changes });

  return (
    <SubmitForm onSubmit={() => onSubmit(draft)} problem={failure} pending={pending} operation={operation}>
      <div class="card">
        <h2>The page</h2>
        <div class="row">
          <Field label="Name" name="name" hint="Shown in the console and as the title">
            {(control) => (
              <TextInput {...control} required value={draft.name} onValue={(name) => set({ name })} />
            )}
          </Field>
          <Field label="Type" name="pageType" limits={false}>
            {(control) => (
              <Select
                {...control}
                value={draft.pageType}
                choices={PAGE_TYPES}
                onValue={(pageType) => set({ pageType })}
              />
            )}
          </Field>
          <Field
            label="Brand"
            name="brandId"
            hint="The brand id whose profile styles the page and guides its voice"
          >
            {(control) => (
              <>
                <TextInput
                  {...control}
                  list="brand-ids"
                  value={draft.brandId}
                  onValue={(brandId) => set({ brandId })}
                />
                <datalist id="brand-ids">
                  {brands.data?.map((brand) => (
                    <option key={brand.brandId} value={brand.brandId}>
                      {brand.name}
                    </option>
                  ))}
                </datalist>
              </>
            )}
          </Field>
        </div>
        <Field
          label="What the page is about"
          name="pageContext"
          hint="The offer, for whom, and why: the personalizer writes each audience's version from it"
        >
          {(control) => (
            <TextArea
              {...control}
              required
              value={draft.pageContext}
              onValue={(pageContext) => set({ pageContext })}
            />
          )}
        </Field>
        <div class="row">
          <Field label="Title" name="metadata/title" hint="The tab title; the name when empty">
            {(control) => <TextInput {...control} value={draft.title} onValue={(title) => set({ title })} />}
          </Field>
          <Field label="Description" name="metadata/description" hint="For search engines">
            {(control) => (
              <TextInput
                {...control}
                value={draft.description}
                onValue={(description) => set({ description })}
              />
            )}
          </Field>
        </div>
      </div>

      <Rows
        legend="Actions"
        noun="Action"
        name="actions"
        hint="The buttons of the page: a link, or the page's form."
        items={draft.actions}
        blank={BLANK_ACTION}
        onChange={(actions) => set({ actions })}
      >
        {(action, update, index) => (
          <div class="row">
            <Field label="Button text" name={`actions/${index}/buttonTitle`}>
              {(control) => (
                <TextInput
                  {...control}
                  required
                  value={action.buttonTitle}
                  onValue={(buttonTitle) => update({ buttonTitle })}
                />
              )}
            </Field>
            <Field label="Kind" name={`actions/${index}/actionType`} limits={false}>
              {(control) => (
                <Select
                  {...control}
                  value={action.actionType}
                  choices={actionKinds(action.actionType)}
                  onValue={(actionType) => update({ actionType })}
                />
              )}
            </Field>
            <Field label="URL" name={`actions/${index}/url`} hint="For a link">
              {(control) => (
                <TextInput {...control} value={action.url ?? ''} onValue={(url) => update({ url })} />
              )}
            </Field>
            <Field label="Purpose" name={`actions/${index}/purpose`} hint="What it is for">
              {(control) => (
                <TextInput
                  {...control}
                  value={action.purpose ?? ''}
                  onValue={(purpose) => update({ purpose })}
                />
              )}
            </Field>
          </div>
        )}
      </Rows>
      <div class="card">
        <Field
          label="Header button"
          name="headerActionId"
          hint="The action shown in the header"
          limits={false}
        >
          {(control) => (
            <Select
              {...control}
              value={draft.headerActionId}
              choices={headerChoices(draft.actions)}
              onValue={(headerActionId) => set({ headerActionId })}
            />
          )}
        </Field>
      </div>

      <Rows
        legend="Widgets"
        noun="Widget"
        hint="Cards beside the actions, such as the logos of customers"
        items={draft.actionCardWidgets}
        blank={BLANK_WIDGET}
        onChange={(actionCardWidgets) => set({ actionCardWidgets })}
      >
        {(widget, update, index) => (
          <>
            <div class="row">
              <Field label="Kind" name={`actionCardWidgets/${index}/type`} limits={false}>
                {(control) => (
                  <Select
                    {...control}
                    value={widget.type}
                    choices={widgetKinds(widget.type)}
                    onValue={(type) => update({ type })}
                  />
                )}
              </Field>
              <Field label="Title" name={`actionCardWidgets/${index}/title`}>
                {(control) => (
                  <TextInput {...control} value={widget.title ?? ''} onValue={(title) => update({ title })} />
                )}
              </Field>
            </div>
            <Rows
              legend="Logos"
              noun="Logo"
              items={widget.logos ?? []}
              blank={{ image: { url: '', altText: '' } }}
              onChange={(logos) => update({ logos })}
            >
              {(logo, updateLogo, logoIndex) => (
                <div class="row">
                  <Field label="Image URL" name={`actionCardWidgets/${index}/logos/${logoIndex}/image/url`}>
                    {(control) => (
                      <TextInput
                        {...control}
                        value={logo.image.url ?? ''}
                        onValue={(url) => updateLogo({ image: { ...logo.image, url } })}
                      />
                    )}
                  </Field>
                  <Field
                    label="Alternative text"
                    name={`actionCardWidgets/${index}/logos/${logoIndex}/image/altText`}
                  >
                    {(control) => (
                      <TextInput
                        {...control}
                        value={logo.image.altText ?? ''}
                        onValue={(altText) => updateLogo({ image: { ...logo.image, altText } })}
                      />
                    )}
                  </Field>
                </div>
              )}
            </Rows>
          </>
        )}
      </Rows>

      <Rows
        legend="Scripts"
        noun="Script"
        name="scripts"
        hint="HTML added to the public page (analytics, chat); previews never run them."
        items={draft.scripts}
        blank={BLANK_SCRIPT}
        onChange={(scripts) => set({ scripts })}
      >
        {(script, update, index) => (
          <>
            <Field label="Name" name={`scripts/${index}/name`}>
              {(control) => (
                <TextInput {...control} value={script.name ?? ''} onValue={(name) => update({ name })} />
              )}
            </Field>
            <Field label="HTML" name={`scripts/${index}/content`}>
              {(control) => (
                <TextArea {...control} value={script.content} onValue={(content) => update({ content })} />
              )}
            </Field>
            <Checkbox
              label="Enabled"
              checked={script.enabled ?? true}
              onChecked={(enabled) => update({ enabled })}
            />
          </>
        )}
      </Rows>

      <div class="actions">
        <Submit label={submitLabel} pendingLabel="Saving…" />
      </div>
    </SubmitForm>
  );
}
