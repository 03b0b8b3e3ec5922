// The validator on small endpoints of its own, one rule at a time: how raw text becomes a typed value
// (signed, padded and spaced numbers, booleans), the default 2,048-character cap, every bound told in its
// own words (one-sided ones too), formats and hosts, file parameters, defaults, and the default words of
// every kind of cross-parameter rule. Each case asserts the exact 400 message or the exact params.
import type { ErrorObject } from 'ajv';
import { ApiError } from '../../../engine/errors.js';
import type { EndpointSpec, ParamSpec, Rule } from '../../../engine/catalog/load.js';
import { messageOf } from '../../../engine/catalog/validate.js';
import { compileValidator } from '../../../engine/catalog/checks.js';
import type { UploadedFile } from '../../../engine/types.js';

type Param = Omit<ParamSpec, 'description'>;

function endpoint(params: Record<string, Param>, rules?: Rule[]): EndpointSpec {
  return {
    category: 'test',
    name: 'validate',
    id: 'test/validate',
    method: 'GET',
    summary: 'a test endpoint',
    adapter: 'none',
    upstream: 'none',
    params: Object.fromEntries(Object.entries(params).map(([n, p]) => [n, { description: n, ...p }])),
    ...(rules ? { rules } : {}),
    response: {},
  };
}

/** The params the validator hands on, or the message of its 400. */
function says(spec: EndpointSpec, raw: Record<string, unknown>, files: Record<string, UploadedFile> = {}): unknown {
  try {
    return compileValidator(spec)(raw, files);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    return (err as ApiError).message;
  }
}

describe('integers', () => {
  const e = endpoint({ n: { type: 'integer', minimum: 1, maximum: 20 } });
  test.each([
    ['7', 7],
    ['+3', 3],
    ['007', 7],
    [' 12 ', 12],
    ['20', 20],
    ['1', 1],
  ])('%j is %d', (raw, n) => {
    expect(says(e, { n: raw })).toEqual({ n });
  });

  test.each([
    ['-5', 'Invalid value for n: must be between 1 and 20'],
    ['-0', 'Invalid value for n: must be between 1 and 20'],
    ['21', 'Invalid value for n: must be between 1 and 20'],
    ['+021', 'Invalid value for n: must be between 1 and 20'],
    ['1.5', 'Invalid value for n: must be an integer'],
    ['1e3', 'Invalid value for n: must be an integer'],
    ['0x10', 'Invalid value for n: must be an integer'],
    ['--5', 'Invalid value for n: must be an integer'],
    ['+', 'Invalid value for n: must be an integer'],
    ['1 2', 'Invalid value for n: must be an integer'],
    ['x7', 'Invalid value for n: must be an integer'],
    ['7x', 'Invalid value for n: must be an integer'],
    ['1234567890123456', 'Invalid value for n: must be an integer'],
  ])('%j → %s', (raw, message) => {
    expect(says(e, { n: raw })).toBe(message);
  });

  test('up to 15 digits are read; the bound then applies', () => {
    expect(says(endpoint({ n: { type: 'integer' } }), { n: '-123456789012345' })).toEqual({ n: -123456789012345 });
    expect(says(e, { n: '000000000000015' })).toEqual({ n: 15 });
  });
});

describe('numbers', () => {
  const e = endpoint({ x: { type: 'number' } });
  test.each([
    ['2.5', 2.5],
    ['-2.5', -2.5],
    ['+.5', 0.5],
    ['.25', 0.25],
    ['3.', 3],
    [' 4 ', 4],
    ['-0.000000000000001', -0.000000000000001],
  ])('%j is %d', (raw, x) => {
    expect(says(e, { x: raw })).toEqual({ x });
  });

  test.each(['1e3', '.', '1.2.3', '1,5', 'NaN', 'Infinity', '0x1', '1.2345678901234567', '1234567890123456', '5-', '- 5'])(
    '%j is not a number',
    (raw) => {
      expect(says(e, { x: raw })).toBe('Invalid value for x: must be a number');
    },
  );
});

describe('booleans', () => {
  const e = endpoint({ b: { type: 'boolean' } });
  test.each([
    ['true', true],
    ['TRUE', true],
    [' 1 ', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('%j is %s', (raw, b) => {
    expect(says(e, { b: raw })).toEqual({ b });
  });

  test.each(['yes', 'no', '2', 'truefalse', 't'])('%j is neither', (raw) => {
    expect(says(e, { b: raw })).toBe('Invalid value for b: must be true or false');
  });
});

describe('any raw value', () => {
  const e = endpoint({ s: { type: 'string' }, n: { type: 'integer' } });
  test('a list or a JSON scalar that is not text is not a single value', () => {
    expect(says(e, { s: ['a', 'b'] })).toBe('Invalid value for s: must be a single value');
    expect(says(e, { n: 5 })).toBe('Invalid value for n: must be a single value');
    expect(says(e, { s: { a: 1 } })).toBe('Invalid value for s: must be a single value');
  });

  test('a NUL byte is refused, whatever the type', () => {
    expect(says(e, { s: 'a\u0000b' })).toBe('Invalid value for s: must not contain NUL bytes');
    expect(says(e, { n: '1\u0000' })).toBe('Invalid value for n: must not contain NUL bytes');
  });

  test('text is kept as it came, spaces and case included', () => {
    expect(says(e, { s: '  Mixed Case  ' })).toEqual({ s: '  Mixed Case  ' });
  });

  test('an empty value is absent: a default applies, a required param is missing', () => {
    const withDefault = endpoint({ n: { type: 'integer', default: 5 }, s: { type: 'string' } });
    expect(says(withDefault, { n: '', s: '' })).toEqual({ n: 5 });
    expect(says(endpoint({ s: { type: 'string', required: true } }), { s: '' })).toBe('Missing required parameter: s');
    expect(says(endpoint({ s: { type: 'string', required: true } }), {})).toBe('Missing required parameter: s');
  });

  test('parameters the endpoint does not declare are left out', () => {
    expect(says(e, { s: 'a', other: 'b' })).toEqual({ s: 'a' });
  });
});

describe('text length', () => {
  test('without a maxLength, text is capped at 2,048 characters', () => {
    const e = endpoint({ s: { type: 'string' } });
    expect(says(e, { s: 'x'.repeat(2048) })).toEqual({ s: 'x'.repeat(2048) });
    expect(says(e, { s: 'x'.repeat(2049) })).toBe('Invalid value for s: must be at most 2048 characters');
  });

  test("a param's own maxLength and minLength are told with their numbers", () => {
    const e = endpoint({ s: { type: 'string', minLength: 3, maxLength: 5000 } });
    expect(says(e, { s: 'x'.repeat(5000) })).toEqual({ s: 'x'.repeat(5000) });
    expect(says(e, { s: 'x'.repeat(5001) })).toBe('Invalid value for s: must be at most 5000 characters');
    expect(says(e, { s: 'xx' })).toBe('Invalid value for s: must be at least 3 characters');
    expect(says(e, { s: 'xxx' })).toEqual({ s: 'xxx' });
  });
});

describe('bounds', () => {
  test('both bounds: told together', () => {
    const e = endpoint({ n: { type: 'number', minimum: 0.5, maximum: 2 } });
    expect(says(e, { n: '0.4' })).toBe('Invalid value for n: must be between 0.5 and 2');
    expect(says(e, { n: '2.1' })).toBe('Invalid value for n: must be between 0.5 and 2');
  });

  test('a lower bound alone: "at least"', () => {
    const e = endpoint({ n: { type: 'integer', minimum: 1 } });
    expect(says(e, { n: '0' })).toBe('Invalid value for n: must be at least 1');
    expect(says(e, { n: '-5' })).toBe('Invalid value for n: must be at least 1');
    expect(says(e, { n: '999999999999999' })).toEqual({ n: 999999999999999 });
  });

  test('an upper bound alone: "at most"', () => {
    const e = endpoint({ n: { type: 'integer', maximum: 100 } });
    expect(says(e, { n: '101' })).toBe('Invalid value for n: must be at most 100');
    expect(says(e, { n: '-5' })).toEqual({ n: -5 });
  });

  test('a bound of zero is a bound', () => {
    expect(says(endpoint({ n: { type: 'integer', minimum: 0 } }), { n: '-1' })).toBe('Invalid value for n: must be at least 0');
    expect(says(endpoint({ n: { type: 'integer', maximum: 0 } }), { n: '1' })).toBe('Invalid value for n: must be at most 0');
    expect(says(endpoint({ n: { type: 'integer', minimum: 0, maximum: 0 } }), { n: '1' })).toBe(
      'Invalid value for n: must be between 0 and 0',
    );
  });
});

describe('enums and patterns', () => {
  test('a value outside the enum is told the allowed ones', () => {
    const e = endpoint({ mode: { type: 'string', enum: ['a', 'b', 'c'] } });
    expect(says(e, { mode: 'd' })).toBe('Invalid value for mode: must be one of a, b, c');
    expect(says(e, { mode: 'b' })).toEqual({ mode: 'b' });
  });

  test('a pattern is told by its hint, a hint that starts with "must" as it is, or else by the pattern', () => {
    const hint = endpoint({ s: { type: 'string', pattern: '^[a-z]+$', patternHint: 'lowercase letters' } });
    expect(says(hint, { s: 'A1' })).toBe('Invalid value for s: must be lowercase letters');
    const must = endpoint({ s: { type: 'string', pattern: '^[a-z]+$', patternHint: 'must link to a post' } });
    expect(says(must, { s: 'A1' })).toBe('Invalid value for s: must link to a post');
    const bare = endpoint({ s: { type: 'string', pattern: '^[a-z]+$' } });
    expect(says(bare, { s: 'A1' })).toBe('Invalid value for s: must be in the form ^[a-z]+$');
    expect(says(bare, { s: 'abc' })).toEqual({ s: 'abc' });
  });

  test('a malformed value of an enum with a pattern is told by the pattern, a well-formed stranger by the enum', () => {
    const e = endpoint({ c: { type: 'string', enum: ['USD', 'EUR'], pattern: '^[A-Z]{3}$', patternHint: 'three capital letters' } });
    expect(says(e, { c: 'us dollars' })).toBe('Invalid value for c: must be three capital letters');
    expect(says(e, { c: 'GBP' })).toBe('Invalid value for c: must be one of USD, EUR');
    expect(says(e, { c: 'EUR' })).toEqual({ c: 'EUR' });
  });
});

describe('formats and hosts', () => {
  test('url: an http(s) URL only', () => {
    const e = endpoint({ u: { type: 'string', format: 'url' } });
    expect(says(e, { u: 'https://example.com/a' })).toEqual({ u: 'https://example.com/a' });
    expect(says(e, { u: 'http://example.com' })).toEqual({ u: 'http://example.com' });
    for (const bad of ['ftp://example.com/a', 'example.com', 'not a url', 'javascript:alert(1)'])
      expect(says(e, { u: bad })).toBe('Invalid value for u: must be an http(s) URL');
  });

  test('ip: IPv4 or IPv6', () => {
    const e = endpoint({ a: { type: 'string', format: 'ip' } });
    expect(says(e, { a: '203.0.113.1' })).toEqual({ a: '203.0.113.1' });
    expect(says(e, { a: '2001:db8::1' })).toEqual({ a: '2001:db8::1' });
    for (const bad of ['203.0.113', '256.1.1.1', 'localhost'])
      expect(says(e, { a: bad })).toBe('Invalid value for a: must be an IPv4 or IPv6 address');
  });

  test('domain: a host name, with a scheme, www., a path or a port around it', () => {
    const e = endpoint({ d: { type: 'string', format: 'domain' } });
    expect(says(e, { d: 'https://www.example.com:8080/path' })).toEqual({ d: 'https://www.example.com:8080/path' });
    expect(says(e, { d: 'not a domain' })).toBe('Invalid value for d: must be a domain name such as example.com');
  });

  test('hosts: the host or a subdomain of one of them, in any case; a look-alike is not', () => {
    const e = endpoint({ u: { type: 'string', format: 'url', hosts: ['example.com', 'example.org'] } });
    for (const good of ['https://example.com/x', 'https://m.example.com/x', 'https://EXAMPLE.ORG/x'])
      expect(says(e, { u: good })).toEqual({ u: good });
    for (const bad of ['https://badexample.com/x', 'https://example.com.evil.net/x'])
      expect(says(e, { u: bad })).toBe('Invalid value for u: must be an http(s) URL on example.com, example.org');
    // Not an http(s) URL at all: told so first.
    expect(says(e, { u: 'ftp://example.com/x' })).toBe('Invalid value for u: must be an http(s) URL');
  });

  test('a url with hosts and a pattern: the wrong site is told first, then the pattern', () => {
    const e = endpoint({
      u: { type: 'string', format: 'url', hosts: ['example.com'], pattern: '/post/\\d+', patternHint: 'must link to a post' },
    });
    expect(says(e, { u: 'https://other.net/post/1' })).toBe('Invalid value for u: must be an http(s) URL on example.com');
    expect(says(e, { u: 'https://example.com/user' })).toBe('Invalid value for u: must link to a post');
    expect(says(e, { u: 'https://example.com/post/1' })).toEqual({ u: 'https://example.com/post/1' });
  });

  test('a url with a pattern and no hosts: a non-URL is told it is not one before the pattern', () => {
    const e = endpoint({ u: { type: 'string', format: 'url', pattern: '^https://', patternHint: 'an https link' } });
    expect(says(e, { u: 'mailto:a@b.c' })).toBe('Invalid value for u: must be an http(s) URL');
    expect(says(e, { u: 'http://example.com' })).toBe('Invalid value for u: must be an https link');
  });
});

describe('file parameters', () => {
  const upload: UploadedFile = { field: 'f', path: '/tmp/upload-1', originalName: 'a.txt', size: 1, claimedType: 'text/plain' };

  test('an upload is passed on as it came; text is refused unless the param takes text', () => {
    const e = endpoint({ f: { type: 'file', required: true } });
    expect(says(e, {}, { f: upload })).toEqual({ f: upload });
    expect(says(e, { f: 'text' })).toBe('Invalid value for f: must be a multipart file upload');
    expect(says(e, {})).toBe('Missing required parameter: f');
  });

  test('a file param that takes text: capped at 2,048 characters by default, or its own maxLength', () => {
    const e = endpoint({ f: { type: 'file', orText: true } });
    expect(says(e, { f: 'x'.repeat(2048) })).toEqual({ f: 'x'.repeat(2048) });
    expect(says(e, { f: 'x'.repeat(2049) })).toBe('Invalid value for f: must be at most 2048 characters');
    expect(says(e, {}, { f: upload })).toEqual({ f: upload });
    const own = endpoint({ f: { type: 'file', orText: true, maxLength: 10 } });
    expect(says(own, { f: 'x'.repeat(11) })).toBe('Invalid value for f: must be at most 10 characters');
  });

  test('an upload under another name is not this param', () => {
    expect(says(endpoint({ f: { type: 'file' } }), {}, { g: upload })).toEqual({});
  });
});

describe('defaults', () => {
  test('defaults fill absent params, and a rule sees them', () => {
    const e = endpoint({ mode: { type: 'string', enum: ['a', 'b'], default: 'a' }, q: { type: 'string' } }, [
      { when: { mode: 'a' }, require: ['q'] },
    ]);
    expect(says(e, {})).toBe('Missing required parameter: q');
    expect(says(e, { q: 'x' })).toEqual({ mode: 'a', q: 'x' });
    expect(says(e, { mode: 'b' })).toEqual({ mode: 'b' });
  });

  test('a given value is not replaced by the default', () => {
    expect(says(endpoint({ n: { type: 'integer', default: 5 } }), { n: '6' })).toEqual({ n: 6 });
  });
});

describe('the default words of cross-parameter rules', () => {
  const p = (extra: Partial<Param> = {}): Param => ({ type: 'string', ...extra });

  test('anyOf: the names joined by "or"; a rule message replaces them', () => {
    expect(says(endpoint({ a: p(), b: p(), c: p() }, [{ anyOf: ['a', 'b', 'c'] }]), {})).toBe('Missing required parameter: a or b or c');
    expect(says(endpoint({ a: p() }, [{ anyOf: ['a'] }]), {})).toBe('Missing required parameter: a');
    expect(says(endpoint({ a: p(), b: p() }, [{ anyOf: ['a', 'b'], message: 'Give a or b, please' }]), {})).toBe('Give a or b, please');
  });

  test('exclusive: the second given is told it cannot go with the first, and the choice listed', () => {
    const two = endpoint({ a: p(), b: p() }, [{ exclusive: ['a', 'b'] }]);
    expect(says(two, { a: '1', b: '2' })).toBe('Invalid value for b: cannot be combined with a; give one of a or b');
    expect(says(two, { b: '2' })).toEqual({ b: '2' });
    const three = endpoint({ a: p(), b: p(), c: p() }, [{ exclusive: ['a', 'b', 'c'] }]);
    expect(says(three, { b: '1', c: '2' })).toBe('Invalid value for c: cannot be combined with b; give one of a, b or c');
    expect(says(three, { a: '1', c: '2' })).toBe('Invalid value for c: cannot be combined with a; give one of a, b or c');
  });

  test('require: the first missing one is named', () => {
    const e = endpoint({ m: p(), a: p(), b: p() }, [{ given: ['m'], require: ['a', 'b'] }]);
    expect(says(e, { m: 'x' })).toBe('Missing required parameter: a');
    expect(says(e, { m: 'x', a: '1' })).toBe('Missing required parameter: b');
    expect(says(e, { a: '1' })).toEqual({ a: '1' });
  });

  test('requiredWhen is a require rule under its condition', () => {
    const e = endpoint({ m: p(), a: p({ requiredWhen: { m: 'x' } }) });
    expect(says(e, { m: 'x' })).toBe('Missing required parameter: a');
    expect(says(e, { m: 'y' })).toEqual({ m: 'y' });
  });

  test('forbid: "is not used with" the condition, or the given params; "is only used with" under unless', () => {
    const when = endpoint({ m: p(), a: p() }, [{ when: { m: 'x' }, forbid: ['a'] }]);
    expect(says(when, { m: 'x', a: '1' })).toBe('Invalid value for a: is not used with m=x');
    expect(says(when, { m: 'y', a: '1' })).toEqual({ m: 'y', a: '1' });
    const choices = endpoint({ m: p(), n: p(), a: p() }, [{ when: { m: ['x', 'y'], n: 'z' }, forbid: ['a'] }]);
    expect(says(choices, { m: 'y', n: 'z', a: '1' })).toBe('Invalid value for a: is not used with m=x or y and n=z');
    const unless = endpoint({ m: p(), a: p(), b: p() }, [{ unless: { m: 'x' }, forbid: ['a', 'b'] }]);
    expect(says(unless, { b: '1' })).toBe('Invalid value for b: is only used with m=x');
    expect(says(unless, { m: 'x', a: '1', b: '1' })).toEqual({ m: 'x', a: '1', b: '1' });
    const given = endpoint({ g: p(), h: p(), a: p() }, [{ given: ['g', 'h'], forbid: ['a'] }]);
    expect(says(given, { g: '1', h: '1', a: '1' })).toBe('Invalid value for a: is not used with g and h');
    expect(says(given, { g: '1', a: '1' })).toEqual({ g: '1', a: '1' });
  });

  test('match: "must be in the form" the pattern, with the condition, the given params, or unless', () => {
    const when = endpoint({ m: p(), a: p() }, [{ when: { m: 'x' }, match: { a: '^\\d+$' } }]);
    expect(says(when, { m: 'x', a: 'z' })).toBe('Invalid value for a: must be in the form ^\\d+$ with m=x');
    expect(says(when, { m: 'x', a: '12' })).toEqual({ m: 'x', a: '12' });
    expect(says(when, { m: 'y', a: 'z' })).toEqual({ m: 'y', a: 'z' });
    const given = endpoint({ g: p(), a: p() }, [{ given: ['g'], match: { a: '^\\d+$' } }]);
    expect(says(given, { g: '1', a: 'z' })).toBe('Invalid value for a: must be in the form ^\\d+$ with g');
    const unless = endpoint({ m: p(), a: p() }, [{ unless: { m: 'x' }, match: { a: '^\\d+$' } }]);
    expect(says(unless, { a: 'z' })).toBe('Invalid value for a: must be in the form ^\\d+$ unless m=x');
    expect(says(unless, { m: 'x', a: 'z' })).toEqual({ m: 'x', a: 'z' });
  });

  test('a rule that both forbids and matches names the forbidden param first', () => {
    const e = endpoint({ m: p(), a: p(), b: p() }, [{ when: { m: 'x' }, forbid: ['b'], match: { a: '^\\d+$' } }]);
    expect(says(e, { m: 'x', a: 'z', b: '1' })).toBe('Invalid value for b: is not used with m=x');
    expect(says(e, { m: 'x', a: 'z' })).toBe('Invalid value for a: must be in the form ^\\d+$ with m=x');
  });

  test("a value's own rule is told before a rule between values", () => {
    const e = endpoint({ m: p({ enum: ['x', 'y'] }), a: p() }, [{ when: { m: 'x' }, require: ['a'] }, { anyOf: ['a', 'm'] }]);
    expect(says(e, { m: 'z' })).toBe('Invalid value for m: must be one of x, y');
    expect(says(e, {})).toBe('Missing required parameter: a or m');
  });

  test('a rule past the tenth is found by its number too', () => {
    const rules: Rule[] = Array.from({ length: 10 }, (_, i) => ({ anyOf: ['a'], message: `rule ${i}` }));
    const e = endpoint({ a: p(), b: p() }, [...rules, { exclusive: ['a', 'b'], message: 'rule 10' }]);
    expect(says(e, { a: '1', b: '2' })).toBe('rule 10');
    expect(says(e, {})).toBe('rule 0');
  });

  test('the broken rule is told, not the first rule', () => {
    const e = endpoint({ a: p(), b: p(), c: p() }, [{ anyOf: ['a', 'b'] }, { exclusive: ['a', 'c'] }]);
    expect(says(e, { a: '1', c: '1' })).toBe('Invalid value for c: cannot be combined with a; give one of a or c');
  });
});

describe('messageOf, for errors the compiled schemas rarely raise', () => {
  const e = endpoint({ n: { type: 'integer', minimum: 1 }, s: { type: 'string' } });
  const error = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string): ErrorObject =>
    ({ keyword, instancePath, schemaPath: `#/${keyword}`, params, message }) as ErrorObject;

  test('a value of the wrong type names the type', () => {
    expect(messageOf(e, error('type', '/s', { type: 'string' })).message).toBe('Invalid value for s: must be a string');
  });

  test('an unknown format, and any other keyword, in ajv words or "is not valid"', () => {
    expect(messageOf(e, error('format', '/s', { format: 'binary' })).message).toBe('Invalid value for s: has the wrong format');
    expect(messageOf(e, error('const', '/s', {}, 'must be equal to constant')).message).toBe(
      'Invalid value for s: must be equal to constant',
    );
    expect(messageOf(e, error('const', '/s', {})).message).toBe('Invalid value for s: is not valid');
  });

  test('the param is the first segment of the path', () => {
    expect(messageOf(e, error('minimum', '/n/0', { limit: 1 })).message).toBe('Invalid value for n: must be at least 1');
    expect(messageOf(e, error('required', '', { missingProperty: 's' })).message).toBe('Missing required parameter: s');
  });
});
