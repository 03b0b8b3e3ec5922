// The architecture as import rules (docs/architecture.md, "may import"). server/ is the composition root: it builds
// everything and nothing below it imports it. engine/ knows no endpoint, feature, portal or MCP; the features
// (features/) stand on the engine and plug into it from server/; adapters reach the engine through its one
// public surface, engine/adapter.ts; portal/ and mcp/ sit side by side on the engine and the features.
// Type-only imports count (tsPreCompilationDeps): a type circle is still a circle between two modules.

/** A forbidden import: every rule here is an error, never a warning. */
const rule = (name, from, to) => ({ name, severity: 'error', from, to });

/**
 * The engine's floors, lowest first (docs/architecture.md, "The engine's floors"): a folder imports its own
 * floor and those below it, never one above. The files at engine/'s root (errors, types, durations) are the
 * ground floor; engine/adapter.ts, the adapters' contract, stands above every floor and re-exports from them.
 */
const FLOORS = ['infra', 'db', 'store', 'catalog', 'upstream', 'access', 'pipeline', 'openapi'];

/** One rule per floor: nothing in it imports a floor above. */
const floorRules = FLOORS.slice(0, -1).map((floor, i) =>
  rule(`engine-${floor}-floor`, { path: `^engine/${floor}/` }, { path: `^engine/(${FLOORS.slice(i + 1).join('|')})/` }),
);

/** The portal's feature slices (docs/architecture.md, "The portal's slices"): one feature's routes, views, services and repositories each. */
const SLICES = '(keys|account|auth|admin|webhooks|billing|status|docs|two-factor)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // Modules that need each other cannot be read, tested or loaded one without the other.
    rule('no-circular', {}, { circular: true }),
    // server/ wires everything together; only the scripts and the tests may start from it.
    rule('not-to-composition-root', { pathNot: '^(server|scripts|tests)/' }, { path: '^server/' }),
    // The engine serves every endpoint alike: it imports no adapter, feature, portal, MCP or server file.
    rule('engine-stays-below', { path: '^engine/' }, { path: '^(adapters|features|portal|mcp|server)/' }),
    // The engine's root files are its ground floor: they import no folder of it (the contract aside).
    rule('engine-root-is-ground', { path: '^engine/[^/]+$', pathNot: '^engine/adapter\\.ts$' }, { path: '^engine/[^/]+/' }),
    ...floorRules,
    // A feature (hosting, health, usage) uses the engine and is used by server/, the portal and MCP, never the reverse.
    rule('features-not-above', { path: '^features/' }, { path: '^(adapters|portal|mcp|server)/' }),
    // A feature is its own: what two features share belongs in the engine.
    rule('features-own-folder', { path: '^features/([^/]+)/' }, { path: '^features/', pathNot: '^features/$1/' }),
    // An adapter sees the engine only through its contract: types, errors and the helpers it exports.
    rule('adapters-through-the-contract', { path: '^adapters/' }, { path: '^engine/', pathNot: '^engine/adapter\\.ts$' }),
    // An adapter answers one endpoint: it never reaches a feature, the portal, MCP or the composition root.
    rule('adapters-not-above', { path: '^adapters/' }, { path: '^(features|portal|mcp|server)/' }),
    // A category's code is its own: what two categories share belongs in the engine's contract.
    rule('adapters-own-category', { path: '^adapters/([^/]+)/' }, { path: '^adapters/', pathNot: '^adapters/$1/' }),
    // Within a category, adapters share code through `_name.ts` helpers, never by importing another endpoint.
    rule('adapters-share-through-helpers', { path: '^adapters/([^/]+)/' }, { path: '^adapters/[^/]+/[^_/][^/]*$' }),
    // The portal and MCP are two faces of the same engine, side by side: neither imports the other.
    rule('portal-not-to-mcp', { path: '^portal/' }, { path: '^mcp/' }),
    rule('mcp-not-to-portal', { path: '^mcp/' }, { path: '^portal/' }),
    // A slice uses the engine, what the portal shares (portal/shared/, portal/mail/, the accounts slice
    // portal/accounts/, portal/context.ts) and another slice only through that slice's index.ts, the part it
    // offers the others, so a change inside a slice stays there. portal/index.ts and portal/context.ts, which
    // put the slices together, reach into each.
    rule(
      'slices-through-their-index',
      { path: `^portal/${SLICES}/` },
      { path: `^portal/${SLICES}/`, pathNot: ['^portal/$1/', `^portal/${SLICES}/index\\.ts$`] },
    ),
    // What the slices share knows none of them.
    rule('shared-below-slices', { path: '^portal/(shared|mail|accounts)/' }, { path: `^portal/${SLICES}/` }),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Recorded upstream payloads, not code; and the SDK's generated client (@hey-api/openapi-ts writes it
    // with a type-only circle between two of its files), which the SDK's tests reach.
    exclude: { path: '^(tests/fixtures|sdks/typescript/src/gen)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
