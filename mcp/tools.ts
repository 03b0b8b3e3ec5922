// The MCP tools, generated at boot from the catalog: one per endpoint, nothing written per endpoint.
// Name `<category>_<endpoint>`, description from the summary, inputSchema from the validator's schema
// (mcp/input-schema.ts), outputSchema from the catalog's `response` (the schema of the envelope's `data`).
// Listed in pages of whole categories; an endpoint that can only fail here (its upstream not configured)
// is listed with a note saying what the operator must set, or left out under MCP_HIDE_UNCONFIGURED=true.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { EndpointSpec, UpstreamSpec } from '../engine/catalog/load.js';
import { asConfigured } from '../engine/catalog/as-configured.js';
import { inputSchemaOf } from './input-schema.js';
import { unconfiguredNote } from '../engine/upstream/configured.js';

export interface ToolEntry {
  tool: Tool;
  spec: EndpointSpec;
}

export interface Tools {
  /** Every tool, listed or hidden: a hidden one still answers a call, as its REST endpoint would. */
  byName: Map<string, ToolEntry>;
  /** The listed tools, in pages of whole categories of at most `pageSize` tools (a bigger category alone). */
  pages: Tool[][];
}

export interface ToolsOptions {
  upstreams: Record<string, UpstreamSpec>;
  /** True when this server holds a pooled key for the upstream (else upstream_key is required). */
  pooled: (upstream: string) => boolean;
  env: NodeJS.ProcessEnv;
  hideUnconfigured: boolean;
  pageSize: number;
}

/** MCP's rule for tool names (specification 2025-11-25, "Tool names"). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function toolName(spec: EndpointSpec): string {
  return `${spec.category}_${spec.name}`;
}

export function buildTools(endpoints: EndpointSpec[], opts: ToolsOptions): Tools {
  const byName = new Map<string, ToolEntry>();
  const listed = new Map<string, Tool[]>();
  for (const catalogSpec of endpoints) {
    const spec = asConfigured(catalogSpec, opts.pooled);
    const name = toolName(spec);
    if (!TOOL_NAME.test(name)) throw new Error(`MCP: endpoint ${spec.id} gives the tool name "${name}", which MCP does not allow`);
    if (byName.has(name)) throw new Error(`MCP: endpoints ${byName.get(name)!.spec.id} and ${spec.id} give the same tool name "${name}"`);
    const note = unconfiguredNote(spec, opts.upstreams, opts.env);
    const tool: Tool = {
      name,
      title: spec.summary,
      description: [spec.summary, `(${spec.method} /api/v1/${spec.id})`, note].filter(Boolean).join(' '),
      inputSchema: inputSchemaOf(spec) as Tool['inputSchema'],
      outputSchema: spec.response as Tool['outputSchema'],
      annotations: { title: spec.summary, readOnlyHint: spec.method === 'GET', openWorldHint: spec.upstream !== 'embedded' },
      _meta: { category: spec.category, endpoint: `/api/v1/${spec.id}`, method: spec.method, configured: !note },
    };
    byName.set(name, { tool, spec });
    if (note && opts.hideUnconfigured) continue;
    if (!listed.has(spec.category)) listed.set(spec.category, []);
    listed.get(spec.category)!.push(tool);
  }
  const pages: Tool[][] = [];
  for (const group of listed.values()) {
    const last = pages.at(-1);
    if (last && last.length + group.length <= opts.pageSize) last.push(...group);
    else pages.push([...group]);
  }
  return { byName, pages };
}

/** The opaque cursor of page `index` (MCP cursors are strings the client hands back unread). */
export function cursorOf(index: number): string {
  return Buffer.from(`page:${index}`).toString('base64url');
}

/** The page a cursor points to, or undefined for a cursor this server never gave. */
export function pageOf(cursor: string | undefined, pages: number): number | undefined {
  if (cursor === undefined) return 0;
  const m = /^page:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const index = m ? Number(m[1]) : -1;
  return index >= 0 && index < pages ? index : undefined;
}
