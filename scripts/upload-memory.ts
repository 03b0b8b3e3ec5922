// Shows that hosting streams: a server process with the S3 backend (s3rver on loopback) or the disk takes a
// large upload through cloud-storage/file-host and serves it back, and its peak resident memory (VmHWM
// from /proc) is reported after a 16 MB warm-up (up and down: buffers, sockets and the heap's working size
// are then in place) and after the large file. Flat memory means the two peaks differ by far less than the
// file's size.
//   npx tsx scripts/upload-memory.ts [--mb 200] [--backend s3|disk] [--json]
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startS3Server } from '../tests/helpers/s3-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const MB = Number(arg('mb', '200'));
const backend = arg('backend', 's3');
const KEY = 'upload-memory-key-0001';

async function freePort(): Promise<number> {
  const srv = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => srv.once('listening', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Peak and current resident memory of a process, in MB. */
function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}

type Uploaded = { status: number; body: { data?: { code?: string; size?: number } } };

/** POSTs a multipart body of `mb` MB generated on the fly, never held whole in this process either. */
function upload(port: number, mb: number): Promise<Uploaded> {
  const boundary = `----uua${crypto.randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = crypto.randomBytes(1024 * 1024);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/cloud-storage/file-host',
        headers: {
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': head.length + mb * chunk.length + tail.length,
          'X-API-Key': KEY,
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Uploaded['body'] }));
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < mb) {
        sent++;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

/** Downloads a hosted file, counting its bytes. */
function download(port: number, code: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: `/f/${code}/big.bin` }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length)).on('end', () => resolve(n));
      })
      .on('error', reject);
  });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-upload-memory-'));
fs.writeFileSync(path.join(dataDir, 'keys.yaml'), `- { key: ${KEY}, plan: enterprise, name: upload memory }\n`);
const s3 = backend === 's3' ? await startS3Server() : undefined;
const port = await freePort();
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server/main.ts')], {
  cwd: root,
  env: {
    ...process.env,
    ...s3?.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEYS_FILE: path.join(dataDir, 'keys.yaml'),
    MAX_UPLOAD_MB: String(MB + 16),
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
try {
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 300 || child.exitCode !== null) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const warm = await upload(port, 16);
  if (warm.status !== 200) throw new Error(`warm-up upload: ${warm.status} ${JSON.stringify(warm.body)}`);
  await download(port, warm.body.data!.code!);
  const before = memoryOf(child.pid!);
  const started = Date.now();
  const big = await upload(port, MB);
  const uploadMs = Date.now() - started;
  if (big.status !== 200 || big.body.data?.size !== MB * 1024 * 1024)
    throw new Error(`${MB} MB upload: ${big.status} ${JSON.stringify(big.body)}`);
  const afterUpload = memoryOf(child.pid!);
  const got = await download(port, big.body.data.code!);
  if (got !== MB * 1024 * 1024) throw new Error(`download returned ${got} bytes`);
  const afterDownload = memoryOf(child.pid!);
  const result = {
    backend,
    fileMb: MB,
    uploadMs,
    peakRssMbAfterWarmUp: before.peakMb,
    peakRssMbAfterUpload: afterUpload.peakMb,
    peakRssMbAfterDownload: afterDownload.peakMb,
    growthMb: afterDownload.peakMb - before.peakMb,
  };
  if (process.argv.includes('--json')) console.log(JSON.stringify(result));
  else
    console.log(
      `${backend}: ${MB} MB up (${uploadMs} ms) and down; peak RSS ${before.peakMb} MB after a 16 MB warm-up, ${afterUpload.peakMb} MB after the upload, ${afterDownload.peakMb} MB after the download (+${result.growthMb} MB)`,
    );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await s3?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
