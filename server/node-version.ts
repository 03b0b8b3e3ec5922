// The server runs on Node 24, which the `node` package brings (npm scripts put node_modules/.bin first on
// PATH). package.json's devEngines names the Node that runs npm itself (>= 20); this names the runtime, and
// is imported first by server/main.ts, so an older `node` stops with this line instead of a stranger error.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Cannot start: Node ${process.versions.node}; the server needs Node 24 (run it with \`npm start\`, which uses the project's own).`,
  );
  process.exit(1);
}
