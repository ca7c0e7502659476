// One API's OpenAPI document as a Markdown reference: a table of operations, then each operation (method,
// path, summary, credentials and scopes, parameters, request body, responses with their statuses and
// schemas), then every component schema as a table of fields. Written for our documents (OpenAPI 3.1 made by
// @fastify/swagger from TypeBox schemas), and deterministic: the same document gives the same bytes.
import { STATUS_CODES } from 'node:http';
import { anchor, fieldRows, isOpen, typeText, type Schema } from './schema-text.ts';

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, Schema>;
    securitySchemes?: Record<string, SecurityScheme>;
  };
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
}

interface SecurityScheme {
  type: string;
  scheme?: string;
  bearerFormat?: string;
  name?: string;
  in?: string;
  description?: string;
}

interface Entry {
  method: string;
  path: string;
  operation: Operation;
}

/** `openApiFile` is the document's file name beside the page, linked from its heading. */
export function renderReference(doc: OpenApiDocument, openApiFile: string): string {
  const entries = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  const tags = [...new Set(entries.map(tagOf))];
  return [
    `# ${doc.info.title} ${doc.info.version}: reference`,
    '',
    `Made by \`npm run docs:api\` from the API's OpenAPI document ([${openApiFile}](${openApiFile})), which the API`,
    'serves at `/openapi.json`; a running API shows the same as an interactive page at `/docs`. Do not edit this',
    'file: change the route schemas and run the script. The rules the document cannot state (credentials,',
    'webhooks, pagination, limits, error codes) are in [README.md](README.md).',
    '',
    prose(doc.info.description),
    '',
    ...credentials(doc),
    '## Operations',
    '',
    table(
      ['Operation', 'Summary', 'Credentials'],
      entries.map((e) => {
        const name = `${e.method} ${e.path}`;
        return [`[\`${name}\`](#${anchor(name)})`, prose(e.operation.summary), securityText(e.operation)];
      }),
    ),
    ...tags.flatMap((tag) => [`## ${tag}`, '', ...entries.filter((e) => tagOf(e) === tag).flatMap(operationSection)]),
    ...schemasSection(doc.components?.schemas ?? {}),
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()
    .concat('\n');
}

function tagOf(entry: Entry): string {
  return entry.operation.tags?.[0] ?? 'other';
}

function credentials(doc: OpenApiDocument): string[] {
  const schemes = Object.entries(doc.components?.securitySchemes ?? {});
  if (schemes.length === 0) return [];
  const how = (s: SecurityScheme) =>
    s.type === 'http' ? `\`Authorization: ${capitalise(s.scheme ?? '')} <${s.bearerFormat ?? 'token'}>\`` : `header \`${s.name ?? ''}\``;
  return [
    '## Credentials',
    '',
    'An operation that names credentials takes either of these; the others take none.',
    '',
    table(
      ['Name', 'Sent as', 'Notes'],
      schemes.map(([name, s]) => [`\`${name}\``, how(s), prose(s.description)]),
    ),
  ];
}

function securityText(operation: Operation): string {
  const options = operation.security ?? [];
  if (options.length === 0) return 'none';
  const names = options.flatMap((o) => Object.keys(o).map((n) => `\`${n}\``));
  const scopes = [...new Set(options.flatMap((o) => Object.values(o).flat()))];
  const text = `${names.join(' or ')}${scopes.length ? `, scope ${scopes.map((s) => `\`${s}\``).join(', ')}` : ''}`;
  // An empty requirement among them: credentials are optional (the mail API's private inboxes).
  return options.some((o) => Object.keys(o).length === 0) ? `none, or ${text}` : text;
}

function operationSection({ method, path, operation }: Entry): string[] {
  const lines = [`### ${method} ${path}`, '', prose(operation.summary), '', prose(operation.description), ''];
  lines.push(`**Credentials:** ${securityText(operation)}.`, '');
  const parameters = operation.parameters ?? [];
  if (parameters.length) {
    lines.push('**Parameters**', '');
    lines.push(
      table(
        ['Name', 'In', 'Type', 'Required', 'Description'],
        parameters.map((p) => {
          const description = prose(p.description ?? p.schema.description);
          return [`\`${p.name}\``, p.in, typeText(p.schema), yesNo(p.required ?? false), description];
        }),
      ),
    );
  }
  for (const [type, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
    lines.push(`**Request body** (\`${type}\`${operation.requestBody?.required ? '' : ', optional'}): ${typeText(schema)}`, '');
    lines.push(...fieldsTable(schema));
  }
  lines.push('**Responses**', '');
  lines.push(
    table(
      ['Status', 'Meaning', 'Content'],
      Object.entries(operation.responses).map(([status, response]) => [
        status,
        responseMeaning(status, response.description),
        Object.entries(response.content ?? {})
          .map(([type, { schema }]) => `\`${type}\`: ${typeText(schema)}${inlineFields(schema)}`)
          .join('; ') || 'no body',
      ]),
    ),
  );
  return lines;
}

// @fastify/swagger writes "Default Response" for a response without a description of its own.
function responseMeaning(status: string, description: string | undefined): string {
  return !description || description === 'Default Response' ? (STATUS_CODES[status] ?? '') : prose(description);
}

/** A small inline object in a response cell: ` {status: string}`. */
function inlineFields(schema: Schema): string {
  const rows = fieldRows(schema);
  return rows.length ? ` {${rows.map((r) => `\`${r.name}\`: ${r.type}`).join(', ')}}` : '';
}

function schemasSection(schemas: Record<string, Schema>): string[] {
  const names = Object.keys(schemas);
  if (names.length === 0) return [];
  return [
    '## Schemas',
    '',
    ...names.flatMap((name) => {
      const schema = schemas[name]!;
      const rows = fieldRows(schema);
      return [`### ${name}`, '', prose(schema.description), '', ...(rows.length ? fieldsTable(schema) : [`${typeText(schema)}`, ''])];
    }),
  ];
}

function fieldsTable(schema: Schema): string[] {
  const rows = fieldRows(schema);
  if (rows.length === 0) return [];
  const open = isOpen(schema) ? ['Other fields may appear beside these.', ''] : [];
  const cells = rows.map((r) => [`\`${r.name}\``, r.type, yesNo(r.required), prose(r.description)]);
  return [table(['Field', 'Type', 'Required', 'Description'], cells), ...open];
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line), ''].join('\n');
}

/** Text from the document, where `<` and `>` outside code spans are text, not HTML (`urn:…:<code>`). */
function prose(text: string | undefined): string {
  return (text ?? '')
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}

/** Table cells are one line, and a `|` would end the cell. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
