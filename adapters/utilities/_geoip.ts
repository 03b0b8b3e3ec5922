// geoip-lite reads about 150 MB of data synchronously when it is imported: load it on the first lookup,
// once, and keep it. Concurrent first calls share the same load.
import { createRequire } from 'node:module';

export interface GeoRecord {
  country: string;
  region: string;
  city: string;
  timezone: string;
  ll: [number | null, number | null];
}

interface GeoipLite {
  lookup(ip: string): GeoRecord | null;
}

let loaded: Promise<GeoipLite> | undefined;

export function geoip(): Promise<GeoipLite> {
  // A macrotask first, so the request that triggers the load has been accepted before the event loop stalls.
  loaded ??= new Promise<GeoipLite>((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(createRequire(import.meta.url)('geoip-lite') as GeoipLite);
      } catch (err) {
        loaded = undefined;
        reject(err);
      }
    }),
  );
  return loaded;
}
