// Starts the interactive reference (Scalar) on /docs. The key filled in: one this browser tab holds
// (sessionStorage 'uua:apiKey', put there by the key page right after a key is made), else the server's
// default from data-default-key (the signed-in viewer's key or the anonymous one).
(() => {
  const mount = document.getElementById('reference');
  if (!mount || !window.Scalar) return;
  let held = null;
  try {
    held = sessionStorage.getItem('uua:apiKey');
  } catch {
    /* storage disabled: use the default */
  }
  const key = held || mount.dataset.defaultKey;
  if (held) {
    const note = document.getElementById('key-note');
    note.textContent = `Using the key you created in this tab (ending in ${held.slice(-4)}).`;
    note.hidden = false;
  }
  window.Scalar.createApiReference(mount, {
    url: mount.dataset.document,
    // Try-it calls the origin serving this page (the spec's server is PUBLIC_URL, which a browser may
    // reach under another name, and connect-src is 'self').
    servers: [{ url: location.origin, description: 'This server' }],
    // The key travels as a header, never in the URL (URLs end up in logs and histories).
    authentication: { preferredSecurityScheme: 'header', securitySchemes: { header: { value: key } } },
    persistAuth: false,
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    // Nothing leaves the service: no web fonts, telemetry, AI agent, MCP, hosted client or proxy.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: 'never',
    // The portal's pages are light; a dark reference inside them would look like another site.
    forceDarkModeState: 'light',
    hideDarkModeToggle: true,
  });
})();
