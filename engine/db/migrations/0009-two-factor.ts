import type { Migration } from '../migration.js';

/**
 * Two-factor sign-in (portal/two-factor/): an account's authenticator app (its TOTP secret, encrypted), its
 * passkeys (WebAuthn credentials: public keys only), its recovery codes (hashed), and on the session row the
 * half-signed-in state between the password and the second factor, and a WebAuthn challenge waiting for
 * its answer.
 */
export const twoFactor: Migration = {
  async up(db) {
    await db.schema
      .createTable('totp_factors')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('iv', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull())
      .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_step', 'bigint')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('passkeys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .execute();
    await db.schema.createIndex('passkeys_by_account').on('passkeys').columns(['account_id', 'created_at']).execute();

    await db.schema
      .createTable('recovery_codes')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('recovery_codes_pk', ['account_id', 'hash'])
      .execute();

    for (const [name, type] of [
      ['pending_account_id', 'text'],
      ['pending_gen', 'integer'],
      ['pending_until', 'bigint'],
      ['challenge', 'text'],
      ['challenge_until', 'bigint'],
    ] as const)
      await db.schema.alterTable('sessions').addColumn(name, type).execute();
  },
};
