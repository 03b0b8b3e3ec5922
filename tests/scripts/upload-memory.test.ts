// Uploads stream: a server process on the S3 backend (s3rver) takes a 96 MB file and serves it back, and its
// peak resident memory grows by well under the file's size past a 16 MB warm-up. A server that held the
// file in memory anywhere on the way would grow by at least 96 MB. (The 200 MB figure in docs/decisions/hosted-content-s3.md
// comes from the same script: `npx tsx scripts/upload-memory.ts --mb 200`.)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

test('a 96 MB upload and download through S3 leave peak memory flat', async () => {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'scripts/upload-memory.ts', '--mb', '96', '--backend', 's3', '--json'],
    { maxBuffer: 1 << 20 },
  );
  const result = JSON.parse(stdout.trim().split('\n').pop()!) as { growthMb: number; peakRssMbAfterDownload: number };
  console.log(`upload-memory: ${JSON.stringify(result)}`);
  expect(result.growthMb).toBeLessThan(64);
}, 120_000);
