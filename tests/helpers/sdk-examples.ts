// Every operation's documented example request (helpers/openapi-client.ts, the one the contract tests
// send), as an SDK call: the group and the method each SDK names it by, and its parameters flat, with the
// fields of a multipart body that are files listed (their example text is sent as the file's bytes).
import { exampleOf, fileFieldsOf, operationsOf, type Doc, type Operation } from './openapi-client.js';
import { pythonName, pythonNames, typescriptNames } from '../../sdks/naming.js';

export interface SdkExample {
  name: string;
  op: Operation;
  ts: { group: string; method: string };
  py: { group: string; method: string };
  params: Record<string, unknown>;
  /** Python's keyword arguments. */
  pyParams: Record<string, unknown>;
  files: string[];
}

export function sdkExamples(doc: Doc): SdkExample[] {
  return operationsOf(doc).map((op) => {
    const r = exampleOf(op);
    // A path parameter takes its documented example too (the request log's `{requestId}`).
    const inPath = Object.fromEntries((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.example]));
    const params = { ...inPath, ...r.query, ...(r.body ?? {}) };
    return {
      name: `${op.method.toUpperCase()} ${op.path}`,
      op,
      ts: typescriptNames(op.path),
      py: pythonNames(op.path),
      params,
      pyParams: Object.fromEntries(Object.entries(params).map(([k, v]) => [pythonName(k), v])),
      files: fileFieldsOf(doc, op, r.mediaType),
    };
  });
}
