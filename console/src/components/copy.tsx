import { useId, useState } from 'preact/hooks';

/** A value to copy (a public URL): shown in a read-only field, with a button that copies it. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div class="field">
      <label class="visually-hidden" for={id}>
        {label}
      </label>
      <div class="copy-field">
        <input id={id} readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <span class="hint" role="status">
        {copied === 'copied' && 'Copied.'}
        {copied === 'failed' && 'The browser refused: select the address and copy it yourself.'}
      </span>
    </div>
  );
}
