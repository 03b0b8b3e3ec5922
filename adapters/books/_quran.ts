// The embedded Quran shared by quran-a and quran-b: verse texts from quran-json's files copied into
// quran-data/ (loaded once, on first use, only for editions the table in _quran-editions.ts clears), and positions from quran-meta (juz,
// page, ruku, hizb quarter, manzil, sajda), plus an Arabic search that ignores diacritics.
import fs from 'node:fs';
import path from 'node:path';
import * as meta from 'quran-meta/hafs';
import { dataDir, invalidParam } from '../../engine/adapter.js';
import type { EditionRow } from './_quran-editions.js';

export const AYAH_COUNT = 6236;

export interface Verse {
  /** Global number, 1..6236. */
  number: number;
  surah: number;
  ayah: number;
  text: string;
}

interface QjSurah {
  id: number;
  name: string;
  transliteration: string;
  translation?: string;
  type: 'meccan' | 'medinan';
  total_verses: number;
  verses?: Array<{ id: number; text: string; translation?: string }>;
}

export interface SurahInfo {
  number: number;
  name: string;
  englishName: string;
  englishNameTranslation: string;
  numberOfAyahs: number;
  revelationType: 'Meccan' | 'Medinan';
}

// quran-data/README.md says where the files come from.
const DATA = dataDir(import.meta.url, 'quran-data');
const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(DATA, file), 'utf8')) as T;

const texts = new Map<string, Verse[]>();

/** All 6236 verses of an embedded edition, in order. */
export function versesOf(edition: EditionRow): Verse[] {
  let list = texts.get(edition.file);
  if (!list) {
    list = [];
    for (const s of readJson<QjSurah[]>(edition.file)) {
      for (const v of s.verses ?? []) {
        list.push({
          number: list.length + 1,
          surah: s.id,
          ayah: v.id,
          text: edition.type === 'quran' ? v.text : (v.translation ?? v.text),
        });
      }
    }
    if (list.length !== AYAH_COUNT) throw new Error(`quran-json ${edition.file}: ${list.length} verses, expected ${AYAH_COUNT}`);
    texts.set(edition.file, list);
  }
  return list;
}

let surahs: SurahInfo[] | undefined;

/** Surah names (Arabic and transliterated, from quran-json) with counts and revelation place. */
export function surahInfo(n: number): SurahInfo {
  surahs ??= readJson<QjSurah[]>('chapters/en/index.json').map((s) => ({
    number: s.id,
    name: s.name,
    englishName: s.transliteration,
    englishNameTranslation: s.translation ?? '',
    numberOfAyahs: s.total_verses,
    revelationType: s.type === 'meccan' ? 'Meccan' : 'Medinan',
  }));
  return surahs[n - 1];
}

/** The global number of ayah `ayah` of surah `surah`; a 400 naming `param` when the surah has fewer. */
export function globalNumber(surah: number, ayah: number, param = 'verse'): number {
  const count = meta.getAyahCountInSurah(surah as meta.Surah);
  if (ayah < 1 || ayah > count) throw invalidParam(param, `surah ${surah} has ${count} ayahs`);
  return meta.findAyahIdBySurah(surah as meta.Surah, ayah as meta.AyahNo);
}

/** The four prostrations Tanzil's metadata marks obligatory; the other eleven are recommended. */
const OBLIGATORY_SAJDA = new Set(['32:15', '41:38', '53:62', '96:19']);

export interface Position {
  juz: number;
  manzil: number;
  page: number;
  ruku: number;
  hizbQuarter: number;
  sajda: false | { id: number; recommended: boolean; obligatory: boolean };
}

/** Where an ayah sits, in AlQuran Cloud's field names. */
export function positionOf(number: number): Position {
  const m = meta.getAyahMeta(number);
  const sajdaIndex = meta.SajdaList.indexOf(number);
  const obligatory = OBLIGATORY_SAJDA.has(`${m.surah}:${m.ayah}`);
  return {
    juz: m.juz,
    manzil: meta.findManzilByAyahId(number),
    page: m.page,
    ruku: m.ruku,
    hizbQuarter: m.rubAlHizbId,
    sajda: m.isSajdahAyah ? { id: sajdaIndex + 1, recommended: !obligatory, obligatory } : false,
  };
}

const SEGMENTS = { juz: 30, ruku: 556, page: 604, manzil: 7, maqra: 240 } as const;
export type Segment = keyof typeof SEGMENTS;

/** First and last global ayah numbers of a segment (a maqra is a quarter hizb, rub' al-hizb). */
export function segmentRange(segment: Segment, n: number): [number, number] {
  const max = SEGMENTS[segment];
  if (n < 1 || n > max) throw invalidParam('segment_no', `must be between 1 and ${max} for ${segment}`);
  const r =
    segment === 'juz'
      ? meta.getJuzMeta(n as meta.Juz)
      : segment === 'ruku'
        ? meta.getRukuMeta(n as meta.Ruku)
        : segment === 'page'
          ? meta.getPageMeta(n as meta.Page)
          : segment === 'manzil'
            ? meta.getManzilMeta(n as meta.Manzil)
            : meta.getRubAlHizbMeta(n as meta.RubAlHizbId);
  return [r.firstAyahId, r.lastAyahId];
}

// ---- search ----

// Harakat, Quranic annotation marks, tatweel; hamza carriers and alef forms folded to their base letter.
const MARKS = /[\u0610-\u061a\u064b-\u065f\u06d6-\u06ed\u0640\u08d3-\u08ff]/g;
const fold = (s: string) =>
  s
    .normalize('NFC')
    .replace(MARKS, '')
    .replace(/[\u0671\u0622\u0623\u0625]/g, '\u0627')
    .replace(/\u0649/g, '\u064a')
    .replace(/\u0629/g, '\u0647')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/**
 * The dagger alef is written as a full alef in plain spelling in some words (السماوات) and not at all in
 * others (الرحمن), so each verse is matched in both spellings.
 */
function normalise(s: string): [string, string] {
  return [fold(s.replace(/\u0670/g, '')), fold(s.replace(/\u0670/g, '\u0627'))];
}

const indexes = new Map<string, Array<[string, string]>>();

export function search(edition: EditionRow, q: string): Verse[] {
  const verses = versesOf(edition);
  let index = indexes.get(edition.file);
  if (!index) {
    index = verses.map((v) => normalise(v.text));
    indexes.set(edition.file, index);
  }
  const [a, b] = normalise(q);
  if (!a) return [];
  return verses.filter((_, i) => index[i][0].includes(a) || index[i][1].includes(a) || index[i][0].includes(b) || index[i][1].includes(b));
}
