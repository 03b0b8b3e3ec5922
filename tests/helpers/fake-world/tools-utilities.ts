// Fakes of the tools and utilities upstreams.
import { fixture, html, json, type Answers } from './fixture.js';

const rdapJson = { 'content-type': 'application/rdap+json' };

export const TOOLS_UTILITIES: Record<string, Answers> = {
  github: { 'GET /users/:u/repos': json('github', 'repos-page1.json') },
  dealspotr: {
    'GET /promo-codes/:domain/:id': html('dealspotr', 'reveal.html'),
    'GET /promo-codes/:domain': html('dealspotr', 'listing.html'),
  },
  'telegram-web': { 'GET /:name': html('telegram-web', 'profile.html') },
  // rdap.org redirects to the registry of the TLD: here a registry below the same fake.
  rdap: {
    'GET /domain/:name': (r, p) => ({ status: 302, headers: { location: `http://${r.headers.host}/rdap/registry/domain/${p.name}` } }),
    'GET /registry/domain/:name': () => ({ json: fixture('rdap', 'example-com.json'), headers: rdapJson }),
  },
  libretranslate: {
    'GET /languages': json('libretranslate', 'languages.json'),
    'POST /translate': json('libretranslate', 'translate.json'),
  },
  mymemory: { 'GET /get': json('mymemory', 'autodetect-fr-en.json') },
  'ip-api': { 'GET /json/:ip': json('ip-api', '8.8.8.8.json') },
  'open-meteo-geo': { 'GET /v1/search': json('open-meteo-geo', 'berlin.json') },
  'open-meteo': { 'GET /v1/forecast': json('open-meteo', 'current.json') },
  wttr: { 'GET /:place': json('wttr', 'berlin-j2.json') },
  mailtm: {
    'GET /domains': json('mailtm', 'domains-hydra.json'),
    'POST /accounts': json('mailtm', 'account-created.json', { status: 201 }),
    'POST /token': json('mailtm', 'token.json'),
  },
};
