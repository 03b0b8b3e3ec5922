// Every endpoint's example answer (`response.examples`, recorded by tests/tools/record-examples.ts from the
// fake world) is one its own response schema accepts, so the reference never shows an answer the service
// could not give; and every endpoint has one, but the three whose response is a YAML alias of another's.
import { loadCatalog } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';
import { expectMatchesSchema } from '../helpers/schema.js';

const endpoints = loadCatalog(loadConfig({}).catalogDir).endpoints;
const examplesOf = (id: string) => (endpoints.find((e) => e.id === id)!.response as { examples?: unknown[] }).examples;

test('every endpoint has an example answer, but the quote series that share one response block', () => {
  const without = endpoints.filter((e) => !examplesOf(e.id)?.length).map((e) => e.id);
  expect(without.sort()).toEqual(['quotes/cartoon-series', 'quotes/devil-series', 'quotes/teen-scifi-series']);
});

test.each(endpoints.filter((e) => examplesOf(e.id)?.length).map((e) => e.id))('%s: its example matches its response schema', (id) => {
  for (const example of examplesOf(id)!) expectMatchesSchema(id, example);
});
