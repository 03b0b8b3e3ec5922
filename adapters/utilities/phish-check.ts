// Phishing check of a URL or domain: an explainable heuristic score (never fetching the target), plus
// Safe Browsing and URLhaus when their keys are configured, whose listing overrides the score.
import { reply, required } from '../../engine/adapter.js';
import type { Adapter, PhishCheckParams } from './_catalog.js';
import { analyse, WEIGHTS, type RuleId, type Target } from './_phish-signals.js';
import { safeBrowsing, urlhaus, type Verdict } from './_reputation.js';

const NOTE = 'A low score means no warning sign was found, not that the site is safe: new phishing sites often show none.';

function targetOf(params: PhishCheckParams): Target {
  const name = params.url !== undefined ? 'url' : 'domain';
  const raw = required(params, name).trim();
  // A domain may come with a scheme and path; only then do the scheme and path rules apply. Both parse:
  // the catalog's formats (url, domain) checked them.
  const isUrl = name === 'url' || /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  return { raw, url: new URL(isUrl ? raw : `http://${raw}`), isUrl };
}

/** Operators tune the weights and keep a blocklist in the catalog's `options:` of this endpoint. */
function weightsOf(options: Record<string, unknown>): Record<RuleId, number> {
  const given = (options.weights ?? {}) as Record<string, unknown>;
  const out = { ...WEIGHTS } as Record<RuleId, number>;
  for (const id of Object.keys(WEIGHTS) as RuleId[]) if (typeof given[id] === 'number') out[id] = given[id];
  return out;
}

const verdictOf = (score: number) => (score >= 60 ? 'likely_phishing' : score >= 30 ? 'suspicious' : 'low');

function listingReason(list: string, v: Verdict): string[] {
  return v.status === 'listed' ? [`${list} lists it as malicious (${v.threats.join(', ')})`] : [];
}

const phishCheck: Adapter<'utilities/phish-check'> = async (params, ctx) => {
  const target = targetOf(params);
  const blocklist = Array.isArray(ctx.options.blocklist) ? ctx.options.blocklist.map((d) => String(d).toLowerCase()) : [];
  const weights = weightsOf(ctx.options);
  const a = analyse(target, blocklist);
  const signals = a.hits.map((h) => ({ id: h.id, weight: weights[h.id], reason: h.reason }));

  const asked = { url: target.isUrl ? target.url.toString() : undefined, host: a.host };
  const [sb, uh] = await Promise.all([safeBrowsing(ctx, asked), urlhaus(ctx, asked)]);
  const listed = sb.status === 'listed' || uh.status === 'listed';
  const score = listed
    ? 100
    : Math.min(
        100,
        signals.reduce((sum, s) => sum + s.weight, 0),
      );
  const answered = (
    [
      ['safebrowsing', sb],
      ['urlhaus', uh],
    ] as const
  )
    .filter(([, v]) => v.status === 'listed' || v.status === 'clean')
    .map(([id]) => id);

  const data = {
    target: target.raw,
    host: a.host,
    host_unicode: a.hostUnicode,
    registrable_domain: a.registrableDomain,
    verdict: listed ? 'malicious' : verdictOf(score),
    score,
    reasons: [...listingReason('Google Safe Browsing', sb), ...listingReason('URLhaus', uh), ...signals.map((s) => s.reason)],
    signals,
    reputation: { safebrowsing: sb, urlhaus: uh },
    sources: ['heuristics', ...answered],
    note: NOTE,
  };
  // A reputation list that failed this time may answer next time: do not remember the partial answer.
  const partial = sb.status === 'error' || uh.status === 'error';
  return reply({ data, source: answered.length ? answered.join('+') : 'embedded', cacheable: !partial });
};

export default phishCheck;
