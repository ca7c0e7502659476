// A button that copies a text and says so for a moment.
import { useState } from 'preact/hooks';
import { copyText } from './copy.ts';

export function CopyButton(props: { text: string; label: string; class?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    if (await copyText(props.text)) {
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    }
  };
  return (
    <button type="button" class={props.class ?? 'secondary'} onClick={copy} aria-live="polite">
      {done ? 'Copied ✓' : props.label}
    </button>
  );
}
