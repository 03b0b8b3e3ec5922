// The reference's enhancements (its pages read fine without them): links of the earlier renderer
// (/docs#tag/<category>/…) brought to their category's page, the search box (/docs/search.json, kept by the
// browser), copy buttons, folded operations opened when linked to, the samples' language (remembered), the
// key Try it sends (a personal key's secret is kept in this tab's sessionStorage under its record id once
// shown or pasted, so closing the tab forgets it; signing out clears it with Clear-Site-Data), and Try it
// itself: the answer's status, time, headers and body, and the request as code (snippets.js writes it).
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

  // --- folded operations: opened when a link (a search result, the list of the category) leads to one ------
  const openTarget = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    const folded = target.querySelector('details.op-more');
    if (folded) folded.open = true;
    target.scrollIntoView();
  };
  addEventListener('hashchange', openTarget);
  openTarget();

  // --- copy buttons: every sample, key and URL ------------------------------------------------------------
  const copyText = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // No clipboard API (a page served over plain http other than localhost): the old way, through a selection.
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'offscreen';
      document.body.append(area);
      area.select();
      const done = document.execCommand('copy');
      area.remove();
      return done;
    }
  };
  /** A Copy button after `el`, copying what `text()` gives; `what` names it for screen readers. */
  const copyButton = (el, what, text) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'copy secondary small';
    // "Copy", and for screen readers what: its name starts with what it shows.
    const word = document.createElement('span');
    word.textContent = 'Copy';
    const hidden = document.createElement('span');
    hidden.className = 'sr-only';
    hidden.textContent = ` ${what}`;
    b.append(word, hidden);
    b.addEventListener('click', async () => {
      const ok = await copyText(text());
      word.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (word.textContent = 'Copy'), 2000);
    });
    el.after(b);
    return b;
  };
  const closed = (el) => el.closest('details.op-more:not([open])');
  const copyAll = (root) => {
    for (const pre of root.querySelectorAll('pre')) {
      if (pre.nextElementSibling?.classList.contains('copy') || closed(pre)) continue;
      const caption = pre.closest('figure')?.querySelector('figcaption')?.textContent;
      const what = caption ? `${caption} sample` : pre.classList.contains('try-body') ? 'response body' : 'code';
      copyButton(pre, what, () => pre.textContent);
    }
    for (const code of root.querySelectorAll('code.key, code[data-copy]')) {
      if (code.nextElementSibling?.classList.contains('copy') || closed(code)) continue;
      copyButton(code, code.dataset.copy ? 'URL' : 'key', () => code.dataset.copy ?? code.textContent);
    }
  };
  // What a folded operation holds gets its buttons when opened: a long category's page has less to do as it loads.
  // In a task of its own: the page's first tasks stay short on a slow phone.
  setTimeout(() => copyAll(document));
  for (const folded of document.querySelectorAll('details.op-more'))
    folded.addEventListener('toggle', () => copyAll(folded.closest('article')));

  // --- search ------------------------------------------------------------------------------------------------
  const box = document.querySelector('.docs-search');
  if (box) {
    const input = box.querySelector('input');
    const list = box.querySelector('.search-results');
    const status = box.querySelector('[role="status"]');
    // Accents and case do not count ("pokemon" finds Pokémon).
    const fold = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    let index;
    const load = () =>
      (index ??= fetch('/docs/search.json')
        .then((r) => r.json())
        .then((entries) =>
          entries.map((e) => ({
            ...e,
            // What each field weighs: a word of the title or the id counts most.
            fields: [
              [fold(e.title), 10],
              [fold(e.id), 10],
              [fold(e.category), 4],
              [fold(e.providers.join(' ')), 6],
              [fold(e.summary), 3],
              [fold(e.params.join(' ')), 2],
            ],
          })),
        )
        .catch(() => ((index = undefined), [])));
    /** Every word of the query must be somewhere; a word's start counts double. */
    const score = (entry, words) => {
      let total = 0;
      for (const w of words) {
        let best = 0;
        for (const [text, weight] of entry.fields) {
          const at = text.indexOf(w);
          if (at < 0) continue;
          const start = at === 0 || /[^a-z0-9]/.test(text[at - 1]);
          best = Math.max(best, start ? weight * 2 : weight);
        }
        if (!best) return 0;
        total += best;
      }
      return total;
    };
    const links = () => [...list.querySelectorAll('a')];
    const show = async () => {
      const words = fold(input.value)
        .split(/[\s/]+/)
        .filter(Boolean);
      list.replaceChildren();
      if (!words.length) {
        list.hidden = true;
        status.textContent = '';
        return;
      }
      const entries = await load();
      const found = entries
        .map((e) => [e, score(e, words)])
        .filter(([, s]) => s > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8);
      for (const [e] of found) {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = e.href;
        const title = document.createElement('strong');
        title.textContent = e.title;
        const where = document.createElement('span');
        where.className = 'small muted';
        where.textContent = `${e.method} ${e.id} · ${e.category}`;
        const about = document.createElement('span');
        about.className = 'small';
        about.textContent = e.summary;
        a.append(title, ' ', where, document.createElement('br'), about);
        // The link's hash alone changes on its own page: the folded operation is opened there too.
        a.addEventListener('click', () => {
          list.hidden = true;
          if (a.pathname === location.pathname && a.hash === location.hash) openTarget();
        });
        li.append(a);
        list.append(li);
      }
      list.hidden = !found.length;
      status.textContent = found.length ? `${found.length} endpoint${found.length === 1 ? '' : 's'} found` : 'No endpoint matches';
    };
    input.addEventListener('input', show);
    input.addEventListener('focus', load, { once: true });
    // Arrow keys move between the box and the results; Escape closes them.
    box.addEventListener('keydown', (event) => {
      const all = links();
      const at = all.indexOf(document.activeElement);
      if (event.key === 'ArrowDown' && all.length) all[Math.min(at + 1, all.length - 1)].focus();
      else if (event.key === 'ArrowUp' && at >= 0) (at === 0 ? input : all[at - 1]).focus();
      else if (event.key === 'Enter' && document.activeElement === input && all.length) all[0].click();
      else if (event.key === 'Escape') {
        list.hidden = true;
        input.focus();
      } else return;
      event.preventDefault();
    });
    // "/" (when not typing) and Ctrl-K (Cmd-K on a Mac) from anywhere on the page.
    document.addEventListener('keydown', (event) => {
      const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? '') || document.activeElement?.isContentEditable;
      const slash = event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey;
      const k = event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey) && !event.altKey;
      if (!slash && !k) return;
      event.preventDefault();
      input.focus();
      input.select();
    });
    box.hidden = false;
    // Fetched once the page is up, so the search still works when the network goes away.
    addEventListener('load', () => setTimeout(load, 500), { once: true });
  }

  // --- samples beyond curl's, written when their language is chosen (the page carries curl's) --------------
  /** One sample as the server writes it: a figure with its language's name and the code. */
  const sampleFigure = (lang, label, text) => {
    const figure = document.createElement('figure');
    figure.className = 'sample';
    figure.dataset.lang = lang;
    const caption = document.createElement('figcaption');
    caption.textContent = label;
    const pre = document.createElement('pre');
    pre.tabIndex = 0;
    const code = document.createElement('code');
    code.textContent = text;
    pre.append(code);
    figure.append(caption, pre);
    return figure;
  };
  /** Each operation's sample in `lang`, written where it is missing, from the request the page describes (data-request). */
  const writeSamples = (lang) => {
    const l = globalThis.uuaSnippets?.languages.find((x) => x.id === lang);
    if (!l) return;
    for (const place of document.querySelectorAll('.samples[data-request]')) {
      if (place.querySelector(`figure[data-lang="${lang}"]`)) continue;
      const request = JSON.parse(place.dataset.request);
      place.append(sampleFigure(l.id, l.label, globalThis.uuaSnippets.sample(l.id, { ...request, key: shownKeyNow() })));
    }
  };
  let shownKeyNow = () => document.getElementById('try-key')?.dataset.sampleKey ?? '';

  // --- the samples' language ---------------------------------------------------------------------------
  const pick = document.querySelector('.lang-pick');
  const samples = () => [...document.querySelectorAll('figure.sample')];
  let showLang = () => {};
  if (pick && samples().length) {
    const group = pick.querySelector('[role="group"]');
    const langs = globalThis.uuaSnippets?.languages.map((l) => [l.id, l.label]) ?? [];
    showLang = (lang) => {
      writeSamples(lang);
      for (const f of samples()) f.hidden = f.dataset.lang !== lang;
      for (const b of group.children) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
    };
    const choose = (lang) => {
      showLang(lang);
      store.set('uua:lang', lang);
      setTimeout(() => copyAll(document));
    };
    for (const [lang, label] of langs) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary small';
      b.dataset.lang = lang;
      b.textContent = label;
      b.addEventListener('click', () => choose(lang));
      group.append(b);
    }
    pick.hidden = false;
    const remembered = store.get('uua:lang');
    choose(langs.some(([l]) => l === remembered) ? remembered : langs[0][0]);
  }
  const currentLang = () => pick?.querySelector('[aria-pressed="true"]')?.dataset.lang;

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
  shownKeyNow = () => shownKey;
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
  const snippets = globalThis.uuaSnippets;
  /** The answer's headers: the allowance's first (X-RateLimit-*, then the IETF RateLimit ones and Retry-After), then the others by name. */
  const headerRows = (headers) => {
    const rank = (name) => (name.startsWith('x-ratelimit-') ? 0 : /^(ratelimit|retry-after$)/.test(name) ? 1 : 2);
    const order = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
    const within = (a, b) => (order.includes(a) && order.includes(b) ? order.indexOf(a) - order.indexOf(b) : a.localeCompare(b));
    return [...headers.entries()].sort((a, b) => rank(a[0]) - rank(b[0]) || within(a[0], b[0]));
  };
  const render = async (res) => {
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) return JSON.stringify(await res.json(), null, 2);
    const bytes = (await res.arrayBuffer()).byteLength;
    return `(${bytes} bytes of ${type || 'unknown type'})`;
  };
  /** The request as sent, in each language, with the key shown in the samples. */
  const writeSnippet = (out, request) => {
    const place = out.querySelector('.try-snippet');
    place.replaceChildren();
    if (!snippets) return;
    for (const l of snippets.languages) place.append(sampleFigure(l.id, l.label, snippets.sample(l.id, request)));
    showLang(currentLang() ?? snippets.languages[0].id);
    copyAll(place);
  };
  /** The answer's parts under its status line, made on first use: headers, body, the request as code. */
  const answerParts = (out, heading) => {
    if (out.querySelector('.try-body')) return;
    const part = (tag, text, attrs = {}) => {
      const el = document.createElement(tag);
      if (text) el.textContent = text;
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      return el;
    };
    const id = `${heading}-headers`;
    const wrap = part('div', '', { class: 'table-wrap' });
    const table = part('table', '', { class: 'try-headers', 'aria-labelledby': id });
    table.append(part('tbody'));
    wrap.append(table);
    const pre = part('pre', '', { class: 'try-body', tabindex: '0' });
    pre.append(part('code'));
    out.prepend(part('h4', 'Response', { id: `${heading}-answer` }));
    out.setAttribute('aria-labelledby', `${heading}-answer`);
    out.setAttribute('role', 'region');
    out.append(
      part('h5', 'Headers', { id }),
      wrap,
      part('h5', 'Body'),
      pre,
      part('h5', 'This request as code'),
      part('div', '', { class: 'try-snippet' }),
    );
    copyAll(out);
  };
  for (const form of document.querySelectorAll('form.try-form')) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const out = form.parentElement.querySelector('.try-answer');
      answerParts(out, form.closest('article').getAttribute('aria-labelledby'));
      const status = out.querySelector('.status');
      const code = out.querySelector('.try-body code');
      const rows = out.querySelector('.try-headers tbody');
      const key = select ? keyOf(select.selectedOptions[0]) : '';
      out.hidden = false;
      rows.replaceChildren();
      code.textContent = '';
      if (!key) {
        status.textContent = 'Choose a key above, or paste the one you picked.';
        return;
      }
      const fields = [...new FormData(form)].filter(([, v]) => v !== '' && !(v instanceof File && !v.name));
      const { method, path, url: fullUrl } = form.dataset;
      const init = { method, headers: { 'X-API-Key': key, Accept: 'application/json' } };
      let url = path;
      const files = fields.filter(([, v]) => v instanceof File).map(([k]) => k);
      if (method === 'GET') url += fields.length ? `?${new URLSearchParams(fields)}` : '';
      else if ('multipart' in form.dataset) {
        const body = new FormData();
        for (const [k, v] of fields) body.append(k, v);
        init.body = body;
      } else {
        init.body = JSON.stringify(Object.fromEntries(fields));
        init.headers['Content-Type'] = 'application/json';
      }
      // The snippet names a chosen file by its name; the key as the samples show it.
      const params = Object.fromEntries(fields.map(([k, v]) => [k, v instanceof File ? v.name : v]));
      // The SDKs' names of the operation, from the request its samples describe.
      const described = form.closest('article').querySelector('.samples[data-request]')?.dataset.request;
      const sdk = described ? JSON.parse(described).sdk : undefined;
      writeSnippet(out, { method, url: fullUrl, params, key, files, sdk });
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      status.textContent = 'Sending…';
      const started = performance.now();
      try {
        const res = await fetch(url, init);
        const body = await render(res);
        const ms = Math.round(performance.now() - started);
        status.textContent = `${res.status} ${res.statusText} · ${ms} ms`.replace(/\s+·/, ' ·');
        status.dataset.status = String(res.status);
        for (const [name, value] of headerRows(res.headers)) {
          const tr = document.createElement('tr');
          const th = document.createElement('th');
          th.scope = 'row';
          th.textContent = name;
          const td = document.createElement('td');
          td.textContent = value;
          tr.append(th, td);
          rows.append(tr);
        }
        code.textContent = body;
      } catch (err) {
        status.textContent = `The request failed: ${err.message}`;
      } finally {
        button.disabled = false;
      }
    });
  }
})();
