// What tr and its fallback read of the caller's query: the text, `from` (undefined for auto) and `to`.
export function callerLanguages(params: Record<string, unknown>): { text: string; from: string | undefined; to: string } {
  const given = params.from === undefined ? undefined : String(params.from);
  return {
    text: String(params.text),
    from: given && given.toLowerCase() !== 'auto' ? given : undefined,
    to: String(params.to),
  };
}
