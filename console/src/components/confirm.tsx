import { useEffect, useRef, useState } from 'preact/hooks';

interface ConfirmButtonProps {
  /** The button's text: "Delete", "Erase". */
  label: string;
  /** Asked in place before anything happens: "Erase this person and their log for good?" */
  question: string;
  /** The button that does it: "Yes, erase". */
  confirm: string;
  pending: boolean;
  onConfirm: () => void;
}

/** A write that cannot be undone asks once more, in place, before it is sent. */
export function ConfirmButton({ label, question, confirm, pending, onConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  // The button pressed is gone once the question shows: focus moves to the answer, not to the page.
  useEffect(() => {
    if (asking) confirmButton.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="actions">
      <span>{question}</span>
      <button type="button" class="danger" ref={confirmButton} disabled={pending} onClick={onConfirm}>
        {confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}
