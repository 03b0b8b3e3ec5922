// An MCP client of the SDK, connected over HTTP to /mcp of a listening test app, and the whole tool list.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export async function mcpClient(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'uua-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

/** Every page of tools/list, in order. */
export async function listPages(client: Client): Promise<Tool[][]> {
  const pages: Tool[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages.push(page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}
