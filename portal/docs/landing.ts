// The landing page at / (browsers only): what the service is, its categories with their endpoint counts,
// a first call to copy, and the ways in (reference, sign-up, sign-in).
import type { Config } from '../../engine/config.js';
import type { EndpointSpec, PlanSpec } from '../../engine/catalog/load.js';
import { html } from '../../engine/html.js';
import { freeTierText } from '../shared/free-tier.js';
import { categoryTitle } from './categories.js';

// The first call shown: embedded (no upstream, works offline) and harmless.
const EXAMPLE = { id: 'tools/ccgen', query: 'bin=457173' };

export function landingBody(o: { config: Config; endpoints: EndpointSpec[]; plans?: Record<string, PlanSpec>; signedIn?: boolean }) {
  const byCategory = new Map<string, EndpointSpec[]>();
  for (const e of o.endpoints) byCategory.set(e.category, [...(byCategory.get(e.category) ?? []), e]);
  const example = o.endpoints.find((e) => e.id === EXAMPLE.id);
  const curl = example
    ? `curl -H "X-API-Key: ${o.config.anonymousKey}" \\\n  "${o.config.publicUrl}/api/v1/${example.id}?${EXAMPLE.query}"`
    : `curl "${o.config.publicUrl}/health"`;
  const anonymous = o.plans?.anonymous;
  const free = o.plans?.free;
  return html`<section class="hero">
  <h1>${o.config.serviceName}</h1>
  <p class="lead">${o.endpoints.length} utility endpoints in ${byCategory.size} categories behind one API key, one request
  pattern (<code>/api/v1/{category}/{endpoint}</code>) and one JSON envelope.</p>
  <div class="actions">
    <a class="button" href="/docs">Explore the API reference</a>
    ${
      o.signedIn
        ? html`<a class="button secondary" href="/dashboard">Your API keys</a>`
        : html`<a class="button secondary" href="/signup">Create an account</a>
    <a class="button secondary" href="/login">Sign in</a>`
    }
  </div>
</section>

<h2>Make your first call</h2>
<p>No account needed: the anonymous key <code class="key">${o.config.anonymousKey}</code> works right away${
    anonymous
      ? html` (${anonymous.limit.toLocaleString('en-US')} requests per ${anonymous.window.replace(/^(\d+)/, '$1 ')}, shared by everyone)`
      : ''
  }.</p>
${free ? html`<p>${freeTierText({ plan: free, personal: o.config.freePersonalKeys })} <a href="/signup">Sign up</a>.</p>` : ''}
<pre tabindex="0"><code>${curl}</code></pre>
${
  example
    ? html`<p class="small muted">${example.summary}. Every answer is <code>{"success": true, "data": …, "metadata": …}</code>;
the <code>X-RateLimit-*</code> headers say what is left of your allowance.</p>`
    : ''
}

<h2>What is inside</h2>
<ul class="grid categories">
${[...byCategory].map(
  ([category, list]) => html`<li class="card">
  <a href="/docs/${category}"><strong>${categoryTitle(category)}</strong></a>
  <span class="badge">${list.length} endpoint${list.length === 1 ? '' : 's'}</span>
  <p class="small muted">${list
    .slice(0, 4)
    .map((e) => e.name)
    .join(', ')}${list.length > 4 ? ', …' : ''}</p>
</li>`,
)}
</ul>`;
}
