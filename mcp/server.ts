// One MCP exchange: a fresh low-level Server and a stateless Streamable HTTP transport answering one POST
// with plain JSON (docs/decisions.md, "Agents (MCP)"). tools/list hands out pages; tools/call runs the
// REST request the call stands for through the app (mcp/inject.ts) and turns its answer into the result.
import type { Request, Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Injector } from './inject.js';
import { cursorOf, pageOf, type Tools } from './tools.js';
import { restRequest, type Caller } from './rest-request.js';
import { toolResult } from './result.js';

export interface Exchange {
  tools: Tools;
  caller: Caller;
  inject: Injector;
  publicUrl: string;
  info: { name: string; version: string };
  instructions: string;
}

export async function answer(req: Request, res: Response, x: Exchange): Promise<void> {
  const server = mcpServer(x);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

function mcpServer({ tools, caller, inject, publicUrl, info, instructions }: Exchange): Server {
  const server = new Server(info, { capabilities: { tools: { listChanged: false } }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const index = pageOf(request.params?.cursor, Math.max(tools.pages.length, 1));
    if (index === undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    const next = index + 1 < tools.pages.length ? { nextCursor: cursorOf(index + 1) } : {};
    return { tools: tools.pages[index] ?? [], ...next };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const entry = tools.byName.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const answer = await inject(await restRequest(entry.spec, request.params.arguments ?? {}, caller));
    return toolResult(answer, publicUrl, inject);
  });
  return server;
}
