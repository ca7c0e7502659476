// JSON Schemas (as our OpenAPI 3.1 documents hold them) in words for Markdown tables: a type in one phrase
// ("integer, 1 to 100, default 20"), and an object as one row per field, nested objects with dotted names
// (`progress.total`, `links[].url`), so a reader sees every field without following links.

/** The parts of a JSON Schema the documents use. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  pattern?: string;
  default?: unknown;
}

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** The component a `$ref` names: `#/components/schemas/Job` → `Job`. */
export function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** A link to a component's section in the same page (GitHub's heading anchors). */
export function schemaLink(name: string): string {
  return `[\`${name}\`](#${anchor(name)})`;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

export function typeText(schema: Schema): string {
  if (schema.$ref) return schemaLink(refName(schema.$ref));
  if (schema.const !== undefined) return code(schema.const);
  if (schema.enum) return `one of ${schema.enum.map(code).join(', ')}`;
  if (schema.anyOf) return anyOfText(schema.anyOf);
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length === 0) return 'any JSON value';
  // The qualifiers (format, bounds, default) go with the first type that is not null.
  const qualified = types.find((t) => t !== 'null') ?? types[0];
  return types.map((type) => (type === qualified ? qualifiedText(type, schema) : type)).join(' or ');
}

/** One row per field of an object schema, nested inline objects included; empty for anything else. */
export function fieldRows(schema: Schema, prefix = ''): FieldRow[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const row = { name: prefix + name, type: typeText(field), required: required.has(name), description: field.description ?? '' };
    const nested = inlineObject(field);
    return [row, ...(nested ? fieldRows(nested.schema, `${prefix}${name}${nested.suffix}.`) : [])];
  });
}

/** Whether an object schema allows fields beyond those it lists. */
export function isOpen(schema: Schema): boolean {
  return schema.additionalProperties === true;
}

/** The object schema a field holds inline (itself, as array items, or as the non-null branch of a union). */
function inlineObject(field: Schema): { schema: Schema; suffix: string } | undefined {
  if (field.properties) return { schema: field, suffix: '' };
  if (field.items?.properties) return { schema: field.items, suffix: '[]' };
  const branches = (field.anyOf ?? []).filter((b) => b.type !== 'null');
  const only = branches.length === 1 ? branches[0] : undefined;
  return only?.properties ? { schema: only, suffix: '' } : undefined;
}

function anyOfText(branches: Schema[]): string {
  // A union of constants (TypeBox's literal unions) reads as a list of values.
  if (branches.every((b) => b.const !== undefined || b.enum?.length === 1)) {
    return `one of ${branches.map((b) => code(b.const ?? b.enum?.[0])).join(', ')}`;
  }
  return branches.map(typeText).join(' or ');
}

function qualifiedText(type: string, schema: Schema): string {
  const notes = qualifiers(schema);
  const named = notes.length ? `${type} (${notes.join('; ')})` : type;
  if (type === 'array') return `${named} of ${schema.items ? typeText(schema.items) : 'any JSON value'}`;
  const values = schema.additionalProperties;
  if (type === 'object' && !schema.properties && typeof values === 'object') return `${named} of names to ${typeText(values)}`;
  return named;
}

function qualifiers(schema: Schema): string[] {
  const notes = schema.format ? [schema.format] : [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) notes.push(`${min} to ${max}${unit}`);
    else if (min !== undefined) notes.push(`at least ${min}${unit}`);
    else if (max !== undefined) notes.push(`at most ${max}${unit}`);
  };
  range(schema.minimum, schema.maximum, '');
  range(schema.minLength, schema.maxLength, ' characters');
  range(schema.minItems, schema.maxItems, ' items');
  if (schema.uniqueItems) notes.push('no repeats');
  if (schema.pattern) notes.push(`matching ${code(schema.pattern)}`);
  if (schema.default !== undefined) notes.push(`default ${code(schema.default)}`);
  return notes;
}

function code(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}
