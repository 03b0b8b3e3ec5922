// The contract check (scripts/contract/compare.ts, on api-smart-diff) on test copies of the released
// document: it fails on a removed field, a new required parameter (query or body) and a narrowed enum
// unless the major version is raised, and passes on an added endpoint.
import fs from 'node:fs';
import path from 'node:path';
import { compareContracts } from '../../scripts/contract/compare.js';
import { ROOT } from '../helpers/paths.js';

type Doc = { info: { version: string }; paths: Record<string, any>; components: { schemas: Record<string, any> } };
const released = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi', 'released.json'), 'utf8')) as Doc;
// A few operations of it, with every component: the diff reads the whole document, and a few are enough here.
const KEPT = ['/api/v1/tools/ccgen', '/api/v1/downloaders/dl-d', '/api/v1/cloud-storage/paste-host'];
const base: Doc = { ...released, paths: Object.fromEntries(KEPT.map((p) => [p, released.paths[p]])) };
const copy = () => structuredClone(base);
const withVersion = (doc: Doc, version: string) => ({ ...doc, info: { ...doc.info, version } });

test('the same document: no change', () => {
  expect(compareContracts(base, copy())).toMatchObject({ changes: [], allowed: true });
});

test('a removed field of an answer is breaking', () => {
  const after = copy();
  const data = after.paths['/api/v1/tools/ccgen'].get.responses['200'].content['application/json'].schema.properties.data;
  delete data.properties.brand;
  data.required = data.required.filter((n: string) => n !== 'brand');
  const result = compareContracts(base, after);
  expect(result.breaking.map((c) => c.at)).toContain(
    '/paths/~1api~1v1~1tools~1ccgen/get/responses/200/content/application~1json/schema/properties/data/properties/brand',
  );
  expect(result.allowed).toBe(false);
  // Allowed under a new major version, and only then.
  expect(compareContracts(base, withVersion(after, '0.2.0')).allowed).toBe(false);
  expect(compareContracts(base, withVersion(after, '1.0.0')).allowed).toBe(true);
});

test('a new required query parameter is breaking', () => {
  const after = copy();
  after.paths['/api/v1/downloaders/dl-d'].get.parameters.push({ name: 'region', in: 'query', required: true, schema: { type: 'string' } });
  const result = compareContracts(base, after);
  expect(result.breaking).toHaveLength(1);
  expect(result.allowed).toBe(false);
});

test('a body field newly required is breaking', () => {
  const after = copy();
  const schema = after.components.schemas.CloudStoragePasteHostRequest;
  expect(schema.required ?? []).not.toContain('format');
  schema.required = [...(schema.required ?? []), 'format'];
  const result = compareContracts(base, after);
  expect(result.breaking.length).toBeGreaterThan(0);
  expect(result.allowed).toBe(false);
});

test('a narrowed enum is breaking', () => {
  const after = copy();
  const param = after.paths['/api/v1/downloaders/dl-d'].get.parameters.find((p: { name: string }) => p.name === 'for');
  expect(param.schema.enum).toEqual(['telegram', 'whatsapp']);
  param.schema.enum = ['telegram'];
  const result = compareContracts(base, after);
  expect(result.breaking.map((c) => c.at)).toEqual(['/paths/~1api~1v1~1downloaders~1dl-d/get/parameters/2/schema/enum/1']);
  expect(result.allowed).toBe(false);
});

test('an added endpoint is an addition, allowed under the same major version', () => {
  const after = copy();
  after.paths['/api/v1/tools/ccgen-two'] = {
    get: { ...structuredClone(base.paths['/api/v1/tools/ccgen'].get), operationId: 'toolsCcgenTwo' },
  };
  const result = compareContracts(base, withVersion(after, '0.2.0'));
  expect(result.changes).toEqual([
    { kind: 'added', at: '/paths/~1api~1v1~1tools~1ccgen-two/get', description: '[Added] operation GET /api/v1/tools/ccgen-two' },
  ]);
  expect(result.allowed).toBe(true);
});
