import { ApiError, missingParam } from '../engine/errors.js';
test('jest runs ESM TypeScript', () => {
  const e = missingParam('q');
  expect(e).toBeInstanceOf(ApiError);
  expect(e.status).toBe(400);
  expect(e.message).toBe('Missing required parameter: q');
});
