// "New message" for a few seconds after one arrives; clicking it opens the message.
import { useEffect } from 'preact/hooks';
import type { NewMessage } from './live.ts';

export function Toast(props: { event: NewMessage | null; open(id: string): void; dismiss(): void }) {
  useEffect(() => {
    if (!props.event) return;
    const timer = setTimeout(props.dismiss, 6000);
    return () => clearTimeout(timer);
  }, [props.event]);
  return (
    <div class="toast-area" role="status" aria-live="polite">
      {props.event && (
        <button
          type="button"
          class="toast"
          data-testid="toast"
          onClick={() => {
            props.open(props.event!.id);
            props.dismiss();
          }}
        >
          <strong>New message{props.event.has_otp ? ' with a code' : ''}</strong>
          <span>{props.event.subject || '(no subject)'}</span>
          <span class="hint">
            from {props.event.from || 'unknown sender'}
            {props.event.tag ? ` · +${props.event.tag}` : ''}
          </span>
        </button>
      )}
    </div>
  );
}
