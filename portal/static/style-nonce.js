// Hands the page's style nonce to every <style> element a script creates (the reference's renderer builds
// its styles at run time), so the page can keep style-src to 'self' plus that nonce: style markup arriving
// any other way is still refused. Loaded before the renderer. See portal/security.ts.
(() => {
  const nonce = document.querySelector('[nonce]')?.nonce; // the attribute reads "" once parsed; the property keeps it
  if (!nonce) return;
  // Scalar's own stylesheet takes its nonce from this meta (the Vite convention).
  const meta = document.createElement('meta');
  meta.setAttribute('property', 'csp-nonce');
  meta.content = nonce;
  document.head.append(meta);
  // Its other <style> elements (theme, toasts) know no nonce: give every created <style> one.
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (tag, options) {
    const el = create.call(this, tag, options);
    if (String(tag).toLowerCase() === 'style') el.setAttribute('nonce', nonce);
    return el;
  };
})();
