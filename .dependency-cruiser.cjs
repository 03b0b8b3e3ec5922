// The architecture as import rules (docs/architecture.md, "may import"). server/ is the composition root: it builds
// everything and nothing below it imports it. engine/ knows no endpoint, portal or MCP; adapters reach the
// engine through its one public surface, engine/adapter.ts; portal/ and mcp/ sit side by side on the engine.
// Type-only imports count (tsPreCompilationDeps): a type circle is still a circle between two modules.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      // Modules that need each other cannot be read, tested or loaded one without the other.
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      // server/ wires everything together; only the scripts and the tests may start from it.
      name: 'not-to-composition-root',
      severity: 'error',
      from: { pathNot: '^(server|scripts|tests)/' },
      to: { path: '^server/' },
    },
    {
      // The engine serves every endpoint alike: it imports no adapter, portal, MCP or server file.
      name: 'engine-stays-below',
      severity: 'error',
      from: { path: '^engine/' },
      to: { path: '^(adapters|portal|mcp|server)/' },
    },
    {
      // An adapter sees the engine only through its contract: types, errors and the helpers it exports.
      name: 'adapters-through-the-contract',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^engine/', pathNot: '^engine/adapter\\.ts$' },
    },
    {
      // An adapter answers one endpoint: it never reaches the portal, MCP or the composition root.
      name: 'adapters-not-above',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^(portal|mcp|server)/' },
    },
    {
      // A category's code is its own: what two categories share belongs in the engine's contract.
      name: 'adapters-own-category',
      severity: 'error',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/', pathNot: '^adapters/$1/' },
    },
    {
      // Within a category, adapters share code through `_name.ts` helpers, never by importing another endpoint.
      name: 'adapters-share-through-helpers',
      severity: 'error',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/[^/]+/[^_/][^/]*$' },
    },
    {
      // The portal and MCP are two faces of the same engine, side by side: neither imports the other.
      name: 'portal-not-to-mcp',
      severity: 'error',
      from: { path: '^portal/' },
      to: { path: '^mcp/' },
    },
    {
      name: 'mcp-not-to-portal',
      severity: 'error',
      from: { path: '^mcp/' },
      to: { path: '^portal/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Recorded upstream payloads, not code.
    exclude: { path: '^tests/fixtures/' },
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
