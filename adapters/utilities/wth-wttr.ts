// Current weather from wttr.in's JSON (`?format=j2`: j1 without the hourly forecast), wth's fallback provider
// (catalog/utilities.yaml). wttr.in geocodes the name itself and answers World Weather Online's fields, all
// as strings: its weather codes are mapped onto the WMO codes Open-Meteo answers, so `weather_code` and
// `description` mean the same whichever provider answered. It gives no country code or time zone (null).
import { notFound, upstreamChanged, upstreamFailed, isRecord, malformed, record, type Rec } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { describeWeather } from './_wmo.js';

/** World Weather Online's condition codes (wttr.in's `weatherCode`) → the nearest WMO code. */
const WWO_TO_WMO: Record<number, number> = {
  113: 0, // Sunny / Clear
  116: 2, // Partly cloudy
  119: 3, // Cloudy
  122: 3, // Overcast
  143: 45, // Mist
  176: 80, // Patchy rain nearby
  179: 85, // Patchy snow nearby
  182: 66, // Patchy sleet nearby
  185: 56, // Patchy freezing drizzle nearby
  200: 95, // Thundery outbreaks nearby
  227: 73, // Blowing snow
  230: 75, // Blizzard
  248: 45, // Fog
  260: 48, // Freezing fog
  263: 51, // Patchy light drizzle
  266: 51, // Light drizzle
  281: 56, // Freezing drizzle
  284: 57, // Heavy freezing drizzle
  293: 61, // Patchy light rain
  296: 61, // Light rain
  299: 63, // Moderate rain at times
  302: 63, // Moderate rain
  305: 65, // Heavy rain at times
  308: 65, // Heavy rain
  311: 66, // Light freezing rain
  314: 67, // Moderate or heavy freezing rain
  317: 66, // Light sleet
  320: 67, // Moderate or heavy sleet
  323: 71, // Patchy light snow
  326: 71, // Light snow
  329: 73, // Patchy moderate snow
  332: 73, // Moderate snow
  335: 75, // Patchy heavy snow
  338: 75, // Heavy snow
  350: 77, // Ice pellets
  353: 80, // Light rain shower
  356: 81, // Moderate or heavy rain shower
  359: 82, // Torrential rain shower
  362: 85, // Light sleet showers
  365: 86, // Moderate or heavy sleet showers
  368: 85, // Light snow showers
  371: 86, // Moderate or heavy snow showers
  374: 77, // Light showers of ice pellets
  377: 77, // Moderate or heavy showers of ice pellets
  386: 95, // Patchy light rain with thunder
  389: 95, // Moderate or heavy rain with thunder
  392: 95, // Patchy light snow with thunder
  395: 95, // Moderate or heavy snow with thunder
};

/** wttr.in's numbers are strings ("9", "-0"); undefined when absent or not a number. */
function numeric(v: unknown): number | undefined {
  if (typeof v !== 'string' || !v.trim()) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n + 0 : undefined;
}

/** The first `[{ value }]` of a field, e.g. `areaName: [{ value: "Berlin" }]`. */
function valueOf(v: unknown): string | null {
  const first: unknown = Array.isArray(v) ? v[0] : undefined;
  return isRecord(first) && typeof first.value === 'string' && first.value.trim() ? first.value.trim() : null;
}

/** `2026-11-22 10:37 AM` (the place's local time) → `2026-11-22T10:37`, as Open-Meteo spells it. */
function localTime(v: unknown): string | null {
  const m = typeof v === 'string' ? /^(\d{4}-\d{2}-\d{2}) (\d{1,2}):(\d{2}) ([AP]M)$/.exec(v.trim()) : null;
  if (!m) return null;
  const hour = (Number(m[2]) % 12) + (m[4] === 'PM' ? 12 : 0);
  return `${m[1]}T${String(hour).padStart(2, '0')}:${m[3]}`;
}

const first = (v: unknown): Rec => {
  const found: unknown = Array.isArray(v) ? v[0] : undefined;
  if (!isRecord(found)) throw malformed();
  return found;
};

const wthWttr: Adapter<'utilities/wth-wttr'> = async (params, ctx) => {
  const city = params.city.trim();
  // Its path is the place; spaces are `+` (its docs), and `:` (several places) or `/` never reach it raw.
  const place = city.split(/\s+/).map(encodeURIComponent).join('+');
  const notFoundMessage = `No city named "${city}" was found`;
  const { status, body } = await ctx.upstream('wttr').request({
    path: `/${place}`,
    searchParams: { format: 'j2', lang: 'en' },
    // An unknown place: 404 "Unknown location; please try ~<name>" (its Python server), or 500
    // "location not found: …" (its Go rewrite), both plain text. A 500 is read here, so it is neither
    // retried nor counted to the breaker; any other 500 is still an outage.
    notFoundMessage,
    allowStatus: [500],
  });
  if (status === 500) {
    if (typeof body === 'string' && /^location not found\b/i.test(body.trim())) throw notFound(notFoundMessage);
    throw upstreamFailed();
  }
  const r = record(body);
  const current = first(r.current_condition);
  const area = first(r.nearest_area);
  const latitude = numeric(area.latitude);
  const longitude = numeric(area.longitude);
  const temperature = numeric(current.temp_C);
  const wwo = numeric(current.weatherCode);
  if (latitude === undefined || longitude === undefined || temperature === undefined || wwo === undefined) throw malformed();
  const code = WWO_TO_WMO[wwo];
  // The code list has not changed in years: a new code is a change of the API, not weather to guess.
  if (code === undefined) throw upstreamChanged(`The upstream service answered an unknown weather code ${wwo}`);

  return {
    location: {
      name: valueOf(area.areaName) ?? city,
      country: valueOf(area.country),
      country_code: null,
      region: valueOf(area.region),
      latitude,
      longitude,
      timezone: null,
    },
    current: {
      time: localTime(current.localObsDateTime),
      temperature_c: temperature,
      feels_like_c: numeric(current.FeelsLikeC) ?? null,
      humidity: numeric(current.humidity) ?? null,
      wind_speed_kmh: numeric(current.windspeedKmph) ?? null,
      weather_code: code,
      description: describeWeather(code),
    },
  };
};

export default wthWttr;
