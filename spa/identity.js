// Signing in and out: the banner any 401 brings up, the token typed there (checked with `GET /approvals`, whose
// answer fills the inbox), and what a sign-in picks up again or a sign-out forgets.

import { explainEndedSignIn, explainProblem } from './access.js';
import { readJson } from './api.js';
import { tokenFrom } from './auth.js';
import { setText } from './render.js';
import { inboxChanged, setSignIn, signedOut } from './store.js';

const RUN_EVENTS = /^\/runs\/[^/]+\/events(?:[?#]|$)/;

export function mountIdentity(page) {
  const { store, els, api, credentials } = page;
  const state = () => store.state;

  /**
   * Any 401, whichever request got it: the token sent, if any, is no good; ask for one in the refusal's words.
   * A token that worked before (`ended`) was revoked or expired: the sign-in ended, and if that cut the stream
   * of a run (a reconnect to its events), the run goes on without this page.
   */
  async function askToSignIn(response, tokenSent, { url = '', ended = false } = {}) {
    const problem = await readJson(response);
    if (tokenSent !== null && tokenSent === credentials.token) credentials.signOut();
    if (credentials.token !== null) return; // signed in again while that answer was on its way
    const focused = state().signIn !== null;
    const message = ended
      ? explainEndedSignIn(problem, { watching: RUN_EVENTS.test(url) })
      : explainProblem(401, problem).detail;
    store.update(setSignIn, { message, checking: false });
    if (!focused) els.token.focus();
  }

  /** Take the token typed in, and check it with `GET /approvals`, whose answer fills the inbox too. */
  async function signIn() {
    const token = tokenFrom(els.token.value);
    if (token === null) {
      const message = 'Paste the access token you were given: one word, without spaces.';
      store.update(setSignIn, { message, checking: false });
      return;
    }
    credentials.signIn(token);
    store.update(setSignIn, { ...state().signIn, checking: true });
    const answer = await api.approvals();
    if (answer.status === 401) return; // askToSignIn has said why
    els.token.value = '';
    page.inbox.take(answer);
    store.update(setSignIn, null);
    if (state().inbox.approvals.length > 0) store.update(inboxChanged, { open: true });
    els.input.focus();
    page.recentThreads.refresh(); // the subject's own, now that the service knows who asks
    // what the 401 interrupted: a run being watched, or the one a reload was to pick up
    if (state().lost) page.turns.reconnectNow();
    else if (state().run === null) page.turns.resumeActiveRun();
  }

  function signOut() {
    credentials.signOut();
    state().jsonRequest?.abort();
    page.turns.resetConversation(); // the conversation was the signed-out subject's
    store.update(signedOut, 'Signed out. Sign in to continue.');
    els.token.focus();
  }

  els.signIn.addEventListener('submit', (event) => {
    event.preventDefault();
    signIn();
  });
  els.signOut.addEventListener('click', signOut);

  return {
    askToSignIn,
    render(current) {
      els.signIn.hidden = current.signIn === null;
      setText(els.authMessage, current.signIn?.message ?? '');
      els.signInButton.disabled = Boolean(current.signIn?.checking);
      els.signOut.hidden = !(credentials.token !== null && current.signIn === null);
    },
  };
}
