// GitHub's public repositories of a user, most recently updated first. GitHub pages with a `Link` header;
// we return the first page (up to settings.perPage) and say whether there is a next one.
// Rate limits: 60 calls/h per IP without a token. GitHub answers 403 (or 429) with X-RateLimit-Remaining: 0
// when the allowance is spent; pooled tokens are rotated by the upstream client, and once none is left
// the caller gets 503 with Retry-After taken from X-RateLimit-Reset (or Retry-After, for the secondary
// limit), never GitHub's body.
import { upstreamBusy, upstreamFailed, isRecord, num, records, type UpstreamResponse } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The `page` of the rel="next" link of a GitHub Link header, or null on the last page. */
export function nextPage(link: unknown): number | null {
  if (typeof link !== 'string') return null;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!m) continue;
    try {
      const page = new URL(m[1]).searchParams.get('page');
      return page && /^\d+$/.test(page) ? Number(page) : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** Seconds until GitHub's limit resets: Retry-After first, else X-RateLimit-Reset (epoch seconds). */
function waitSeconds(res: UpstreamResponse): number {
  const retry = Number(res.headers['retry-after']);
  if (Number.isFinite(retry) && retry > 0) return Math.ceil(retry);
  const reset = Number(res.headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return Math.min(3600, Math.max(1, Math.ceil(reset - Date.now() / 1000)));
  return 60;
}

const gitUser: Adapter<'tools/git-user'> = async (params, ctx) => {
  const username = params.username;
  const api = ctx.upstream('github');
  const res = await api.request({
    path: `/users/${encodeURIComponent(username)}/repos`,
    searchParams: { per_page: Number(api.settings.perPage ?? 100), sort: 'updated' },
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    allowStatus: [403, 429],
    notFoundMessage: `No user named ${username} on GitHub`,
  });
  if (res.status === 403 || res.status === 429) {
    const limited = res.status === 429 || res.headers['x-ratelimit-remaining'] === '0' || res.headers['retry-after'] !== undefined;
    if (limited) throw upstreamBusy('GitHub rate limit reached; try again later', waitSeconds(res));
    throw upstreamFailed('GitHub refused the request');
  }

  const items = records(res.body).map((r) => ({
    name: String(r.name ?? ''),
    full_name: str(r.full_name),
    html_url: String(r.html_url ?? ''),
    description: str(r.description),
    language: str(r.language),
    stargazers_count: num(r.stargazers_count) ?? 0,
    forks_count: num(r.forks_count) ?? 0,
    fork: r.fork === true,
    archived: r.archived === true,
    topics: Array.isArray(r.topics) ? r.topics.filter((t): t is string => typeof t === 'string') : [],
    updated_at: str(r.updated_at),
  }));
  const owner = records(res.body)
    .map((r) => r.owner)
    .find(isRecord);
  return {
    // GitHub's own spelling of the name when it tells us (user names are case-insensitive).
    username: typeof owner?.login === 'string' ? owner.login : username,
    count: items.length,
    items,
    next_page: nextPage(res.headers.link),
  };
};

export default gitUser;
