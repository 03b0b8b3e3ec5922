// Embedded ipinfo answers the utilities/ipinfo suites expect, from geoip-lite's data (GeoLite2-derived).

/** The St Albans block of geoip-lite 1.4.10's data: the embedded answer for 81.2.69.142. */
export const ST_ALBANS = {
  ip: '81.2.69.142',
  hostname: null,
  city: 'St Albans',
  region: 'ENG',
  country: 'GB',
  loc: '51.7530,-0.3256',
  timezone: 'Europe/London',
  org: null,
};
