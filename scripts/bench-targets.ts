// The servers `npm run bench` measures, one per child process: the baselines (bare node:http, bare
// Express 5, Fastify with a JSON schema, a bare Node reverse proxy with undici), our engine, and a loopback
// fake upstream for data-set endpoints. (nginx, the other proxy baseline, is started by bench.ts itself.)
// Once listening it says `{ ready: <port> }` over IPC (and prints `READY <port>` when run by hand).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Agent } from 'undici';
import { createApp } from '../server/app.js';
import { CONSTANT } from './bench-constant.js';

const target = process.argv[2];
const ready = (port: number) => {
  console.log(`READY ${port}`);
  process.send?.({ ready: port });
};
const listen = (server: http.Server) => server.listen(0, '127.0.0.1', () => ready((server.address() as AddressInfo).port));

/** `mb` MB of one repeated 1 MB chunk, sent as fast as the reader takes them (never held whole). */
function sendMegabytes(res: http.ServerResponse, mb: number) {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': mb * chunk.length });
  let left = mb;
  const more = () => {
    while (left > 0) {
      left--;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

switch (target) {
  case 'node-http':
    listen(
      http.createServer((_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end('{"hello":"world"}');
      }),
    );
    break;
  case 'node-http-envelope':
    // The engine's success envelope for the bench's constant endpoint, written by bare node:http: what the
    // engine's own work per request is measured against (bench.ts, "engine overhead").
    listen(
      http.createServer((req, res) => {
        const started = performance.now();
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(
          JSON.stringify({
            success: true,
            creator: 'Unified Utility API',
            source: 'embedded',
            data: CONSTANT,
            metadata: {
              endpoint: 'bench/constant',
              requestId: randomUUID(),
              tookMs: Math.round(performance.now() - started),
              cached: false,
            },
          }),
        );
      }),
    );
    break;
  case 'express': {
    const app = express();
    app.get('/', (_req, res) => {
      res.json({ hello: 'world' });
    });
    listen(http.createServer(app));
    break;
  }
  case 'fastify': {
    const app = Fastify();
    app.get(
      '/',
      {
        schema: {
          querystring: { type: 'object', properties: { bin: { type: 'string', pattern: '^[0-9]{6,8}$' } }, required: ['bin'] },
          response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } },
        },
      },
      async () => ({ hello: 'world' }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    ready((app.server.address() as AddressInfo).port);
    break;
  }
  case 'undici-proxy': {
    // The least a Node process can do per proxied call: one keep-alive pool, the answer read whole and sent.
    const agent = new Agent({ keepAliveTimeout: 4_000 });
    const origin = process.env.UPSTREAM_URL!;
    listen(
      http.createServer((req, res) => {
        agent
          .request({ origin, path: req.url ?? '/', method: 'GET' })
          .then(async (up) => {
            const body = Buffer.from(await up.body.arrayBuffer());
            res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/octet-stream') });
            res.end(body);
          })
          .catch(() => {
            res.statusCode = 502;
            res.end();
          });
      }),
    );
    break;
  }
  case 'fake-upstream': {
    // A PokéAPI-shaped upstream answering in ~1 ms; and a media CDN's file (256 KiB) with a tikwm-shaped
    // answer that links to it, for the media-link case; a post whose id is a number of MB links to a file of
    // that size, made as it is sent (the streams' memory).
    const file = Buffer.alloc(256 * 1024, 7);
    const server = http.createServer((req, res) => {
      if (req.url === '/media/file.mp4') {
        res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': file.length });
        return res.end(file);
      }
      const big = /^\/media\/(\d+)mb\.mp4$/.exec(req.url ?? '');
      if (big) return void sendMegabytes(res, Number(big[1]));
      if (req.url?.startsWith('/api/?')) {
        const post = new URL(req.url, 'http://x').searchParams.get('url') ?? '';
        const mb = /\/video\/(\d+)mb$/.exec(post)?.[1];
        const play = `http://127.0.0.1:${(server.address() as AddressInfo).port}/media/${mb ? `${mb}mb` : 'file'}.mp4`;
        res.setHeader('Content-Type', 'application/json');
        return res.end(JSON.stringify({ code: 0, msg: 'success', data: { title: 'bench', play } }));
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          id: 25,
          name: req.url?.split('/').filter(Boolean).pop() ?? 'pikachu',
          height: 4,
          weight: 60,
          base_experience: 112,
          types: [{ slot: 1, type: { name: 'electric' } }],
        }),
      );
    });
    listen(server);
    break;
  }
  case 'engine': {
    // BENCH_ADAPTERS_DIR: the bench's own adapters (with CATALOG_DIR, its own catalog: the constant endpoint).
    const { app } = await createApp(process.env, { adaptersDir: process.env.BENCH_ADAPTERS_DIR });
    listen(http.createServer(app));
    break;
  }
  default:
    console.error(`unknown target ${target}`);
    process.exit(2);
}
