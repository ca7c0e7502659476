// The raw message as an .eml file. For an inbox opened without a key this is a plain link to the API. A
// private inbox's key must go in a header, which a link cannot carry: its raw message is fetched with the key
// and saved from a blob: URL (a download, which the page's CSP does not govern; the URL names no key), freed
// once the browser has taken it.
import type { InboxApi } from './api.ts';
import { ApiError } from './api.ts';

const FREE_AFTER_MS = 60_000;

export function Download(props: { client: InboxApi; id: string; failed(message: string): void }) {
  if (!props.client.keyed) {
    return (
      <a class="button secondary" href={props.client.rawUrl(props.id)} download>
        Download .eml
      </a>
    );
  }
  const save = async () => {
    let blob: Blob;
    try {
      blob = await props.client.raw(props.id);
    } catch (err) {
      props.failed(err instanceof ApiError ? err.message : 'The message could not be downloaded.');
      return;
    }
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `${props.id}.eml`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), FREE_AFTER_MS);
  };
  return (
    <button type="button" class="secondary" onClick={save}>
      Download .eml
    </button>
  );
}
