// One prompt per tool, so that MCP's completion (completion/complete, which completes the arguments of
// prompts and resource templates, not of tools) can offer each parameter's values from the catalog: a
// parameter's `enum`, or where it has none its `examples`. Getting a prompt gives the message that asks the
// agent to call the tool with the arguments the user filled in; the tool call then goes through REST as any.
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { EndpointSpec } from '../engine/catalog/load.js';
import type { ToolEntry } from './tools.js';

/** MCP's cap on the values of one completion answer. */
const MAX_VALUES = 100;

export function promptOf({ tool, spec }: ToolEntry): Prompt {
  return {
    name: tool.name,
    title: spec.summary,
    description: `Call the tool ${tool.name}: ${spec.summary}`,
    arguments: Object.entries(spec.params)
      .filter(([, p]) => p.type !== 'file')
      .map(([name, p]) => ({ name, description: p.description, required: Boolean(p.required) })),
  };
}

export function promptMessage({ tool }: ToolEntry, args: Record<string, string>): GetPromptResult {
  const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== ''));
  return {
    description: tool.title,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text: `Call the tool ${tool.name} with the arguments ${JSON.stringify(given)} and tell me what it answers.`,
        },
      },
    ],
  };
}

/** The catalog's values for one parameter that start with what was typed (case-insensitive), in catalog order. */
export function completionOf(spec: EndpointSpec | undefined, argument: string, typed: string) {
  const p = spec?.params[argument];
  const known = (p?.enum ?? p?.examples ?? []).map(String);
  const start = typed.toLowerCase();
  const values = known.filter((v) => v.toLowerCase().startsWith(start));
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}
