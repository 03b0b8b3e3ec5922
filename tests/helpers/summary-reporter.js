// Prints one plain closing line, "tests: N passed, N failed, N skipped", that any CI can read, after the
// slowest suites with their seconds (CI has a time bound: this says where the time goes).
import path from 'node:path';

const SLOWEST = 8;

export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const slowest = results.testResults
      .map((r) => ({ file: path.relative(process.cwd(), r.testFilePath), s: (r.perfStats.end - r.perfStats.start) / 1000 }))
      .filter((r) => r.s > 0)
      .sort((a, b) => b.s - a.s)
      .slice(0, SLOWEST);
    if (slowest.length > 1) process.stdout.write(`\nslowest suites: ${slowest.map((r) => `${r.file} ${r.s.toFixed(0)} s`).join(', ')}\n`);
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
