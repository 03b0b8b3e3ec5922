// utilities/wth's fallback provider, wttr.in (`GET /<place>?format=j2`), against loopback fakes of it and of
// Open-Meteo: its string fields read, its weather codes mapped onto WMO's, the place in its path; asked
// when Open-Meteo is off or failing (source: wttr), not when Open-Meteo answers; both failing; its own 404
// for an unknown place; shape drift → 502 upstream_changed; slowness.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer } from '../../helpers/schema.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import type { FakeRequest, FakeResponse } from '../../helpers/fake-upstream.js';
import wthWttr from '../../../adapters/utilities/wth-wttr.js';

/** wttr.in's answer for a place; its path is the place. */
function wttrAnswer(r: FakeRequest): FakeResponse {
  const place = decodeURIComponent(r.path.slice(1));
  if (place === 'Atlantis') return { status: 404, text: 'Unknown location; please try ~Atlantis\n' };
  if (place === 'Lemuria') return { status: 500, text: 'location not found: no results for Lemuria\n' };
  if (place === 'Sao+Paulo') return { json: fixture('wttr', 'rain-shower-pm.json') };
  return { json: fixture('wttr', 'berlin-j2.json'), delayMs: place === 'Slowtown' ? 200 : 0 };
}

const s = upstreamSuite({
  endpoint: 'utilities/wth',
  upstreams: {
    'open-meteo-geo': {
      routes: {
        'GET /v1/search': (r) =>
          r.query.get('name') === 'Atlantis'
            ? { json: fixture('open-meteo-geo', 'no-results.json') }
            : { json: fixture('open-meteo-geo', 'berlin.json') },
      },
    },
    'open-meteo': { routes: { 'GET /v1/forecast': () => ({ json: fixture('open-meteo', 'current.json') }) } },
    wttr: { fallback: wttrAnswer },
  },
});
const { fixture } = s;
const { 'open-meteo-geo': geo, 'open-meteo': forecast, wttr } = s.fakes;
const both = s;
// Open-Meteo has public defaults: `off`, so that nothing reaches the internet and wttr.in is the one provider.
const wttrOnly = s.app({
  without: ['open-meteo-geo', 'open-meteo'],
  env: { UPSTREAM_OPEN_METEO_GEO_URL: 'off', UPSTREAM_OPEN_METEO_URL: 'off' },
});

describe('wttr.in alone (Open-Meteo off)', () => {
  test('its fields read and mapped: Overcast (WWO 122) is WMO 3; no country code or time zone', async () => {
    const res = await wttrOnly.get({ city: 'Berlin' });
    expectAnswer(res, 'wttr', 'utilities/wth');
    expect(res.body.data).toEqual({
      location: {
        name: 'Berlin',
        country: 'Germany',
        country_code: null,
        region: 'Berlin',
        latitude: 52.517,
        longitude: 13.4,
        timezone: null,
      },
      current: {
        time: '2026-11-22T10:12',
        temperature_c: 6,
        feels_like_c: 3,
        humidity: 81,
        wind_speed_kmh: 13,
        weather_code: 3,
        description: 'Overcast',
      },
    });
    expect(wttr.calls[0].path).toBe('/Berlin');
    expect(Object.fromEntries(wttr.calls[0].query)).toEqual({ format: 'j2', lang: 'en' });
  });

  test('spaces are + in its path; an afternoon time, "-0", an empty field, a rain shower (WWO 353 → WMO 80)', async () => {
    const res = await wttrOnly.get({ city: '  Sao   Paulo ' });
    expectAnswer(res, 'wttr', 'utilities/wth');
    expect(wttr.calls[0].path).toBe('/Sao+Paulo');
    expect(res.body.data.location).toMatchObject({ name: 'Sao Paulo', country: 'Brazil', latitude: -23.533, longitude: -46.617 });
    expect(res.body.data.current).toEqual({
      time: '2026-11-22T12:37',
      temperature_c: 0,
      feels_like_c: 0,
      humidity: 93,
      wind_speed_kmh: null,
      weather_code: 80,
      description: 'Slight rain showers',
    });
    expect(Object.is(res.body.data.current.temperature_c, -0)).toBe(false);
  });

  test('characters of its own syntax (`:` for several places, `/`) are escaped in the path', async () => {
    await wttrOnly.get({ city: 'Zürich:Bern/x' });
    expect(wttr.calls[0].path).toBe('/Z%C3%BCrich%3ABern%2Fx');
  });

  test.each([
    ['its 404 (the Python server)', 'Atlantis'],
    ['its 500 "location not found" (the Go rewrite)', 'Lemuria'],
  ])('%s for an unknown place → 404 with our words, asked once', async (_name, city) => {
    const res = await wttrOnly.get({ city });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe(`No city named "${city}" was found`);
    expect(wttr.calls).toHaveLength(1);
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    wttr.failWith = f.answer;
    expectFailure(await wttrOnly.get({ city: `Failing ${f.name}` }), f);
  });

  test.each([
    ['no current_condition', { nearest_area: [{ latitude: '1', longitude: '2' }] }],
    ['current_condition an object', { current_condition: { temp_C: '5', weatherCode: '113' }, nearest_area: [{}] }],
    [
      'a number that is not one',
      { current_condition: [{ temp_C: 'warm', weatherCode: '113' }], nearest_area: [{ latitude: '1', longitude: '2' }] },
    ],
    ['no coordinates', { current_condition: [{ temp_C: '5', weatherCode: '113' }], nearest_area: [{ areaName: [{ value: 'X' }] }] }],
    [
      'an unknown weather code',
      { current_condition: [{ temp_C: '5', weatherCode: '999' }], nearest_area: [{ latitude: '1', longitude: '2' }] },
    ],
  ])('its shape changed (%s) → 502 upstream_changed', async (_name, json) => {
    wttr.failWith = { json };
    expectFailure(await wttrOnly.get({ city: `Drift ${_name}` }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than its timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => wthWttr({ city: 'Slowtown' }, ctx), 'wttr', wttr.url, '50ms');
  });
});

describe('Open-Meteo first, wttr.in next', () => {
  test('Open-Meteo answers: wttr.in is not asked', async () => {
    const res = await both.get({ city: 'Berlin' });
    expectAnswer(res, 'open-meteo', 'utilities/wth');
    expect(wttr.calls).toHaveLength(0);
  });

  test.each([
    ['the forecast answering 500', () => (forecast.failWith = { status: 500, json: { error: true } })],
    ['the geocoder answering 500', () => (geo.failWith = { status: 500, json: { error: true } })],
    ['the forecast without `current` (drift)', () => (forecast.failWith = { json: { latitude: 52.5 } })],
  ])('%s → wttr.in answers', async (name, fail) => {
    fail();
    const res = await both.get({ city: `Berlin ${name}` });
    expectAnswer(res, 'wttr', 'utilities/wth');
    expect(res.body.data.current.description).toBe('Overcast');
    expect(wttr.calls).toHaveLength(1);
  });

  test('both failing → 502', async () => {
    forecast.failWith = { status: 500, json: { error: true } };
    wttr.failWith = { status: 503, text: 'capacity limit reached' };
    expectFailure(await both.get({ city: 'Berlin down' }), { status: 502, code: 'upstream_failed' });
    expect(forecast.calls.length).toBeGreaterThan(0);
    expect(wttr.calls.length).toBeGreaterThan(0);
  });

  test('Open-Meteo failing and wttr.in drifted → 502 upstream_changed', async () => {
    forecast.failWith = { status: 500, json: { error: true } };
    wttr.failWith = { json: { data: { error: [{ msg: 'moved' }] } } };
    expectFailure(await both.get({ city: 'Berlin drift' }), { status: 502, code: 'upstream_changed' });
  });

  test('a place neither knows → 404', async () => {
    const res = await both.get({ city: 'Atlantis' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(forecast.calls).toHaveLength(0);
  });
});
