// The authorize step, after the meter so that refused keys are counted and answered with the headers:
// 401 without a key or with a wrong one, 400 for two different keys, 503 when the key store cannot say.
import type { Call } from '../call.js';
import type { Next } from '../chain.js';
import { ApiError, upstreamBusy } from '../../errors.js';

export function authorize(call: Call, next: Next) {
  const id = call.identity!;
  // A body too large to read without a key may hold the key: the 413 says where to send it instead.
  if (id.status === 'missing')
    return next(
      call.input?.error?.code === 'payload_too_large' ? call.input.error : new ApiError('missing_key', 'Missing apikey parameter'),
    );
  if (id.status === 'invalid') return next(new ApiError('invalid_key', 'Invalid apikey'));
  if (id.status === 'unavailable') return next(upstreamBusy('The key store is unavailable; try again shortly', 5));
  if (id.status === 'ambiguous')
    return next(new ApiError('bad_input', 'Invalid value for apikey: several different keys were sent; send one'));
  next();
}
