// The service's configuration, as one typed value: the composition root (server/config.ts) reads it from the
// environment once, and the engine, the portal and MCP are handed the parts they use.
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  redisUrl: string | undefined;
  /** PostgreSQL for the tables (accounts, keys, …) of several instances; unset: SQLite in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  serviceName: string;
  anonymousKey: string;
  freeKey: string;
  apiKeysFile: string | undefined;
  authFailLimit: number;
  trustProxy: boolean | number | string;
  logLevel: string;
  catalogDir: string;
  adaptersDir: string;
  /** Largest upload (file-host, image-host), in bytes. */
  maxUploadBytes: number;
  /** Largest JSON or urlencoded body, in bytes. */
  maxBodyBytes: number;
  /** Per-plan overrides: PLAN_<ID>_LIMIT, PLAN_<ID>_WINDOW and PLAN_<ID>_LOG_DAYS (the request log's days). */
  planOverrides: Record<string, { limit?: number; window?: string; logDays?: number }>;
  /** The request log (features/request-log/): REQUEST_LOG=off turns it off; REQUEST_LOG_IP how much of the client address it keeps. */
  requestLog: { on: boolean; ip: 'truncated' | 'full' | 'none' };
  /** When set, /metrics wants `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** On SIGTERM: how long /health answers 503 (draining) before the server stops accepting. */
  drainDelayMs: number;
  /** On SIGTERM: the longest wait for in-flight requests before exiting anyway. */
  shutdownTimeoutMs: number;
  /** How long a request's body may stop arriving before the 408 (BODY_IDLE_TIMEOUT, at most 30 s). */
  bodyIdleTimeoutMs: number;
  /** Connections one client address may hold open (MAX_CONNECTIONS_PER_IP); 0: no cap. Loopback is never capped. */
  connectionsPerAddress: number;
  /** Hosted content in an S3-compatible store instead of DATA_DIR/blobs: set when S3_BUCKET is. */
  s3: S3Config | undefined;
  /** Only tests set this: lets guarded fetches reach loopback fakes. */
  allowPrivateFetch: boolean;
  /** Prefix of every Redis key (REDIS_PREFIX). */
  redisPrefix: string;
  /** Portal sign-up: open, approval (accounts wait for an admin) or closed (invite links only). */
  signup: SignupMode;
  /** Sign-ups allowed from one client IP per minute (SIGNUP_LIMIT); the next gets 429. */
  signupLimit: number;
  /** Free accounts get personal keys with their own allowance instead of the shared free key (FREE_PERSONAL_KEYS). */
  freePersonalKeys: boolean;
  /** The portal admin made or promoted at boot (ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_NAME). */
  admin: { email: string; password: string | undefined; name: string | undefined } | undefined;
  /** ADMIN_2FA: `required` sends an admin without a second factor to set one up before any admin page. */
  adminTwoFactor: 'required' | 'optional';
  mcp: McpConfig;
  /** Account webhooks (portal/webhooks/). */
  webhooks: WebhooksConfig;
  /** Email over SMTP (SMTP_URL, MAIL_FROM): unset, the portal sends no mail and verifies no address. */
  mail: MailConfig | undefined;
  /** Probes, the status page and operator alerts (features/health/). */
  health: HealthConfig;
  /** Plans sold through Stripe (STRIPE_SECRET_KEY and the rest): unset, nothing of billing shows (portal/billing/). */
  billing: BillingConfig | undefined;
  /** Links on this service to the media answers name (features/media/). */
  media: MediaConfig;
  /** The process environment, read only for the per-upstream variables (UPSTREAM_<ID>_URL, _KEYS, …), whose names come from catalog/upstreams.yaml. */
  env: NodeJS.ProcessEnv;
}

export interface MediaConfig {
  /** How long a /media/<token> link works (MEDIA_LINK_TTL). */
  linkTtlMs: number;
  /** Secrets that sign links, the first signing and all verifying (MEDIA_LINK_SECRETS); the `secrets` table's one always verifies. */
  linkSecrets: string[];
  /** Learn each media's size and type with a small ranged GET when the answer is made (MEDIA_FACTS). */
  facts: boolean;
  /** MEDIA_STORE=on: keep a copy of each media downloaded whole in the blob store while its link lives. */
  store: boolean;
  /** How long a media answer is reused for the same parameters (MEDIA_CACHE_TTL; 0: never). */
  cacheTtlMs: number;
  /** Streams of media links one key may have open at once, per plan (MEDIA_STREAMS, MEDIA_STREAMS_<PLAN>). */
  streams: { default: number; plans: Record<string, number> };
  /** Bytes of media links one key may stream a day, per plan (MEDIA_DAILY_MB, MEDIA_DAILY_MB_<PLAN>). */
  dailyBytes: { default: number; plans: Record<string, number> };
}

export type SignupMode = 'open' | 'approval' | 'closed';

export interface McpConfig {
  /** Tools per page of tools/list (MCP_PAGE_SIZE). */
  pageSize: number;
  /** Leave out the tools whose upstream is not configured (MCP_HIDE_UNCONFIGURED). */
  hideUnconfigured: boolean;
  /** Browser origins besides PUBLIC_URL's that may use /mcp (MCP_ALLOWED_ORIGINS; `*` for any). */
  allowedOrigins: string[];
}

export interface WebhooksConfig {
  /** The delays before the second, third… attempts of a delivery (WEBHOOK_RETRY_DELAYS); one attempt more than delays. */
  retryDelaysMs: number[];
  /** One attempt's time limit (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
}

/** SMTP_URL, read into its parts: smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (TLS at once). */
export interface MailConfig {
  host: string;
  port: number;
  /** TLS from the first byte (smtps://, port 465 by default); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  /** From the URL's user and password, percent-decoded. */
  auth: { user: string; pass: string } | undefined;
  /** The From of every message (MAIL_FROM): `address` or `Name <address>`. */
  from: string;
}

/** STRIPE_*: the operator's Stripe account, read into its parts. */
export interface BillingConfig {
  secretKey: string;
  /** The signing secret of the webhook endpoint (whsec_…): every event is checked against it. */
  webhookSecret: string;
  /** The Stripe price of each paid plan sold (STRIPE_PRICE_PREMIUM, STRIPE_PRICE_ENTERPRISE); a plan without one is not sold. */
  prices: Partial<Record<'premium' | 'enterprise', string>>;
  /** STRIPE_API_URL: another API than Stripe's own (stripe-mock, a test double), as the SDK takes it. */
  api: { host: string; port: number; protocol: 'http' | 'https' } | undefined;
}

export interface S3Config {
  bucket: string;
  /** Another store than AWS (MinIO, Ceph RGW, R2): its base URL. */
  endpoint: string | undefined;
  region: string;
  /** Both or neither: without them the SDK's own chain (AWS_* variables, an instance role) applies. */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`: what MinIO and most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Bound on connecting and on any silence of the store, in ms: past it hosting answers 503. */
  timeoutMs: number;
}

export interface HealthConfig {
  /** How often every endpoint's example request is probed (PROBE_INTERVAL); 0: never on a schedule. */
  probeIntervalMs: number;
  /** Only these endpoints are probed on the schedule (PROBE_ENDPOINTS, comma-separated ids); all when empty. */
  probeEndpoints: string[];
  /** Where operator alerts are POSTed (ALERT_WEBHOOK_URL): a Slack or Discord incoming webhook, or any JSON receiver. */
  alertWebhookUrl: string | undefined;
  /** Who alerts are mailed to when SMTP_URL is set (ALERT_EMAIL, default ADMIN_EMAIL). */
  alertEmail: string | undefined;
  /** Probes failed in a row that raise an alert (ALERT_PROBE_FAILURES). */
  alertProbeFailures: number;
  /** Waits between tries of the alert webhook (ALERT_RETRY_DELAYS). */
  alertRetryDelaysMs: number[];
}
