// The short way of reading an API request's path and query (engine/pipeline/request-line.ts) must read
// every target exactly as parseurl and node:querystring do; where it cannot, it must hand over to them.
import querystring from 'node:querystring';
import parseurl from 'parseurl';
import type { IncomingMessage } from 'node:http';
import { parseQuery, plainTarget } from '../../../engine/pipeline/request-line.js';

/** A small seeded generator (mulberry32): the same strings on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Mostly the characters that mean something to either parser, some that do not, and a few beyond ASCII.
const ALPHABET = [
  'a',
  'b',
  'k',
  '1',
  '=',
  '=',
  '&',
  '&',
  '&',
  '?',
  '%',
  '%2',
  '%41',
  '%zz',
  '+',
  '[',
  ']',
  '#',
  ' ',
  '\t',
  '/',
  '.',
  '\u00a0',
  '\ufeff',
  'é',
  '__proto__',
  'constructor',
];

function strings(seed: number, count: number, start = ''): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    let s = start;
    const n = Math.floor(next() * 14);
    for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
    return s;
  });
}

const asPlain = (o: object) => JSON.parse(JSON.stringify(o)) as unknown;

/** Every key an object inherits, down its prototype chain. */
function inherited(o: object): (string | symbol)[] {
  const keys: (string | symbol)[] = [];
  for (let p = Object.getPrototypeOf(o) as object | null; p !== null; p = Object.getPrototypeOf(p) as object | null)
    keys.push(...Reflect.ownKeys(p));
  return keys;
}

test('a query string reads as querystring.parse reads it', () => {
  const cases = [
    ...strings(1, 5000),
    '',
    'apikey=k1&bin=457173',
    'a=1&a=2&a=3',
    '=b&c&&d=&e==f',
    'a[]=1&a[x]=2',
    '__proto__=x&constructor=y',
    Array.from({ length: 1005 }, (_, i) => `k${i}=${i}`).join('&'),
  ];
  for (const s of cases) {
    const ours = parseQuery(s);
    const theirs = querystring.parse(s);
    expect([s, asPlain(ours)]).toEqual([s, asPlain(theirs)]);
    // No key inherited, as none is from querystring's null-prototype object.
    expect(inherited(ours)).toEqual([]);
    expect(inherited(theirs)).toEqual([]);
  }
  // More keys than querystring keeps: its limit holds.
  expect(Object.keys(parseQuery(cases.at(-1)!))).toHaveLength(1000);
});

test("a target's path and query read as parseurl reads them, or parseurl is asked", () => {
  let short = 0;
  for (const url of [
    ...strings(2, 5000, '/api/'),
    ...strings(3, 500, '/'),
    ...strings(4, 200),
    '/api/v1/tools/ccgen?bin=1',
    '/api/x?',
    '/api/x',
  ]) {
    const ours = plainTarget(url);
    if (ours === undefined) continue;
    short++;
    const theirs = parseurl({ url } as IncomingMessage)!;
    expect([url, ours.pathname, ours.search]).toEqual([url, theirs.pathname, theirs.query]);
  }
  // The generated targets took the short way often enough for the comparison to mean something.
  expect(short).toBeGreaterThan(1500);
  for (const url of ['http://x/api/a', '/api/a#b', '/api/a b', '/api/\ta', '/api/a?b#c', '*', '']) expect(plainTarget(url)).toBeUndefined();
});
