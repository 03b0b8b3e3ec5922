// Downloader answers name their media by links on this service (features/media/); an adapter's test is
// about what the provider gave. This checks each media's link and gives the answer back as the provider
// gave it: `url` the provider's own (`sourceUrl`), the link and the facts learnt of the file kept aside.
const LINK = /^http:\/\/127\.0\.0\.1:3999\/media\/[A-Za-z0-9_-]{40,}$/;

interface Answer {
  status: number;
  body: { data?: { medias?: Array<Record<string, unknown>> } };
}

export function asProviderGave<T extends Answer>(res: T): T {
  for (const m of res.body.data?.medias ?? []) {
    expect(m.url).toMatch(LINK);
    expect(m).toHaveProperty('sourceUrl');
    m.url = m.sourceUrl;
    delete m.sourceUrl;
    for (const fact of ['bytes', 'mime', 'width', 'height', 'duration']) {
      expect(m).toHaveProperty(fact);
      delete m[fact];
    }
  }
  return res;
}
