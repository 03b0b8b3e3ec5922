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
