// Validates an endpoint's `data` against the `response` schema its catalog entry declares.
import { Ajv } from 'ajv';
import { loadCatalog } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const endpoints = loadCatalog(loadConfig({}).catalogDir).endpoints;

export function expectMatchesSchema(endpointId: string, data: unknown): void {
  const spec = endpoints.find((e) => e.id === endpointId);
  if (!spec) throw new Error(`no catalog entry ${endpointId}`);
  const check = ajv.compile(spec.response);
  if (!check(data))
    throw new Error(
      `${endpointId}: data does not match its response schema: ${ajv.errorsText(check.errors)}\n${JSON.stringify(data).slice(0, 500)}`,
    );
}

/**
 * A 200 that `source` answered: how a success case opens. Given the endpoint, its data must also match that
 * endpoint's response schema.
 */
export function expectAnswer(res: { status: number; body: { source?: unknown; data?: unknown } }, source: string, endpoint?: string): void {
  expect(res.status).toBe(200);
  expect(res.body.source).toBe(source);
  if (endpoint) expectMatchesSchema(endpoint, res.body.data);
}
