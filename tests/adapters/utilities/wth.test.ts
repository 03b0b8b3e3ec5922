// utilities/wth against loopback Open-Meteo geocoding and forecast APIs: the first match's coordinates
// passed on, the WMO code in words (both field spellings), unknown city → 404, errors of either API,
// slowness, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import wth, { describeWeather } from '../../../adapters/utilities/wth.js';

const PATH = '/api/v1/utilities/wth';

let oldSpelling = false;
const s = upstreamSuite({
  endpoint: 'utilities/wth',
  upstreams: {
    'open-meteo-geo': {
      routes: {
        'GET /v1/search': (r) => {
          const name = r.query.get('name') ?? '';
          if (name === 'Atlantis') return { json: fixture('open-meteo-geo', 'no-results.json') };
          return { json: fixture('open-meteo-geo', 'berlin.json'), delayMs: name === 'Slowtown' ? 200 : 0 };
        },
      },
    },
    'open-meteo': {
      routes: {
        'GET /v1/forecast': () => ({ json: fixture('open-meteo', oldSpelling ? 'current-old-spelling.json' : 'current.json') }),
      },
    },
  },
});
const { fixture, get } = s;
const { 'open-meteo-geo': geo, 'open-meteo': forecast } = s.fakes;
beforeEach(() => {
  oldSpelling = false;
});

describe('current weather', () => {
  test('location of the first match, current conditions in words', async () => {
    const res = await get({ city: 'Berlin' });
    expectAnswer(res, 'open-meteo');
    expect(res.body.data).toEqual({
      location: {
        name: 'Berlin',
        country: 'Germany',
        country_code: 'DE',
        region: 'Land Berlin',
        latitude: 52.52437,
        longitude: 13.41053,
        timezone: 'Europe/Berlin',
      },
      current: {
        time: '2026-11-22T10:00',
        temperature_c: 6.1,
        feels_like_c: 3.2,
        humidity: 81,
        wind_speed_kmh: 12.4,
        weather_code: 3,
        description: 'Overcast',
      },
    });
    expectMatchesSchema('utilities/wth', res.body.data);
    expect(Object.fromEntries(geo.calls[0].query)).toEqual({ name: 'Berlin', count: '1', language: 'en', format: 'json' });
    const q = Object.fromEntries(forecast.calls[0].query);
    expect(q).toMatchObject({ latitude: '52.52437', longitude: '13.41053', timezone: 'auto', wind_speed_unit: 'kmh' });
    expect(q.current.split(',')).toEqual([
      'temperature_2m',
      'relative_humidity_2m',
      'apparent_temperature',
      'weather_code',
      'wind_speed_10m',
    ]);
  });

  test('the older `weathercode` spelling is read too', async () => {
    oldSpelling = true;
    const res = await get({ city: 'Berlin Mitte' });
    expect(res.status).toBe(200);
    expect(res.body.data.current).toMatchObject({ temperature_c: -1.5, weather_code: 73, description: 'Moderate snowfall' });
    expectMatchesSchema('utilities/wth', res.body.data);
  });

  test('the WMO table', () => {
    expect(describeWeather(0)).toBe('Clear sky');
    expect(describeWeather(48)).toBe('Depositing rime fog');
    expect(describeWeather(57)).toBe('Dense freezing drizzle');
    expect(describeWeather(82)).toBe('Violent rain showers');
    expect(describeWeather(99)).toBe('Thunderstorm with heavy hail');
    expect(describeWeather(4)).toBe('Unknown');
  });
});

describe('not found and bad input', () => {
  test('a city the geocoder does not know → 404, no forecast asked', async () => {
    const res = await get({ city: 'Atlantis' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No city named "Atlantis" was found');
    expect(forecast.calls).toHaveLength(0);
  });

  test('a city name over 100 characters → 400', async () => {
    const res = await get({ city: 'x'.repeat(101) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid value for city: /);
    expect(geo.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  test.each(UPSTREAM_FAILURES)('geocoding $name → $status', async (f) => {
    geo.failWith = f.answer;
    expectFailure(await get({ city: `Geo ${f.name}` }), f);
  });

  test.each(UPSTREAM_FAILURES)('forecast $name → $status', async (f) => {
    forecast.failWith = f.answer;
    expectFailure(await get({ city: `Forecast ${f.name}` }), f);
  });

  test('Open-Meteo 400 {error, reason} → 400 without its words', async () => {
    forecast.failWith = { status: 400, json: fixture('open-meteo', 'bad-request.json') };
    const res = await get({ city: 'Edge of the map' });
    expect(res.status).toBe(400);
    expect(res.body.error).not.toMatch(/Latitude/);
  });

  test('a forecast without `current`, or without a temperature → 502', async () => {
    forecast.failWith = { json: { latitude: 52.5, longitude: 13.4 } };
    expectFailure(await get({ city: 'No current' }), { status: 502, code: 'upstream_changed' });
    forecast.failWith = { json: { current: { weather_code: 1 } } };
    expectFailure(await get({ city: 'No temperature' }), { status: 502, code: 'upstream_changed' });
  });

  test('a geocoding match without coordinates → 502', async () => {
    geo.failWith = { json: { results: [{ name: 'Nowhere' }] } };
    expectFailure(await get({ city: 'Nowhere' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => wth({ city: 'Slowtown' }, ctx), 'open-meteo-geo', geo.url, '50ms');
  });
});

describe('cache', () => {
  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({ t: s.t, path: PATH, query: { city: 'Potsdam' }, upstreamCalls: () => forecast.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { city: 'Slowtown' }, upstreamCalls: () => geo.calls.length });
  });
});
