// The types of scripts/start-command.mjs (a plain script Node 20 runs too), for the TypeScript that imports it.
export function startCommand(root: string): { env: Record<string, string>; flags: string[]; script: string };
