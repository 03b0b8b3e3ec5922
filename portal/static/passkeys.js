// Passkeys on the sign-in, second-step and two-factor pages, through @simplewebauthn/browser (loaded before
// this file as the global SimpleWebAuthnBrowser). Each ceremony asks the server for its options, hands them
// to the browser's authenticator, and sends the answer back (JSON, with the page's CSRF token in the
// X-CSRF-Token header); the server's answer names the page to go to next. Where the browser has no passkeys
// (or this script does not run) the buttons stay hidden and the pages say so.
(() => {
  const lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;
  const csrf = document.querySelector('input[name="csrf"]')?.value ?? '';

  const post = async (url, body) => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    const data = await answer.json().catch(() => ({}));
    if (!answer.ok) throw new Error(data.error || 'The server could not take the passkey. Try again.');
    return data;
  };

  // A cancelled or timed-out prompt is the browser's NotAllowedError: said plainly, not as an error.
  const words = (err) =>
    err && err.name === 'NotAllowedError'
      ? 'The passkey prompt was closed before it finished.'
      : (err && err.message) || 'Something went wrong.';

  const statusOf = (el) => el.closest('form, .card, [data-passkey-box]')?.querySelector('[data-passkey-status]');

  // Making a passkey: the form on /account/two-factor.
  for (const form of document.querySelectorAll('form[data-passkey="register"]')) {
    const status = statusOf(form);
    if (status) status.textContent = '';
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const name = form.elements.name.value.trim();
      if (status) status.textContent = 'Follow your browser’s prompt…';
      try {
        const optionsJSON = await post(form.dataset.options, {});
        const response = await lib.startRegistration({ optionsJSON });
        const done = await post(form.action, { name, response });
        location.assign(done.redirect);
      } catch (err) {
        if (status) status.textContent = words(err);
      }
    });
  }

  // Signing in with a passkey: alone on /login, or as the second step on /login/factor.
  for (const button of document.querySelectorAll('button[data-passkey="sign-in"]')) {
    const status = statusOf(button);
    if (status) status.textContent = '';
    button.hidden = false;
    button.addEventListener('click', async () => {
      if (status) status.textContent = 'Follow your browser’s prompt…';
      try {
        const optionsJSON = await post(button.dataset.options, {});
        const response = await lib.startAuthentication({ optionsJSON });
        const done = await post(button.dataset.action, { response, next: button.dataset.next });
        location.assign(done.redirect);
      } catch (err) {
        if (status) status.textContent = words(err);
      }
    });
  }
})();
