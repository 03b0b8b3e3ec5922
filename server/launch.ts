// Entry point of `npm start`. It imports nothing before it has checked the Node that runs it: the server's
// modules link node:sqlite and other Node 24 built-ins, which an older Node refuses (ERR_UNKNOWN_BUILTIN_MODULE)
// before any line of theirs runs. The `node` package brings Node 24 (npm scripts put node_modules/.bin first
// on PATH); package.json's devEngines names the Node that runs npm itself (>= 20).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Cannot start: Node ${process.versions.node}; the server needs Node 24 (run it with \`npm start\`, which uses the project's own).`,
  );
  process.exit(1);
}
await import('./main.js');
