// A strict reader of the Prometheus text exposition format (0.0.4), for checking what `/metrics` serves: every
// line must be a HELP, TYPE, comment or sample line of the format; samples must belong to a declared family,
// families must not interleave, no series may repeat, and each histogram series must have ascending `le`
// buckets ending at +Inf, cumulative counts, `_sum`, and a `_count` equal to its +Inf bucket. Throws on the
// first fault, naming the line. (No well-kept npm parser of the format exists.)

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | undefined;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  /** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
  sum(name: string, labels?: Record<string, string>): number;
  /** Whether some sample is named `name` (with these labels among its own). */
  has(name: string, labels?: Record<string, string>): boolean;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<MetricType, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parseExposition(text: string): Exposition {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  const typed = new Set<string>();
  let current: Family | undefined;
  const seen = new Set<string>();
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    const type = new RegExp(`^# TYPE (${NAME}) (\\S+)$`).exec(line);
    if (help || type) {
      const name = (help ?? type)![1]!;
      if (closed.has(name)) fail('a family already ended appears again');
      let family = families.get(name);
      if (current && current.name !== name) closed.add(current.name);
      if (type) {
        if (!TYPES.has(type[2] as MetricType)) fail('unknown metric type');
        if (family && family.samples.length > 0) fail('TYPE after samples');
        if (typed.has(name)) fail('second TYPE line');
        typed.add(name);
      }
      if (help && family?.help !== undefined) fail('second HELP line');
      if (help && /\\[^\\n]/.test(help[2]!.replace(/\\\\/g, ''))) fail('bad escape in HELP');
      family ??= { name, type: 'untyped', help: undefined, samples: [] };
      if (help) family.help = help[2];
      if (type) family.type = type[2] as MetricType;
      families.set(name, family);
      current = family;
      return;
    }
    if (line.startsWith('#')) return; // a comment
    const sample = parseSample(line, fail);
    const family = familyOf(sample.name, families) ?? fail('sample of no declared family');
    if (family !== current) fail('samples of a family are not together');
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) fail('the same series twice');
    seen.add(key);
    if ('le' in sample.labels && !(family.type === 'histogram' && sample.name.endsWith('_bucket')))
      fail('le label outside a histogram bucket');
    if ('quantile' in sample.labels && family.type !== 'summary') fail('quantile label outside a summary');
    if (family.type === 'counter' && !(sample.value >= 0)) fail('negative or NaN counter');
    family.samples.push(sample);
  });
  for (const family of families.values()) {
    if (!typed.has(family.name)) throw new Error(`${family.name}: no TYPE line`);
    if (family.type === 'histogram') checkHistogram(family);
  }
  const matching = (name: string, labels: Record<string, string>) =>
    [...families.values()]
      .flatMap((f) => f.samples)
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    families,
    sum: (name, labels = {}) => matching(name, labels).reduce((n, s) => n + s.value, 0),
    has: (name, labels = {}) => matching(name, labels).length > 0,
  };
}

function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  for (const family of families.values()) {
    for (const suffix of SUFFIXES[family.type]) if (sampleName === family.name + suffix) return family;
  }
  return undefined;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const head = new RegExp(`^(${NAME})`).exec(line) ?? fail('not a sample line');
  const name = head[1]!;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    const pair = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`);
    while (!rest.startsWith('}')) {
      const match = pair.exec(rest) ?? fail('bad label');
      if (match[1]! in labels) fail(`label ${match[1]} twice`);
      labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(match[0].length);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) fail('labels not separated by commas');
    }
    rest = rest.slice(1);
  }
  const tail = /^ (\S+)(?: (-?\d+))?$/.exec(rest) ?? fail('no value after the name and labels');
  return { name, labels, value: number(tail[1]!, fail) };
}

/**
 * Prometheus reads a value with Go's strconv.ParseFloat, which takes NaN and Inf in any case (prom-client writes
 * `Nan`); anything else must be a decimal float.
 */
function number(text: string, fail: (why: string) => never): number {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) fail(`"${text}" is not a number`);
  return Number(text);
}

/** Per series (labels without `le`): ascending buckets ending at +Inf, cumulative counts, _sum, _count = +Inf. */
function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    } else if (s.name.endsWith('_sum')) entry.sum = s.value;
    else entry.count = s.value;
  }
  for (const [key, { buckets, sum, count }] of series) {
    const where = `${family.name}${key}`;
    if (buckets.length === 0 || sum === undefined || count === undefined)
      throw new Error(`${where}: buckets, _sum and _count must all be there`);
    buckets.forEach(([le, n], i) => {
      if (Number.isNaN(le)) throw new Error(`${where}: le is not a number`);
      if (i > 0 && !(le > buckets[i - 1]![0])) throw new Error(`${where}: le not ascending`);
      if (i > 0 && n < buckets[i - 1]![1]) throw new Error(`${where}: bucket counts not cumulative`);
    });
    const last = buckets.at(-1)!;
    if (last[0] !== Infinity) throw new Error(`${where}: no +Inf bucket`);
    if (last[1] !== count) throw new Error(`${where}: _count ${count} differs from the +Inf bucket ${last[1]}`);
  }
}
