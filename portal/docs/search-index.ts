// What the reference's search box looks through (GET /docs/search.json, read by docs.js): one entry per
// endpoint with its title, id, summary, parameters and the providers that answer it, made once from the
// catalog at boot. The browser keeps it, so searching asks the server nothing more (and works offline once
// a page of the reference has loaded).
import type { EndpointSpec, UpstreamSpec } from '../../engine/catalog/load.js';
import { categoryTitle } from './categories.js';

export interface SearchEntry {
  /** `category/name`, as in the URL. */
  id: string;
  title: string;
  category: string;
  method: 'GET' | 'POST';
  summary: string;
  params: string[];
  providers: string[];
  /** The operation on its category's page. */
  href: string;
}

/** The anchor of an operation on its category's page (the earlier renderer's, so old links still land). */
export const anchorOf = (category: string, method: string, path: string) => `tag/${category}/${method}${path}`;

export function searchIndex(endpoints: EndpointSpec[], upstreams: Record<string, UpstreamSpec>): SearchEntry[] {
  const nameOf = (id: string) => (id === 'embedded' ? 'built in' : (upstreams[id]?.name ?? id));
  return endpoints.map((e) => ({
    id: e.id,
    title: e.title ?? e.summary,
    category: categoryTitle(e.category),
    method: e.method,
    summary: e.summary,
    params: Object.keys(e.params),
    providers: [...new Set([e.upstream, ...(e.fallback ?? []).map((f) => f.upstream), ...(e.uses ?? [])].map(nameOf))],
    href: `/docs/${e.category}#${anchorOf(e.category, e.method, `/api/v1/${e.id}`)}`,
  }));
}
