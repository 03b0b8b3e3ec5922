// Operators' CLI for keys and accounts: `npm run keys -- add <plan> <name> | list | revoke <id> | admin <email>
// [name] | accounts`.
// It uses the server's own database (DATA_DIR/uua.sqlite, or PostgreSQL when DATABASE_URL is set) and
// announces its changes on the server's store (the same file, or Redis when REDIS_URL is set), so a running
// server sees every change within a second. Run through tsx: no build step per call.
import { loadConfig } from '../server/config.js';
import { loadCatalog } from '../engine/catalog/load.js';
import { KeyStore } from '../engine/access/keystore.js';
import { importKeysJson } from '../engine/access/keys-file.js';
import { openDatabase } from '../engine/db/open.js';
import { openSqlite, type Store } from '../engine/store/index.js';
import { RedisStore } from '../engine/store/redis.js';
import { Accounts, ensureAdmin } from '../portal/accounts/accounts.js';

const config = loadConfig();
const plans = loadCatalog(config.catalogDir).plans;
const [command, ...args] = process.argv.slice(2);
const prefix = config.redisPrefix;

function usage(): never {
  console.error('usage: npm run keys -- add <plan> <name> | list | revoke <id> | admin <email> [name] | accounts');
  console.error(
    `plans: ${Object.keys(plans)
      .filter((p) => p !== 'anonymous' && p !== 'free')
      .join(', ')}`,
  );
  console.error('admin: makes <email> a portal admin, creating the account with the password of ADMIN_PASSWORD or typed in');
  process.exit(2);
}

/** A password typed on stdin (one line; typing is shown). */
async function readPassword(): Promise<string> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  if (process.stdin.isTTY) process.stderr.write('Password for the new admin account: ');
  const line = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve(''));
  });
  rl.close();
  return line;
}

let close: () => Promise<void>;
let store: Store;
if (config.redisUrl) {
  const { createClient } = await import('redis');
  const client = createClient({ url: config.redisUrl });
  await client.connect();
  store = new RedisStore(client as never, prefix, config.redisUrl);
  close = async () => {
    await client.close();
  };
} else {
  store = openSqlite(config.dataDir);
  close = () => store.close();
}
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const keys = new KeyStore(database.db, store);
await importKeysJson(keys, config.dataDir);

try {
  switch (command) {
    case 'add': {
      const [plan, ...name] = args;
      if (!plan || !plans[plan] || plan === 'free' || plan === 'anonymous') usage();
      const { key, record } = await keys.issue(plan, name.join(' ') || plan);
      console.log(`created key ${record.id} (${plan}, ${record.name}):\n${key}\nIt is shown once: only its hash is stored.`);
      break;
    }
    case 'list':
      for (const k of await keys.list()) {
        console.log([k.id, k.plan, k.createdAt, k.hint ?? '', k.expiresAt ? `expires ${k.expiresAt}` : '', k.name].join('\t'));
      }
      break;
    case 'revoke':
      if (!args[0]) usage();
      console.log((await keys.revoke(args[0])) ? `revoked ${args[0]}` : `no key ${args[0]}`);
      break;
    case 'admin': {
      const [email, ...name] = args;
      if (!email || !email.includes('@')) usage();
      const accounts = new Accounts(database.db, keys);
      const password = (await accounts.byEmail(email)) ? undefined : process.env.ADMIN_PASSWORD || (await readPassword());
      const made = await ensureAdmin(accounts, { email, name: name.join(' '), password }).catch((err: Error) => {
        console.error(err.message);
        process.exitCode = 1;
      });
      if (made) console.log(`${made.account.email} (${made.account.id}): admin ${made.outcome}${made.note ? `; ${made.note}` : ''}`);
      break;
    }
    case 'accounts': {
      const accounts = new Accounts(database.db, keys);
      for (let page = await accounts.page({ limit: 500 }); ; page = await accounts.page({ after: page.next, limit: 500 })) {
        for (const a of page.accounts) console.log([a.id, a.email, a.role, a.plan, a.status, a.createdAt, a.name].join('\t'));
        if (!page.next) break;
      }
      break;
    }
    default:
      usage();
  }
} finally {
  await database.close();
  await close();
}
