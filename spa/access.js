// Plain words for the answers of a service with identity on: no token or a bad one (401), a sign-in that
// ended (a 401 for a token taken before: revoked or expired), a decision the caller may not take (403), a
// run or conversation that does not exist for the caller (404; another subject's looks exactly like a
// missing one, on purpose). Problems of any other kind pass through as they are.

const SIGN_IN = {
  token_missing: 'Sign in to continue: this service needs an access token.',
  token_unknown: 'That access token was not accepted. Check it and sign in again.',
  token_malformed: 'That access token was not accepted. Check it and sign in again.',
  token_expired: 'Your access token has expired. Sign in again with a new one.',
  token_not_yet_valid: 'Your access token is not valid yet. Sign in again later, or with another one.',
};
const SIGN_IN_AGAIN = 'Your access token was not accepted. Sign in again.';

const ENDED = {
  token_expired: 'Your sign-in has ended: your access token expired.',
  token_unknown: 'Your sign-in has ended: your access token was withdrawn.',
};
const ENDED_OTHERWISE = 'Your sign-in has ended: your access token is no longer accepted.';

const FORBIDDEN = {
  not_an_approver: 'Only approvers decide: your decision was not recorded.',
  not_the_owner: 'Only the owner of this run may do that.',
};

const NOT_FOUND = {
  run_not_found: 'This run does not exist, or it is not yours.',
  session_not_found: 'This conversation does not exist, or it is not yours: your next message starts a new one.',
  approval_not_found: 'This approval does not exist, or it is not yours to decide.',
};

/** The problem with its `detail` in plain words when it is one of identity's; otherwise the problem unchanged. */
export function explainProblem(status, problem) {
  const body = problem !== null && typeof problem === 'object' ? problem : {};
  const detail = plainWords(status, typeof body.code === 'string' ? body.code : '');
  return detail === null ? problem : { ...body, detail };
}

/**
 * Plain words for a 401 answering a token the service had taken before: the sign-in ended (the token was
 * revoked or expired), it was not mistyped. `watching`: it cut the stream of a run, which goes on.
 */
export function explainEndedSignIn(problem, { watching = false } = {}) {
  const code = problem !== null && typeof problem === 'object' && typeof problem.code === 'string' ? problem.code : '';
  const why = ENDED[code] ?? ENDED_OTHERWISE;
  return watching
    ? `${why} The run goes on without this page: sign in again to keep watching it.`
    : `${why} Sign in again to continue.`;
}

function plainWords(status, code) {
  if (status === 401) return SIGN_IN[code] ?? SIGN_IN_AGAIN;
  if (status === 403) return FORBIDDEN[code] ?? 'You are not allowed to do that.';
  if (status === 404) return NOT_FOUND[code] ?? null;
  return null;
}
