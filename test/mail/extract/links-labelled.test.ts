// The held-out labelled set of test/fixtures/links-labelled/ (written by someone who had not read the extractor;
// its README has the label rules): every .eml goes through the real path, mailparser (smtp/parse.ts) and
// extraction as the receiver runs them. Each message must give exactly the URLs it holds (issue 25: none that
// is not in the mail, none missing); the kinds are measured, precision and recall per kind printed as the
// table docs/links.md shows, and held to the floors below (what the classifier reached when first measured).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extract, LINK_KINDS, LINKS_VERSION, type LinkKind } from '../../../src/mail/extract/index.ts';
import { parseMessage } from '../../../src/mail/smtp/index.ts';

const DIR = fileURLToPath(new URL('../../fixtures/links-labelled/', import.meta.url));
const labels = JSON.parse(readFileSync(`${DIR}labels.json`, 'utf8')) as Record<
  string,
  { url: string; kind: LinkKind; text: string | null }[]
>;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.eml'))
  .sort();

/**
 * Precision and recall each kind reached when first measured (extractor v1, before anything was changed for
 * the set), rounded down: a change that loses ground fails.
 */
const FLOORS: Record<LinkKind, { precision: number; recall: number }> = {
  verify: { precision: 0.86, recall: 1 },
  magic_link: { precision: 1, recall: 0.7 },
  reset: { precision: 0.85, recall: 1 },
  unsubscribe: { precision: 1, recall: 0.91 },
  invite: { precision: 0.88, recall: 0.94 },
  other: { precision: 0.95, recall: 0.96 },
};

interface Found {
  file: string;
  links: { url: string; kind: LinkKind; text: string | null }[];
}

async function linksOf(file: string): Promise<Found> {
  const { plainText, ...parsed } = await parseMessage(readFileSync(`${DIR}${file}`));
  const found = extract({ subject: parsed.subject, text: parsed.bodyText, html: parsed.bodyHtml, plainText, headers: parsed.headers });
  return { file, links: found.links };
}

const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);

describe('links of the held-out labelled set', async () => {
  const found = await Promise.all(files.map(linksOf));

  it('is there: every file labelled, every label a file', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
    expect(Object.keys(labels).sort()).toEqual(files);
  });

  it('gives each message exactly the URLs it holds, in order', () => {
    const wrong = found.flatMap(({ file, links }) => {
      const got = links.map((l) => l.url);
      const want = labels[file]!.map((l) => l.url);
      if (got.join('\n') === want.join('\n')) return [];
      const missing = want.filter((u) => !got.includes(u));
      const extra = got.filter((u) => !want.includes(u));
      return [
        `${file}: missing ${JSON.stringify(missing)}, not in the mail ${JSON.stringify(extra)}${missing.length + extra.length ? '' : ' (order)'}`,
      ];
    });
    expect(wrong).toEqual([]);
  });

  it('gives each anchor its text', () => {
    const pairs = found.flatMap(({ file, links }) => labels[file]!.map((label, k) => ({ want: label.text, got: links[k]?.text })));
    const same = pairs.filter((p) => p.got === p.want).length;
    console.log(`link text as labelled: ${same}/${pairs.length}`);
    expect(same).toBe(pairs.length);
  });

  it('classifies kinds with the precision and recall of docs/links.md', () => {
    const pairs = found.flatMap(({ file, links }) =>
      labels[file]!.map((label) => ({ want: label.kind, got: links.find((l) => l.url === label.url)?.kind ?? 'other' })),
    );
    const rows = LINK_KINDS.map((kind) => {
      const labelled = pairs.filter((p) => p.want === kind).length;
      const predicted = pairs.filter((p) => p.got === kind).length;
      const right = pairs.filter((p) => p.got === kind && p.want === kind).length;
      return { kind, labelled, predicted, right, precision: ratio(right, predicted), recall: ratio(right, labelled) };
    });
    const confusion = LINK_KINDS.map(
      (want) => `| ${want} | ${LINK_KINDS.map((got) => pairs.filter((p) => p.want === want && p.got === got).length).join(' | ')} |`,
    );
    console.log(
      [
        `Link kinds, extractor v${LINKS_VERSION}, ${files.length} messages, ${pairs.length} labelled links:`,
        '',
        '| kind | labelled | predicted | right | precision | recall |',
        '|---|---|---|---|---|---|',
        ...rows.map(
          (r) => `| ${r.kind} | ${r.labelled} | ${r.predicted} | ${r.right} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} |`,
        ),
        '',
        `| labelled \\ found | ${LINK_KINDS.join(' | ')} |`,
        `|---|${LINK_KINDS.map(() => '---').join('|')}|`,
        ...confusion,
      ].join('\n'),
    );
    for (const r of rows) {
      expect(r.precision, `${r.kind} precision`).toBeGreaterThanOrEqual(FLOORS[r.kind].precision);
      expect(r.recall, `${r.kind} recall`).toBeGreaterThanOrEqual(FLOORS[r.kind].recall);
    }
  });
});
