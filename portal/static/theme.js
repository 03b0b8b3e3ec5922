// The dark mode toggle of every page. Without a choice the page follows the system (prefers-color-scheme,
// in style.css); a choice is remembered in the uua_theme cookie, which the server reads to write
// <html data-theme> itself, so a remembered theme shows from the first paint, with no inline script.
(() => {
  const root = document.documentElement;
  const button = document.querySelector('button.theme');
  if (!button) return;
  const system = matchMedia('(prefers-color-scheme: dark)');
  const dark = () => (root.dataset.theme ? root.dataset.theme === 'dark' : system.matches);
  // The button names what it does: the theme it switches to.
  const show = () => (button.textContent = dark() ? 'Light mode' : 'Dark mode');
  button.addEventListener('click', () => {
    const next = dark() ? 'light' : 'dark';
    root.dataset.theme = next;
    document.cookie = `uua_theme=${next}; Path=/; Max-Age=31536000; SameSite=Lax`;
    show();
  });
  system.addEventListener('change', show);
  show();
  button.hidden = false;
})();
