import type { Brand, BrandInput } from '@tailor/client';
import { useState } from 'preact/hooks';
import type { Failure } from '../../api.ts';
import { Field, FieldMessage, Submit, SubmitForm, TextArea, TextInput } from '../../components/forms.tsx';
import { useDebounced, useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { LogoImage, LogoUpload } from './logo.tsx';

/** What the form edits: the whole profile as text ("" for none), as PUT replaces it whole. */
export interface BrandDraft {
  brandId: string;
  name: string;
  website: string;
  logoAssetId: string;
  primary: string;
  accent: string;
  voice: string;
  footerText: string;
}

export const NEW_BRAND: BrandDraft = {
  brandId: '',
  name: '',
  website: '',
  logoAssetId: '',
  primary: '',
  accent: '',
  voice: '',
  footerText: '',
};

export function draftOf(brand: Brand): BrandDraft {
  return {
    brandId: brand.brandId,
    name: brand.name,
    website: brand.website ?? '',
    logoAssetId: brand.logoAssetId ?? '',
    primary: brand.colors.primary ?? '',
    accent: brand.colors.accent ?? '',
    voice: brand.voice ?? '',
    footerText: brand.footerText ?? '',
  };
}

/** The PUT body: every field filled in (a field left empty is cleared, as PUT replaces the profile). */
export function bodyOf(draft: BrandDraft): BrandInput {
  const given = <K extends string>(key: K, value: string) => (value.trim() ? { [key]: value.trim() } : {});
  return {
    name: draft.name.trim(),
    ...given('website', draft.website),
    ...given('logoAssetId', draft.logoAssetId),
    colors: { ...given('primary', draft.primary), ...given('accent', draft.accent) },
    ...given('voice', draft.voice),
    ...given('footerText', draft.footerText),
  };
}

/** A colour as a small square beside its code; set through the CSSOM, which the CSP allows. */
export function Swatch({ colour }: { colour: string }) {
  if (!/^#[0-9a-f]{6}$/i.test(colour)) return null;
  return <span class="swatch" style={{ backgroundColor: colour }} aria-hidden="true" />;
}

/** The profile that has `brandId` already, or null: PUT would replace it, so a new brand may not take its id. */
function useBrand(brandId: string): Brand | null {
  const { client } = useSession();
  const settled = useDebounced(brandId.trim());
  const found = useLoad(
    async () =>
      settled
        ? ((await client.GET('/v0/brands/{brand_id}', { params: { path: { brand_id: settled } } })).data ??
          null)
        : null,
    [settled],
  );
  return settled === brandId.trim() ? (found.data ?? null) : null;
}

interface BrandIdFieldProps {
  value: string;
  onValue: (value: string) => void;
  /** The profile that has this id already. */
  takenBy: Brand | null;
}

function BrandIdField({ value, onValue, takenBy }: BrandIdFieldProps) {
  return (
    <Field
      label="Brand id"
      name="brandId"
      hint={
        takenBy ? (
          <>
            Taken by <Link href={`/brands/${takenBy.brandId}`}>{takenBy.name}</Link>: choose another id, or
            edit that brand.
          </>
        ) : (
          'What pages name as their brand'
        )
      }
    >
      {(control) => <TextInput {...control} required spellcheck={false} value={value} onValue={onValue} />}
    </Field>
  );
}

interface BrandFormProps {
  initial: BrandDraft;
  /** A new profile takes its brand id here; an existing one keeps it. */
  isNew: boolean;
  submitLabel: string;
  failure: Failure | null;
  pending: boolean;
  onSubmit: (draft: BrandDraft) => void;
}

/** The brand id is a path parameter of PUT: its rules and errors are shown beside its field. */
const BRAND_ID_FIELD = { '/params/brand_id': 'brandId' };

export function BrandForm({ initial, isNew, submitLabel, failure, pending, onSubmit }: BrandFormProps) {
  const [draft, setDraft] = useState(initial);
  const takenBy = useBrand(isNew ? draft.brandId : '');
  const set = (field: keyof BrandDraft) => (value: string) =>
    setDraft((current) => ({ ...current, [field]: value }));
  return (
    <SubmitForm
      onSubmit={() => onSubmit(draft)}
      problem={failure}
      pending={pending}
      operation="putBrand"
      fields={BRAND_ID_FIELD}
    >
      <div class="card">
        <div class="row">
          <Field label="Name" name="name" hint="Shown in the header and footer of its pages">
            {(control) => <TextInput {...control} required value={draft.name} onValue={set('name')} />}
          </Field>
          {isNew && <BrandIdField value={draft.brandId} onValue={set('brandId')} takenBy={takenBy} />}
        </div>
        <Field label="Website" name="website" hint="The logo links to it">
          {(control) => <TextInput {...control} type="url" value={draft.website} onValue={set('website')} />}
        </Field>
      </div>
      <fieldset class="card">
        <legend>Logo</legend>
        {draft.logoAssetId ? (
          <div class="logo-row">
            <LogoImage assetId={draft.logoAssetId} alt={`The logo of ${draft.name || 'the brand'}`} />
            <button type="button" onClick={() => set('logoAssetId')('')}>
              Remove the logo
            </button>
          </div>
        ) : (
          <p class="muted">No logo: the brand's name stands alone in the header.</p>
        )}
        <LogoUpload assetName={`${draft.name || draft.brandId} logo`} onUploaded={set('logoAssetId')} />
        <FieldMessage name="logoAssetId" />
      </fieldset>
      <fieldset class="card">
        <legend>Colours</legend>
        <div class="row">
          <Field label="Primary" name="colors/primary" hint="Buttons and links">
            {(control) => (
              <span class="colour-input">
                <TextInput {...control} spellcheck={false} value={draft.primary} onValue={set('primary')} />
                <Swatch colour={draft.primary} />
              </span>
            )}
          </Field>
          <Field label="Accent" name="colors/accent" hint="Highlights">
            {(control) => (
              <span class="colour-input">
                <TextInput {...control} spellcheck={false} value={draft.accent} onValue={set('accent')} />
                <Swatch colour={draft.accent} />
              </span>
            )}
          </Field>
        </div>
      </fieldset>
      <div class="card">
        <Field
          label="Voice"
          name="voice"
          hint='Tone, and words to use or avoid; generation follows it ("Avoid: synergy, leverage")'
        >
          {(control) => <TextArea {...control} value={draft.voice} onValue={set('voice')} />}
        </Field>
        <Field label="Footer text" name="footerText" hint="Shown in the footer of its pages">
          {(control) => <TextArea {...control} value={draft.footerText} onValue={set('footerText')} />}
        </Field>
      </div>
      <div class="actions">
        <Submit label={submitLabel} pendingLabel="Saving…" disabled={isNew && takenBy !== null} />
      </div>
    </SubmitForm>
  );
}
