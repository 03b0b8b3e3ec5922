// Admin CLI for personal keys: `npm run keys -- add <plan> <name>`, `list`, `revoke <id>`.
// Uses the same store as the server: Redis when REDIS_URL is set, else DATA_DIR/keys.json.
import path from 'node:path';
import { loadConfig } from '../engine/config.js';
import { loadCatalog } from '../engine/catalog.js';
import { FileKeyStore, RedisKeyStore, newKey, record, type KeyStore } from '../engine/keystore.js';

const config = loadConfig();
const plans = loadCatalog(config.catalogDir).plans;
const [command, ...args] = process.argv.slice(2);

let close = async () => {};
let store: KeyStore;
if (config.redisUrl) {
  const { createClient } = await import('redis');
  const client = createClient({ url: config.redisUrl });
  await client.connect();
  store = new RedisKeyStore(client as never, `${process.env.REDIS_PREFIX ?? 'uua:'}keys`);
  close = async () => { await client.close(); };
} else {
  store = new FileKeyStore(path.join(config.dataDir, 'keys.json'));
}

function usage(): never {
  console.error('usage: npm run keys -- add <plan> <name> | list | revoke <id>');
  console.error(`plans: ${Object.keys(plans).filter((p) => p !== 'anonymous' && p !== 'free').join(', ')}`);
  process.exit(2);
}

switch (command) {
  case 'add': {
    const [plan, ...name] = args;
    if (!plan || !plans[plan]) usage();
    const key = newKey();
    const rec = record(key, plan, name.join(' ') || plan);
    await store.save(rec);
    console.log(`created key ${rec.id} (${plan}, ${rec.name}):\n${key}\nIt is shown once: only its hash is stored.`);
    break;
  }
  case 'list':
    for (const k of await store.list()) console.log(`${k.id}\t${k.plan}\t${k.createdAt}\t${k.name}`);
    break;
  case 'revoke':
    if (!args[0]) usage();
    console.log((await store.remove(args[0])) ? `revoked ${args[0]}` : `no key ${args[0]}`);
    break;
  default:
    usage();
}
await close();
