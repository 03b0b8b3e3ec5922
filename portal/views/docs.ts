// The API reference page at /docs: an introduction (the key to try it with, the MCP server), then the
// element Scalar renders the reference into, from /openapi.json, in the browser.
import { html } from '../../engine/html.js';

interface DocsPage {
  anonymousKey: string;
  /** The key try-it fills in: the viewer's own when the portal knows one, else the anonymous key. */
  key: string;
  signedIn: boolean;
  publicUrl: string;
  /** This response's style nonce (portal/security.ts docsHeaders), for style-nonce.js. */
  styleNonce: string;
}

export function docsBody(o: DocsPage) {
  const anonymous = o.anonymousKey;
  // The key and the spec's address reach the client script as data- attributes (no inline script).
  // The nonce attribute is hidden from the DOM by the browser; style-nonce.js reads it as a property.
  return html`<section class="docs-intro">
  <h1>API reference</h1>
  <p>Every endpoint of the service, grouped by category, with code samples and a <strong>Test Request</strong>
  button that calls this server for real. Try it with the anonymous key: <code class="key">${anonymous}</code>${
    o.key !== anonymous
      ? html` (your own key is filled in)`
      : o.signedIn
        ? html` (filled in for you; your keys are on the <a href="/dashboard">API key page</a>)`
        : html` (filled in for you; <a href="/signup">sign up</a> for a key of your own)`
  }.</p>
  <p>AI agents: every endpoint is also a tool of the MCP server at <code>${o.publicUrl}/mcp</code>
  (Streamable HTTP), with the same key in the <code>X-API-Key</code> header; see
  <a href="#mcp-config">the client configuration</a>.</p>
  <details id="mcp-config"><summary>MCP client configuration</summary>
  <pre><code>${mcpConfig(o.publicUrl)}</code></pre></details>
  <p class="small muted" id="key-note" hidden></p>
  <noscript><p class="notice info">The interactive reference needs JavaScript. The raw OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
</section>
<div id="reference" nonce="${o.styleNonce}" data-document="/openapi.json" data-default-key="${o.key}" data-anonymous-key="${anonymous}"></div>`;
}

/** What an MCP client needs (README, "AI agents (MCP)"): the URL and the key header. */
function mcpConfig(publicUrl: string): string {
  const server = { type: 'http', url: `${publicUrl}/mcp`, headers: { 'X-API-Key': 'YOUR_KEY' } };
  return JSON.stringify({ mcpServers: { 'unified-utility-api': server } }, null, 2);
}
