// required(): a param a catalog rule requires in the case the adapter is in, or the rule's own 400.
import { required } from '../../../engine/catalog/required.js';

interface P {
  mode?: 'a' | 'b';
  chapter?: number;
  flag?: boolean;
}

test('gives the value, falsy ones included', () => {
  const params: P = { chapter: 0, flag: false, mode: 'b' };
  expect(required(params, 'chapter')).toBe(0);
  expect(required(params, 'flag')).toBe(false);
  expect(required(params, 'mode')).toBe('b');
});

test('an absent one is the 400 a missing required parameter gets', () => {
  const params: P = {};
  expect(() => required(params, 'chapter')).toThrow(
    expect.objectContaining({ status: 400, code: 'bad_input', message: 'Missing required parameter: chapter' }),
  );
});
