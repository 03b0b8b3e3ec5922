// How one answer of an endpoint counts for its health. Only failures on the service's side count against
// it: a caller's mistake (400, 401, 404, 429) says nothing of the upstream. An upstream that answered in a
// shape its adapter does not read (upstream_changed) is told apart from one that is down, so the status
// page and the operator can tell a moved API from a dead one.
export type Verdict = 'ok' | 'fail' | 'changed';

/** The verdict of an answer, or undefined when it says nothing of the endpoint's health. */
export function verdictOf(status: number, code: string | undefined): Verdict | undefined {
  if (status < 400) return 'ok';
  if (code === 'upstream_changed') return 'changed';
  // An endpoint this server cannot serve is "not configured" on the page, not failing.
  if (code === 'not_configured' || code === 'not_implemented') return undefined;
  if (status >= 500) return 'fail';
  return undefined;
}
