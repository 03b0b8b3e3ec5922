// tts/langlist and tts/accentlist: the static tables of upstreams.md §5 (69 languages, 15 accents).
import request from 'supertest';
import { appForTests } from '../../helpers/app.js';
import { expectMatchesSchema } from '../../helpers/schema.js';

const t = appForTests();

const langlist = () => request(t.app).get('/api/v1/tts/langlist').query({ apikey: t.key });
const accentlist = (lang: string) => request(t.app).get('/api/v1/tts/accentlist').query({ apikey: t.key, lang });

describe('tts/langlist', () => {
  test('lists the 69 languages with their voices', async () => {
    const res = await langlist();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, source: 'embedded' });
    expectMatchesSchema('tts/langlist', res.body.data);
    const { total, languages } = res.body.data;
    expect(total).toBe(69);
    expect(languages).toHaveLength(69);
    expect(new Set(languages.map((l: { code: string }) => l.code)).size).toBe(69);
    const byCode = Object.fromEntries(languages.map((l: { code: string }) => [l.code, l]));
    expect(byCode.af).toEqual({ code: 'af', name: 'Afrikaans', voice: 'af', approximate: false });
    expect(byCode.en).toEqual({ code: 'en', name: 'English', voice: 'en-us', approximate: false });
    expect(byCode.iw).toMatchObject({ name: 'Hebrew', voice: 'he', approximate: false });
    expect(byCode.no).toMatchObject({ voice: 'nb' });
    expect(byCode['pt-PT']).toMatchObject({ name: 'Portuguese (Portugal)', voice: 'pt' });
    expect(byCode['zh-TW']).toMatchObject({ voice: 'cmn', approximate: true });
    expect(byCode.km).toEqual({ code: 'km', name: 'Khmer', voice: null, approximate: false });
    // The five without a voice of their own, read by a related orthography's rules.
    for (const [code, voice] of [
      ['gl', 'es'],
      ['jw', 'id'],
      ['su', 'id'],
      ['tl', 'id'],
      ['ha', 'sw'],
    ]) {
      expect(byCode[code]).toMatchObject({ voice, approximate: true });
    }
  });

  test('is cached (static table)', async () => {
    const res = await langlist();
    expect(res.body.metadata.cached).toBe(true);
  });
});

describe('tts/accentlist', () => {
  test.each([
    ['en', 8],
    ['fr', 2],
    ['pt', 2],
    ['es', 3],
  ])('%s has %i accents', async (lang, n) => {
    const res = await accentlist(lang);
    expect(res.status).toBe(200);
    expectMatchesSchema('tts/accentlist', res.body.data);
    expect(res.body.data).toMatchObject({ lang, total: n });
    expect(res.body.data.accents).toHaveLength(n);
  });

  test('the 15 accents of the table, with their voices', async () => {
    const rows: string[] = [];
    for (const lang of ['en', 'fr', 'pt', 'es']) {
      const res = await accentlist(lang);
      for (const a of res.body.data.accents) rows.push(`${lang} ${a.tld} ${a.region} ${a.voice}${a.approximate ? ' ~' : ''}`);
    }
    expect(rows).toEqual([
      'en com.au AU en-gb ~',
      'en co.uk GB en-gb',
      'en us US en-us',
      'en ca CA en-us ~',
      'en co.in IN en-gb ~',
      'en ie IE en-gb ~',
      'en co.za ZA en-gb ~',
      'en com.ng NG en-gb ~',
      'fr ca CA fr-fr ~',
      'fr fr FR fr-fr',
      'pt com.br BR pt-br',
      'pt pt PT pt',
      'es com.mx MX es-mx',
      'es es ES es',
      'es us US es-419',
    ]);
    const uk = (await accentlist('en')).body.data.accents.find((a: { tld: string }) => a.tld === 'co.uk');
    expect(uk).toMatchObject({ name: 'English (United Kingdom)', aliases: ['UK'] });
  });

  test('a language without accents has none', async () => {
    const res = await accentlist('de');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ lang: 'de', total: 0, accents: [] });
    expectMatchesSchema('tts/accentlist', res.body.data);
  });

  test('codes match case-insensitively and answer with the canonical code', async () => {
    const res = await accentlist('EN');
    expect(res.body.data).toMatchObject({ lang: 'en', total: 8 });
    const zh = await accentlist('zh-cn');
    expect(zh.body.data).toMatchObject({ lang: 'zh-CN', total: 0 });
  });

  test('an unknown language is a 400 naming it', async () => {
    const res = await accentlist('xx');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'bad_input' });
    expect(res.body.error).toBe('Invalid value for lang: unsupported language "xx"; see /api/v1/tts/langlist for the 69 codes');
  });

  test('lang is required', async () => {
    const res = await request(t.app).get('/api/v1/tts/accentlist').query({ apikey: t.key });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Missing required parameter: lang');
  });
});
