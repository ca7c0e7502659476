// Both APIs serve an OpenAPI 3.1 document made from the same schemas that validate requests.
import { validate } from '@readme/openapi-parser';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, problemResponses, type App } from '../../../src/platform/http/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { VERSION } from '../../../src/roles.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { serve } from '../../helpers/http.ts';
import { startJobsApi } from '../../helpers/jobs.ts';
import { startMail } from '../../helpers/mail.ts';

let db: TestDatabase;
const servers: { close(): Promise<void> }[] = [];
const log = createLogger({ level: 'silent' });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await db.pool.end();
});

async function documentOf(app: App): Promise<Record<string, any>> {
  const served = await serve(app);
  servers.push(served);
  return documentAt(served.url);
}

async function documentAt(url: string): Promise<Record<string, any>> {
  const res = await fetch(`${url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Record<string, any>;
}

describe('GET /openapi.json', () => {
  // Each API as `domainkit jobs-api` or `domainkit mail-api` starts it, with the program's version.
  it.each([
    ['jobs', () => startJobsApi(db)],
    ['mail', () => startMail(db)],
  ] as const)('the %s API serves a valid OpenAPI 3.1 document', async (_name, start) => {
    const served = await start();
    servers.push(served);
    const doc = await documentAt(served.url);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(VERSION);
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    expect(doc.paths['/openapi.json']).toBeUndefined();
  });

  it('documents route schemas, shared components and problem responses', async () => {
    const app = await createApp({
      title: 't',
      description: 'd',
      version: '0',
      log,
      pool: db.pool,
      routes: async (r) => {
        r.post(
          '/v1/things',
          {
            schema: {
              body: Type.Object({ name: Type.String() }, { additionalProperties: false }),
              response: { 201: Type.Object({ id: Type.String({ format: 'uuid' }) }), ...problemResponses(400, 415) },
            },
          },
          async () => ({ id: '00000000-0000-0000-0000-000000000000' }),
        );
      },
    });
    const doc = await documentOf(app);
    expect((await validate(structuredClone(doc) as never)).valid).toBe(true);
    const op = doc.paths['/v1/things'].post;
    expect(op.requestBody.content['application/json'].schema.properties.name.type).toBe('string');
    expect(op.responses['400'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
    expect(doc.components.schemas.Problem.required).toEqual(['type', 'title', 'status', 'detail', 'code']);
  });

  it('a broken document is rejected by the validator (the check can fail)', async () => {
    const result = await validate({ openapi: '3.1.0', info: { title: 'x' }, paths: { bad: {} } } as never);
    expect(result.valid).toBe(false);
  });
});
