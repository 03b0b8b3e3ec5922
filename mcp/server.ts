// One MCP exchange: a fresh low-level Server and a stateless Streamable HTTP transport answering one POST
// with plain JSON (docs/decisions/mcp.md). tools/list hands out pages; tools/call runs the
// REST request the call stands for through the app (mcp/inject.ts) and turns its answer into the result.
import type { Request, Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Injector } from './inject.js';
import { cursorOf, pageOf, type Tools } from './tools.js';
import { restRequest, type Caller } from './rest-request.js';
import { toolResult } from './result.js';
import { completionOf, promptMessage, promptOf } from './prompts.js';
import { reportProgress } from './progress.js';
import { refusedParams } from './params.js';

export interface Exchange {
  tools: Tools;
  caller: Caller;
  inject: Injector;
  publicUrl: string;
  info: { name: string; version: string };
  instructions: string;
}

/** Whether a message (or a batch) asks for progress: its answer then comes as an event stream that carries it. */
function wantsProgress(body: unknown): boolean {
  const asks = (m: unknown) =>
    (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined;
  return Array.isArray(body) ? body.some(asks) : asks(body);
}

export async function answer(req: Request, res: Response, x: Exchange): Promise<void> {
  const refused = refusedParams(req.body);
  if (refused) {
    res.json(Array.isArray(req.body) ? refused : refused[0]);
    return;
  }
  const server = mcpServer(x);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(req.body) });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

function mcpServer({ tools, caller, inject, publicUrl, info, instructions }: Exchange): Server {
  const server = new Server(info, {
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, completions: {} },
    instructions,
  });
  /** The page a cursor names, of tools or of their prompts (the same pages). */
  const page = (cursor: string | undefined) => {
    const index = pageOf(cursor, Math.max(tools.pages.length, 1));
    if (index === undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    return { listed: tools.pages[index] ?? [], next: index + 1 < tools.pages.length ? { nextCursor: cursorOf(index + 1) } : {} };
  };
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const { listed, next } = page(request.params?.cursor);
    return { tools: listed, ...next };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = tools.byName.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const token = request.params._meta?.progressToken;
    const progress = token === undefined ? undefined : reportProgress(token, entry.spec, extra.sendNotification);
    try {
      const answer = await inject(await restRequest(entry.spec, request.params.arguments ?? {}, caller));
      return await toolResult(answer, publicUrl, inject);
    } finally {
      progress?.done();
    }
  });
  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const { listed, next } = page(request.params?.cursor);
    return { prompts: listed.map((tool) => promptOf(tools.byName.get(tool.name)!)), ...next };
  });
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const entry = tools.byName.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    return promptMessage(entry, request.params.arguments ?? {});
  });
  // An argument of a prompt this server does not have has no suggestions: an empty list, not an error
  // (completion only ever advises).
  server.setRequestHandler(CompleteRequestSchema, (request) => {
    const { ref, argument } = request.params;
    const spec = ref.type === 'ref/prompt' ? tools.byName.get(ref.name)?.spec : undefined;
    return completionOf(spec, argument.name, argument.value);
  });
  return server;
}
