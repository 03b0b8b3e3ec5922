// Both SDKs' generated files from one document, under `root` (sdks/, or a scratch folder to compare with it).
import fs from 'node:fs';
import path from 'node:path';
import { sdkOperations, type OpenApiDoc } from './operations.js';
import { endpointsFile, generateClient, generatedFunctions, versionFile } from './typescript.js';
import { pythonEndpointsFile, pythonVersionFile } from './python.js';
import { GENERATED } from './generated-files.js';

export async function generateSdks(document: object, root: string): Promise<string[]> {
  const doc = document as OpenApiDoc;
  const ops = sdkOperations(doc);
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  // The generator reads a copy: it may rewrite what it is handed.
  const gen = path.join(root, 'typescript/src/gen');
  await generateClient(structuredClone(doc), gen);
  write('typescript/src/endpoints.gen.ts', endpointsFile(ops, generatedFunctions(gen)));
  write('typescript/src/version.gen.ts', versionFile(doc.info.version, doc.servers[0].url));
  write('python/src/unified_utility_api/_endpoints.py', pythonEndpointsFile(ops));
  write('python/src/unified_utility_api/_version.py', pythonVersionFile(doc.info.version, doc.servers[0].url));
  return GENERATED;
}
