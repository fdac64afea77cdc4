// The approvals inbox, a tab of the side column while signed in: its button counting what waits (`GET /approvals`),
// the panel it opens, and a decision taken there (see inbox.js for the requests and the drawing).

import { explainProblem } from './access.js';
import { decisionNote, decisionSettles, pendingApprovals, renderInbox, sendDecision, withoutApproval } from './inbox.js';
import { setText } from './render.js';
import { inboxChanged } from './store.js';

export function mountInboxPanel(page) {
  const { doc, store, els, api, credentials } = page;
  const state = () => store.state;

  async function refresh() {
    if (credentials.token === null) return;
    take(await api.approvals());
    page.render();
  }

  /** An answer of `GET /approvals` taken in: the approvals pending, or why they could not be read. */
  function take(answer) {
    if (answer.ok) {
      store.update(inboxChanged, { approvals: pendingApprovals(answer.body), loaded: true, problem: '' });
    } else if (answer.status !== 401) {
      const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
      store.update(inboxChanged, { problem: `The approvals could not be loaded: ${detail}` });
    }
  }

  function toggle() {
    store.update(inboxChanged, { open: !state().inbox.open });
    if (state().inbox.open) {
      els.inbox.focus();
      refresh();
    }
  }

  /**
   * Approve or reject from the inbox: `POST /chat/resume` without a session (an approver's way), or for a registered
   * graph's interrupt its thread's next run with `command.resume`; the item then leaves.
   */
  async function decide(button) {
    const item = button.closest('[data-role=inbox-item]');
    const approvalId = item.getAttribute('data-approval-id');
    const approval = state().inbox.approvals.find((candidate) => candidate.approval_id === approvalId);
    if (!approval) return;
    const decision = button.getAttribute('data-decision');
    const buttons = item.querySelectorAll('button');
    for (const each of buttons) each.disabled = true;
    setText(item.querySelector('[data-region=inbox-error]'), '');
    const answer = await sendDecision(api, approval, decision);
    const note = decisionNote(approval, decision, answer);
    if (decisionSettles(answer.status)) {
      const hadFocus = item.contains(doc.activeElement);
      store.update(inboxChanged, { approvals: withoutApproval(state().inbox.approvals, approvalId), note });
      if (hadFocus) els.inbox.focus();
    } else {
      for (const each of buttons) each.disabled = false;
      setText(item.querySelector('[data-region=inbox-error]'), note);
    }
    await refresh();
  }

  els.inboxToggle.addEventListener('click', toggle);
  els.inboxRefresh.addEventListener('click', refresh);
  els.inboxList.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-decision]');
    if (button && !button.disabled) decide(button);
  });
  doc.addEventListener('visibilitychange', () => {
    if (doc.visibilityState === 'visible') refresh();
  });

  return {
    refresh,
    take,
    render(current) {
      const { inbox } = current;
      const signedIn = credentials.token !== null && current.signIn === null; // a token being checked is not yet
      els.inboxToggle.hidden = !signedIn;
      els.inbox.hidden = !signedIn || !inbox.open;
      const count = inbox.approvals.length;
      els.inboxToggle.setAttribute('data-count', String(count));
      els.inboxToggle.setAttribute('aria-expanded', String(inbox.open));
      setText(els.inboxToggle, count > 0 ? `Approvals (${count})` : 'Approvals');
      els.inboxEmpty.hidden = count > 0 || !inbox.loaded;
      renderInbox(doc, els.inboxList, inbox.approvals);
      setText(els.inboxNote, inbox.problem || inbox.note);
    },
  };
}
