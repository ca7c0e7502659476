// A message's links as the API found them: what the anchor said (its text, else the URL), what the link is for
// when that is more than "other", and the URL itself, since that is where a click goes.
import type { Link, LinkKind } from './api.ts';

const KIND_TEXT: Record<Exclude<LinkKind, 'other'>, string> = {
  verify: 'verify address',
  magic_link: 'sign-in link',
  reset: 'password reset',
  unsubscribe: 'unsubscribe',
  invite: 'invitation',
};

export function LinkList(props: { links: Link[] }) {
  if (props.links.length === 0) return null;
  return (
    <details class="links" open={props.links.length <= 5}>
      <summary>Links ({props.links.length})</summary>
      <ol>
        {props.links.map((l) => (
          <li key={l.index} data-testid="link" data-kind={l.kind}>
            <a href={l.url} target="_blank" rel="noopener noreferrer">
              {l.text || l.url}
            </a>
            {l.kind !== 'other' && <span class={`tag kind-${l.kind}`}>{KIND_TEXT[l.kind]}</span>}
            {l.text && <span class="url">{l.url}</span>}
          </li>
        ))}
      </ol>
    </details>
  );
}
