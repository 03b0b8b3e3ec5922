// Current weather from Open-Meteo: the city's first geocoding match, then the forecast API's `current`
// block, with the WMO weather code put into words. Open-Meteo's older docs call the code `weathercode`;
// both spellings are read.
import { notFound, upstreamChanged, isRecord, num, record, type Adapter } from '../../engine/adapter.js';

/** WMO weather interpretation codes (WW), as Open-Meteo documents them. */
const WMO: Record<number, string> = {
  0: 'Clear sky',
  1: 'Mainly clear',
  2: 'Partly cloudy',
  3: 'Overcast',
  45: 'Fog',
  48: 'Depositing rime fog',
  51: 'Light drizzle',
  53: 'Moderate drizzle',
  55: 'Dense drizzle',
  56: 'Light freezing drizzle',
  57: 'Dense freezing drizzle',
  61: 'Slight rain',
  63: 'Moderate rain',
  65: 'Heavy rain',
  66: 'Light freezing rain',
  67: 'Heavy freezing rain',
  71: 'Slight snowfall',
  73: 'Moderate snowfall',
  75: 'Heavy snowfall',
  77: 'Snow grains',
  80: 'Slight rain showers',
  81: 'Moderate rain showers',
  82: 'Violent rain showers',
  85: 'Slight snow showers',
  86: 'Heavy snow showers',
  95: 'Thunderstorm',
  96: 'Thunderstorm with slight hail',
  99: 'Thunderstorm with heavy hail',
};

export const describeWeather = (code: number): string => WMO[code] ?? 'Unknown';

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

const wth: Adapter = async (params, ctx) => {
  const city = String(params.city).trim();
  const geo = await ctx.upstream('open-meteo-geo').request({
    path: '/v1/search',
    searchParams: { name: city, count: 1, language: 'en', format: 'json' },
  });
  // No match: Open-Meteo leaves `results` out altogether.
  const results = record(geo.body).results;
  const place = (Array.isArray(results) ? results : []).find(isRecord);
  if (!place) throw notFound(`No city named "${city}" was found`);
  const latitude = num(place.latitude);
  const longitude = num(place.longitude);
  if (latitude === undefined || longitude === undefined) throw upstreamChanged('The upstream service answered with malformed data');

  const forecast = await ctx.upstream('open-meteo').request({
    path: '/v1/forecast',
    searchParams: {
      latitude,
      longitude,
      current: 'temperature_2m,relative_humidity_2m,apparent_temperature,weather_code,wind_speed_10m',
      wind_speed_unit: 'kmh',
      timezone: 'auto',
    },
  });
  const current = record(forecast.body).current;
  if (!isRecord(current)) throw upstreamChanged('The upstream service answered with malformed data');
  const temperature = num(current.temperature_2m);
  const code = num(current.weather_code) ?? num(current.weathercode);
  if (temperature === undefined || code === undefined) throw upstreamChanged('The upstream service answered with malformed data');

  return {
    location: {
      name: str(place.name) ?? city,
      country: str(place.country),
      country_code: str(place.country_code),
      region: str(place.admin1),
      latitude,
      longitude,
      timezone: str(place.timezone),
    },
    current: {
      time: str(current.time),
      temperature_c: temperature,
      feels_like_c: num(current.apparent_temperature) ?? null,
      humidity: num(current.relative_humidity_2m) ?? null,
      wind_speed_kmh: num(current.wind_speed_10m) ?? null,
      weather_code: Math.trunc(code),
      description: describeWeather(Math.trunc(code)),
    },
  };
};

export default wth;
