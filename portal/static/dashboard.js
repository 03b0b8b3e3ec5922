// The key and usage pages' small enhancements (the pages work without them): copy buttons, the key just
// shown remembered for /docs' Try it, and times (the usage charts' hours too) in the reader's time zone.
// (The usage page's key picker has a Show button: changing page on each arrow key would not be usable.)
(() => {
  // A personal key shown once here is remembered in this tab for /docs' Try it, under its record id, until
  // the tab is closed (sessionStorage; signing out clears it too: the sign-out answer carries Clear-Site-Data).
  const shown = document.querySelector('[data-api-key][data-key-id]');
  if (shown) {
    try {
      const held = JSON.parse(sessionStorage.getItem('uua:keys') ?? '{}');
      sessionStorage.setItem('uua:keys', JSON.stringify({ ...held, [shown.dataset.keyId]: shown.textContent.trim() }));
    } catch {
      /* storage disabled */
    }
  }

  const status = document.createElement('span');
  status.className = 'sr-only';
  status.setAttribute('aria-live', 'polite');
  document.body.append(status);

  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    if (!source) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      const text = source.textContent.trim();
      let ok;
      try {
        await navigator.clipboard.writeText(text);
        ok = true;
      } catch {
        // No clipboard API (plain http on another host): select the text so Ctrl+C copies it.
        const range = document.createRange();
        range.selectNodeContents(source);
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        ok = document.execCommand && document.execCommand('copy');
      }
      const label = button.textContent;
      button.textContent = ok ? 'Copied' : 'Selected: press Ctrl+C';
      status.textContent = ok ? 'Key copied to the clipboard' : 'Key selected';
      setTimeout(() => {
        button.textContent = label;
      }, 2000);
    });
  }

  const formats = {
    full: { dateStyle: 'medium', timeStyle: 'short' },
    short: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
    seconds: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' },
    // Days are counted in UTC by the service: shown as UTC dates, not moved to another day.
    day: { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' },
  };
  for (const t of document.querySelectorAll('time[data-local]')) {
    const d = new Date(t.getAttribute('datetime'));
    if (Number.isNaN(d.getTime())) continue;
    t.title = t.textContent;
    t.textContent = d.toLocaleString(undefined, formats[t.dataset.local] ?? formats.full);
  }
  // The usage charts' hour labels (SVG text, drawn in UTC): "9 PM", or "9:30 PM" where the zone is off the hour.
  for (const t of document.querySelectorAll('svg text[data-hour]')) {
    const d = new Date(t.getAttribute('data-hour'));
    if (Number.isNaN(d.getTime())) continue;
    t.textContent = d.toLocaleTimeString(undefined, d.getMinutes() ? { hour: 'numeric', minute: '2-digit' } : { hour: 'numeric' });
  }
})();
