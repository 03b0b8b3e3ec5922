// Replay in Try it: the reference's page of a logged call's endpoint (/docs/<category>), its Try it form
// opened and filled with the parameters the call sent, never a redacted, cut or key one (entry.ts replayable).
import type { EndpointSpec } from '../../engine/catalog/load.js';
import { replayable, type LoggedCall } from '../../features/request-log/entry.js';

/** The link, or undefined for a call of no catalog endpoint (an unknown path, the account's own routes). */
export function replayLink(endpoints: EndpointSpec[], c: LoggedCall): string | undefined {
  const spec = endpoints.find((e) => e.id === c.endpoint);
  if (!spec) return undefined;
  const path = `/api/v1/${spec.id}`;
  const q = new URLSearchParams({ try: path });
  for (const [name, value] of Object.entries(replayable(c))) if (name in spec.params) q.append(`p.${name}`, value);
  return `/docs/${spec.category}?${q.toString()}#tag/${spec.category}/${spec.method}${path}`;
}
