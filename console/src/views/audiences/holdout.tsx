import type { Failure } from '../../api.ts';
import { Field, TextInput } from '../../components/forms.tsx';

interface HoldoutFieldProps {
  value: number;
  onValue: (value: number) => void;
  /** The form's problem is used when left out. */
  failure?: Failure | null;
}

/** `holdoutPercent`: the share of visitors kept on the baseline to measure lift (its range the schema's). */
export function HoldoutField({ value, onValue, failure }: HoldoutFieldProps) {
  return (
    <Field
      label="Holdout (%)"
      name="holdoutPercent"
      failure={failure}
      hint="This share of visitors sees the page unpersonalized, so that lift can be measured"
    >
      {(control) => (
        <TextInput
          {...control}
          type="number"
          inputMode="numeric"
          min={0}
          max={50}
          value={String(value)}
          onValue={(text) => onValue(Number(text))}
        />
      )}
    </Field>
  );
}
