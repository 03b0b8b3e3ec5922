// JSON schema of a catalog/<category>.yaml file. The loader (engine/catalog/load.ts) validates every file
// against it at boot, so a broken catalog stops the service with the file, endpoint and field named.

const param = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'description'],
  properties: {
    type: { enum: ['string', 'integer', 'number', 'boolean', 'file'] },
    description: { type: 'string', minLength: 3 },
    required: { type: 'boolean' },
    /** Required when every listed param has the given value, e.g. { action: search }. */
    requiredWhen: { type: 'object', minProperties: 1, additionalProperties: { type: ['string', 'number', 'boolean'] } },
    enum: { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] } },
    /** Values named in the spec as examples only: documentation, never a closed list. */
    examples: { type: 'array', items: { type: ['string', 'number', 'boolean'] } },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    minLength: { type: 'integer', minimum: 0 },
    maxLength: { type: 'integer', minimum: 1 },
    pattern: { type: 'string' },
    /** What `pattern` means, in words, for the 400 message. */
    patternHint: { type: 'string' },
    format: { enum: ['url', 'ip', 'domain'] },
    /** For url params: allowed hosts; `example.com` also allows its subdomains. */
    hosts: { type: 'array', minItems: 1, items: { type: 'string' } },
    /** For url params: hosts of short or share links (vm.tiktok.com), followed to the link they stand for first. */
    shortLinks: { type: 'array', minItems: 1, items: { type: 'string' } },
    /** For file params: the value may also come as a text field (base64 data or a URL). */
    orText: { type: 'boolean' },
    /** A credential (a provider's key, a password): never written to the request log, never replayed. */
    secret: { type: 'boolean' },
    default: { type: ['string', 'number', 'boolean'] },
  },
};

const names = { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } };
const scalar = { type: ['string', 'number', 'boolean'] };
const condition = {
  type: 'object',
  minProperties: 1,
  additionalProperties: { anyOf: [scalar, { type: 'array', minItems: 1, items: scalar }] },
};
const message = { type: 'string', minLength: 3 };
const patterns = { type: 'object', minProperties: 1, additionalProperties: { type: 'string', minLength: 1 } };

/** A cross-parameter rule (engine/catalog/request-schema.ts turns each into JSON Schema). */
const rule = {
  oneOf: [
    /** At least one of these params. */
    { type: 'object', additionalProperties: false, required: ['anyOf'], properties: { anyOf: { ...names, minItems: 1 }, message } },
    /** At most one of these params. */
    { type: 'object', additionalProperties: false, required: ['exclusive'], properties: { exclusive: { ...names, minItems: 2 }, message } },
    /** When (or unless) params have these values, or when these params are given: others required, refused, or held to a pattern. */
    {
      type: 'object',
      additionalProperties: false,
      oneOf: [{ required: ['when'] }, { required: ['unless'] }, { required: ['given'] }],
      anyOf: [{ required: ['require'] }, { required: ['forbid'] }, { required: ['match'] }],
      properties: { when: condition, unless: condition, given: names, require: names, forbid: names, match: patterns, message },
    },
  ],
};

// A response schema may hold JSON Schema keywords only, so a YAML slip (an unquoted comma in a flow map
// turns `description: a, b` into a key `b`) is refused instead of reaching the OpenAPI document.
const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'];
const sub = { $ref: '#/definitions/jsonSchema' };
const subs = { type: 'array', minItems: 1, items: sub };
const count = { type: 'integer', minimum: 0 };
const jsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { anyOf: [{ enum: TYPES }, { type: 'array', minItems: 1, items: { enum: TYPES } }] },
    description: { type: 'string' },
    title: { type: 'string' },
    properties: { type: 'object', additionalProperties: sub },
    patternProperties: { type: 'object', additionalProperties: sub },
    additionalProperties: { anyOf: [{ type: 'boolean' }, sub] },
    required: { type: 'array', items: { type: 'string' } },
    items: sub,
    prefixItems: subs,
    anyOf: subs,
    oneOf: subs,
    allOf: subs,
    not: sub,
    enum: { type: 'array', minItems: 1 },
    const: {},
    default: {},
    examples: { type: 'array' },
    format: { type: 'string' },
    pattern: { type: 'string' },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    exclusiveMinimum: { type: 'number' },
    exclusiveMaximum: { type: 'number' },
    minLength: count,
    maxLength: count,
    minItems: count,
    maxItems: count,
    uniqueItems: { type: 'boolean' },
    minProperties: count,
    maxProperties: count,
  },
};

const endpoint = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'method', 'summary', 'adapter', 'upstream', 'params', 'response'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    method: { enum: ['GET', 'POST'] },
    summary: { type: 'string', minLength: 3 },
    /** What a person calls it, shown in the reference and searched there (the name stays the spec's id). */
    title: { type: 'string', minLength: 3, maxLength: 80 },
    /** true: outside the customer's spec on purpose (scripts/check-catalog.ts names it instead of failing). */
    extension: { type: 'boolean' },
    /** Registry key: the adapter file's path below adapters/, without extension (`tools/ccgen`). */
    adapter: { type: 'string', pattern: '^[a-z0-9-]+/[a-z0-9-]+$' },
    /** An id of catalog/upstreams.yaml, or `embedded`. */
    upstream: { type: 'string' },
    /** Providers asked in order when `upstream` is not configured, fails or is unavailable: an upstream and its adapter. */
    fallback: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['upstream', 'adapter'],
        properties: { upstream: { type: 'string' }, adapter: { type: 'string', pattern: '^[a-z0-9-]+/[a-z0-9-]+$' } },
      },
    },
    /** Ids of catalog/upstreams.yaml the adapter calls besides `upstream:` (an embedded one can then answer 502/504 too). */
    uses: { type: 'array', minItems: 1, items: { type: 'string' } },
    /** Media types (`image/png`, or a family `image/*`) of the raw answer a matching Accept header gets. */
    media: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z]+/([a-z0-9.+-]+|\\*)$' } },
    /** The answer's list of remote media (objects with a `url`): each gets a link on this service (features/media/). */
    mediaItems: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' },
    /** Response cache TTL such as 30s, 10m, 6h, 30d. */
    cache: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' },
    /** Time budget of one call, such as 30s (default 30s). */
    timeout: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' },
    /** Passed to the adapter as ctx.options (e.g. the model a gen-models endpoint is bound to). */
    options: { type: 'object' },
    /** Rules between params: "one of these", "at most one of these", "required (or refused) when". */
    rules: { type: 'array', minItems: 1, items: rule },
    params: { type: 'object', additionalProperties: param },
    /** JSON schema of `data`. */
    response: sub,
  },
};

export const categorySchema = {
  definitions: { jsonSchema },
  type: 'object',
  additionalProperties: false,
  required: ['category', 'endpoints'],
  properties: {
    category: { type: 'string', pattern: '^[a-z0-9-]+$' },
    endpoints: { type: 'array', minItems: 1, items: endpoint },
  },
} as const;

export const plansSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['plans'],
  properties: {
    plans: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['limit', 'window', 'keyedBy', 'description'],
        properties: {
          limit: { type: 'integer', minimum: 1 },
          window: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' },
          /** key: one counter per key; key+ip: per key and client IP; shared: one counter for all. */
          keyedBy: { enum: ['key', 'key+ip', 'shared'] },
          description: { type: 'string' },
          /** Days the request log keeps its calls (PLAN_<ID>_LOG_DAYS overrides it); 1 when not given. */
          logDays: { type: 'integer', minimum: 1, maximum: 400 },
        },
      },
    },
  },
} as const;

const duration = { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' } as const;

const policy = {
  type: 'object',
  additionalProperties: false,
  properties: {
    concurrency: { type: 'integer', minimum: 1 },
    queue: { type: 'integer', minimum: 0 },
    queueWait: duration,
    concurrencyFor: { type: 'array', minItems: 1, items: { type: 'string' } },
    rate: {
      type: 'object',
      additionalProperties: false,
      required: ['limit', 'per'],
      properties: { limit: { type: 'integer', minimum: 1 }, per: duration },
    },
    minInterval: duration,
    breaker: {
      oneOf: [
        { const: false },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            failures: { type: 'integer', minimum: 1 },
            ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
            window: duration,
            minCalls: { type: 'integer', minimum: 1 },
            cooldown: duration,
          },
        },
      ],
    },
    pauseOn: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'for'],
        properties: {
          status: { type: 'integer', minimum: 400, maximum: 599 },
          for: duration,
          count: { type: 'integer', minimum: 1 },
          within: duration,
          message: { type: 'string' },
        },
      },
    },
  },
} as const;

export const upstreamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['upstreams'],
  properties: {
    upstreams: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'docs'],
        properties: {
          name: { type: 'string' },
          /** Public base URL; absent means the operator must set UPSTREAM_<ID>_URL (503 until then). */
          url: { type: 'string' },
          docs: { type: 'string' },
          timeout: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$' },
          retries: { type: 'integer', minimum: 0, maximum: 5 },
          /** How calls to it are guarded (engine/upstream/policy.ts): breaker, concurrency, rate, pauses. */
          policy,
          /** How a pooled server key is sent. */
          auth: {
            type: 'object',
            additionalProperties: false,
            required: ['in'],
            properties: {
              in: { enum: ['bearer', 'header', 'query', 'json', 'form'] },
              name: { type: 'string' },
              /** true: the upstream refuses calls without a key (503 until UPSTREAM_<ID>_KEYS is set). */
              required: { type: 'boolean' },
            },
          },
          selfHost: { type: 'string' },
          /** Anything else the adapter needs that drifts (paths, models, selectors). */
          settings: { type: 'object' },
        },
      },
    },
  },
} as const;
