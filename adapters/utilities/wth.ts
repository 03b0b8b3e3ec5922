// Current weather from Open-Meteo: the city's first geocoding match, then the forecast API's `current`
// block, with the WMO weather code put into words. Open-Meteo's older docs call the code `weathercode`;
// both spellings are read.
import { notFound, upstreamChanged, isRecord, num, record } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { describeWeather } from './_wmo.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

const wth: Adapter<'utilities/wth'> = async (params, ctx) => {
  const city = params.city.trim();
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
