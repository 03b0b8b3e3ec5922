// Reading an OpenAI-style chat completion, as answered by OpenAI, OpenRouter, Ollama, vLLM, llama.cpp,
// Perplexity and Pollinations alike. Shared by ai/chat-1, ai/chat-2 and gen-models/chat: one place that
// decides what a usable answer is, so a half-broken upstream is a 502 everywhere, never a 500.
import { upstreamChanged } from '../errors.js';

export interface Completion {
  /** The reply, without a leading reasoning block. */
  content: string;
  /** The model the upstream says answered, when it says so. */
  model: string | undefined;
}

/** The request body of a one-turn chat. */
export function oneTurn(model: string, q: string): { model: string; messages: Array<{ role: 'user'; content: string }> } {
  return { model, messages: [{ role: 'user', content: q }] };
}

// Reasoning models (DeepSeek R1 on Ollama, sonar-reasoning) may open their reply with their thinking.
const LEADING_THINK = /^\s*<think>[\s\S]*?<\/think>\s*/;

function stripThink(text: string): string {
  return text.replace(LEADING_THINK, '');
}

/** `choices[0].message.content` as text, or a 502 when the body is not a chat completion. */
export function readCompletion(body: unknown): Completion {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const choice = Array.isArray(b.choices) ? (b.choices[0] as Record<string, unknown> | undefined) : undefined;
  const message =
    choice && typeof choice.message === 'object' && choice.message !== null ? (choice.message as Record<string, unknown>) : undefined;
  const content = textOf(message?.content);
  if (content === undefined) throw upstreamChanged('The upstream service answered without a chat reply');
  return {
    content: stripThink(content),
    model: typeof b.model === 'string' && b.model.trim() ? b.model : undefined,
  };
}

/** A string, or the text parts of a content array (some servers answer `[{type:'text', text}]`). */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content
    .map((p) =>
      typeof p === 'object' && p !== null && (p as Record<string, unknown>).type === 'text'
        ? (p as Record<string, unknown>).text
        : undefined,
    )
    .filter((t): t is string => typeof t === 'string');
  return parts.length ? parts.join('') : undefined;
}
