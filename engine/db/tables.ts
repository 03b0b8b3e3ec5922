// Every table, as the code names it (camelCase; the columns are snake_case through Kysely's CamelCasePlugin).
// One file per feature under tables/; the migrations that make them are under migrations/.
import type { KeyTables } from './tables/keys.js';
import type { AccountTables } from './tables/accounts.js';
import type { WebhookTables } from './tables/webhooks.js';
import type { BillingTables } from './tables/billing.js';
import type { HealthTables } from './tables/health.js';
import type { SharedTables } from './tables/shared.js';
import type { HostedTables } from './tables/hosted.js';
import type { TwoFactorTables } from './tables/two-factor.js';
import type { RequestLogTables } from './tables/request-log.js';

export interface Database
  extends
    KeyTables,
    AccountTables,
    WebhookTables,
    BillingTables,
    HealthTables,
    SharedTables,
    HostedTables,
    TwoFactorTables,
    RequestLogTables {}
