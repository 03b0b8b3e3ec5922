// Requests whose params do not fit their method's schema, answered before the SDK sees them. The SDK parses
// a request against its schema before any handler runs and answers a refusal as -32603 (internal error)
// with zod's whole report as the message; JSON-RPC's code for it is -32602 (invalid params), and its words
// here name the first field at fault and nothing more.
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type JSONRPCError,
} from '@modelcontextprotocol/sdk/types.js';

interface Schema {
  safeParse(value: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

const SCHEMAS = new Map<string, Schema>([
  ['initialize', InitializeRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
  ['completion/complete', CompleteRequestSchema],
]);

type Message = { id?: unknown; method?: unknown } | null;

/** Why a request's params do not fit, or undefined (unknown methods and notifications are the SDK's to answer). */
function misfit(m: Message): string | undefined {
  if (typeof m?.method !== 'string' || m.id === undefined) return undefined;
  const result = SCHEMAS.get(m.method)?.safeParse(m);
  const issue = result?.success === false ? result.error?.issues[0] : undefined;
  if (!result || result.success) return undefined;
  const at = issue?.path.map(String).join('.') || 'params';
  return `Invalid params: ${at}: ${issue?.message ?? 'does not fit the method'}`;
}

/**
 * The error answers to a message, or a batch, holding a request with params that do not fit; undefined
 * when every request fits. In a batch the other requests are not run either: each is told why.
 */
export function refusedParams(body: unknown): JSONRPCError[] | undefined {
  const messages = (Array.isArray(body) ? body : [body]) as Message[];
  const why = messages.map(misfit);
  if (why.every((w) => w === undefined)) return undefined;
  return messages.flatMap((m, i) => {
    if (m?.id === undefined) return [];
    const id = m.id as JSONRPCError['id'];
    const reason = why[i];
    return reason === undefined
      ? [
          {
            jsonrpc: '2.0' as const,
            id,
            error: { code: ErrorCode.InvalidRequest, message: 'Not run: another request of the batch had invalid params' },
          },
        ]
      : [{ jsonrpc: '2.0' as const, id, error: { code: ErrorCode.InvalidParams, message: reason } }];
  });
}
