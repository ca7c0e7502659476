// The address, large, with its copy button, the countdown and the way to another address.
import { useState } from 'preact/hooks';
import type { Inbox } from './api.ts';
import { AddressForm } from './address-form.tsx';
import { CopyButton } from './copy-button.tsx';
import { Countdown } from './countdown.tsx';
import type { LiveState } from './live.ts';
import { OpenForm } from './open-form.tsx';

const LIVE_TEXT: Record<LiveState, string> = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…' };

export function InboxHeader(props: {
  inbox: Inbox;
  live: LiveState;
  /** Opened with an API key: it can be locked again (the key forgotten). */
  lock: (() => void) | null;
  expired(): void;
  create(domain: string, localPart: string): Promise<void>;
}) {
  const [choosing, setChoosing] = useState(false);
  return (
    <header class="inbox-header">
      <p class="hint">{props.lock ? 'Your private inbox, opened with your API key' : 'Your temporary address'}</p>
      <div class="address-row">
        <output class="address" data-testid="address">
          {props.inbox.address}
        </output>
        <CopyButton text={props.inbox.address} label="Copy" class="primary" />
      </div>
      <p class="meta">
        <Countdown until={props.inbox.inbox_expires_at} expired={props.expired} />
        <span class={`live ${props.live}`} role="status" data-testid="live">
          {LIVE_TEXT[props.live]}
        </span>
        <button type="button" class="link" aria-expanded={choosing} onClick={() => setChoosing(!choosing)}>
          {choosing ? 'Keep this address' : 'Change address'}
        </button>
        {props.lock && (
          <button type="button" class="link" onClick={props.lock}>
            Lock (forget the key)
          </button>
        )}
      </p>
      {choosing && (
        <AddressForm
          current={props.inbox.address}
          create={async (domain, local) => {
            await props.create(domain, local);
            setChoosing(false);
          }}
        />
      )}
      {choosing && <OpenForm />}
    </header>
  );
}
