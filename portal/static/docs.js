// The reference's enhancements (its pages read fine without them): links of the earlier renderer
// (/docs#tag/<category>/…) brought to their category's page, the samples' language (remembered), the key
// Try it sends (a personal key's secret is kept in this tab's sessionStorage under its record id once shown
// or pasted, so closing the tab forgets it; signing out clears it with Clear-Site-Data), and Try it itself.
(() => {
  const old = /^#tag\/([a-z0-9-]+)/.exec(location.hash);
  if (location.pathname === '/docs' && old) return location.replace(`/docs/${old[1]}${location.hash}`);

  // Either storage may be disabled (then reading it throws): nothing is remembered.
  const kept = (area) => ({
    get(name) {
      try {
        return JSON.parse(window[area].getItem(name) ?? 'null');
      } catch {
        return null;
      }
    },
    set(name, value) {
      try {
        window[area].setItem(name, JSON.stringify(value));
      } catch {
        /* storage disabled */
      }
    },
  });
  // The language is a preference, kept; keys live as long as the tab.
  const store = kept('localStorage');
  const keys = kept('sessionStorage');
  try {
    localStorage.removeItem('uua:keys'); // keys an earlier version kept beyond the tab
  } catch {
    /* storage disabled */
  }

  // --- the samples' language ---------------------------------------------------------------------------
  const pick = document.querySelector('.lang-pick');
  const samples = [...document.querySelectorAll('figure.sample')];
  if (pick && samples.length) {
    const group = pick.querySelector('[role="group"]');
    const langs = [...new Map(samples.map((f) => [f.dataset.lang, f.querySelector('figcaption').textContent])).entries()];
    const show = (lang) => {
      for (const f of samples) f.hidden = f.dataset.lang !== lang;
      for (const b of group.children) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
      store.set('uua:lang', lang);
    };
    for (const [lang, label] of langs) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary small';
      b.dataset.lang = lang;
      b.textContent = label;
      b.addEventListener('click', () => show(lang));
      group.append(b);
    }
    pick.hidden = false;
    show(langs.some(([l]) => l === store.get('uua:lang')) ? store.get('uua:lang') : langs[0][0]);
  }

  // --- the key Try it sends ----------------------------------------------------------------------------
  const select = document.getElementById('try-key');
  const paste = document.getElementById('try-key-paste');
  const held = () => keys.get('uua:keys') ?? {};
  const keyOf = (option) => option.value || (option.dataset.keyId && held()[option.dataset.keyId]) || '';
  let shownKey = select?.dataset.sampleKey ?? '';
  const useKey = () => {
    const option = select.selectedOptions[0];
    const key = keyOf(option);
    paste.closest('label').hidden = Boolean(key) || !option.dataset.keyId;
    if (key && shownKey && key !== shownKey)
      for (const code of document.querySelectorAll('figure.sample code')) code.textContent = code.textContent.split(shownKey).join(key);
    if (key) shownKey = key;
  };
  if (select) {
    // The default: the first key this browser can send (a personal key held here, else the free or anonymous key).
    const first = [...select.options].find((o) => keyOf(o));
    if (first) first.selected = true;
    select.addEventListener('change', useKey);
    select.form.addEventListener('submit', (event) => event.preventDefault());
    paste.addEventListener('change', () => {
      const id = select.selectedOptions[0].dataset.keyId;
      const key = paste.value.trim();
      if (!id || !key) return;
      keys.set('uua:keys', { ...held(), [id]: key });
      paste.value = '';
      useKey();
    });
    useKey();
  }

  // --- Try it -------------------------------------------------------------------------------------------
  const render = async (res) => {
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) return JSON.stringify(await res.json(), null, 2);
    const bytes = (await res.arrayBuffer()).byteLength;
    return `(${bytes} bytes of ${type || 'unknown type'})`;
  };
  for (const form of document.querySelectorAll('form.try-form')) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const out = form.querySelector('.try-answer');
      const status = out.querySelector('.status');
      const code = out.querySelector('code');
      const key = select ? keyOf(select.selectedOptions[0]) : '';
      if (!key) {
        out.hidden = false;
        status.textContent = 'Choose a key above, or paste the one you picked.';
        code.textContent = '';
        return;
      }
      const fields = [...new FormData(form)].filter(([, v]) => v !== '' && !(v instanceof File && !v.name));
      const { method, path } = form.dataset;
      const init = { method, headers: { 'X-API-Key': key, Accept: 'application/json' } };
      let url = path;
      if (method === 'GET') url += fields.length ? `?${new URLSearchParams(fields)}` : '';
      else if ('multipart' in form.dataset) {
        const body = new FormData();
        for (const [k, v] of fields) body.append(k, v);
        init.body = body;
      } else {
        init.body = JSON.stringify(Object.fromEntries(fields));
        init.headers['Content-Type'] = 'application/json';
      }
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      status.textContent = 'Sending…';
      out.hidden = false;
      try {
        const res = await fetch(url, init);
        status.textContent = `${res.status} ${res.statusText}`.trim();
        code.textContent = await render(res);
      } catch (err) {
        status.textContent = `The request failed: ${err.message}`;
        code.textContent = '';
      } finally {
        button.disabled = false;
      }
    });
  }
})();
