// The typed error a call must fail with: for tests of the engine's parts that throw an ApiError.
import { ApiError } from '../../engine/errors.js';

/** The ApiError a promise rejects with (fails the test if it resolves or throws something else). */
export async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the call to fail');
}
