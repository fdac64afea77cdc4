// The approvals inbox: the pending approvals `GET /approvals` answers (the ones the caller may decide,
// across sessions for an approver), drawn as a keyed list whose items are approved or rejected where
// they stand, and the words for how a decision taken there went. No module state; app.js owns the list.

import { explainProblem } from './access.js';
import { formatMoment } from './format.js';
import { h, syncList } from './render.js';

/** The approvals of a `GET /approvals` answer that can be shown and decided; malformed entries are left out. */
export function pendingApprovals(body) {
  const approvals = Array.isArray(body?.approvals) ? body.approvals : [];
  return approvals.filter(
    (item) =>
      isObject(item) &&
      isNonEmpty(item.run_id) &&
      isNonEmpty(item.approval_id) &&
      (!isGraphApproval(item) || isNonEmpty(item.session_id)),
  );
}

/** A registered graph's interrupt (it names its graph): decided through the Agent Protocol, not `/chat/resume`. */
export function isGraphApproval(approval) {
  return isNonEmpty(approval?.graph_id);
}

/**
 * Send a decision taken from the inbox, the way its run takes it: a registered graph's interrupt as the next run
 * of its thread carrying `command.resume` (`POST /threads/{session_id}/runs`, which continues the same run), keyed
 * by the interrupt's id when the approval names one (a run may wait at several: this answers that one alone);
 * every other approval with `POST /chat/resume` without a session (an approver's way). Answers `{ok, status, body}`.
 */
export function sendDecision(api, approval, decision, comment = '') {
  if (isGraphApproval(approval)) {
    const value = comment ? { decision, comment } : { decision };
    const resume = isNonEmpty(approval.interrupt_id) ? { [approval.interrupt_id]: value } : value;
    const assistantId = isNonEmpty(approval.assistant_id) ? approval.assistant_id : approval.graph_id;
    return api.startRun(approval.session_id, { assistant_id: assistantId, command: { resume } });
  }
  const body = { run_id: approval.run_id, approval_id: approval.approval_id, decision };
  if (comment) body.comment = comment;
  return api.resume(body);
}

export function withoutApproval(approvals, approvalId) {
  return approvals.filter((item) => item.approval_id !== approvalId);
}

/**
 * Whether the answer to a decision taken from the inbox takes the item out of it: the decision went
 * through (200), someone decided first (409), or the run is gone (404). A refusal (401, 403) or a
 * failure leaves it there to try again.
 */
export function decisionSettles(status) {
  return status === 200 || status === 409 || status === 404;
}

/** One line on how a decision on `approval` went, from the answer to `sendDecision`. */
export function decisionNote(approval, decision, { status, body }) {
  const what = `“${approval.summary || approval.action}”`;
  if (status === 200) return `You ${decision === 'approve' ? 'approved' : 'rejected'} ${what}.`;
  if (status === 409) return `${what} was already decided.`;
  return explainProblem(status, body)?.detail || `The decision on ${what} failed (HTTP ${status}).`;
}

/** Draw the inbox in place, keyed by approval id, so an item being decided keeps its state and focus. */
export function renderInbox(doc, list, approvals) {
  syncList(doc, list, approvals, {
    key: (approval) => approval.approval_id,
    create: (approval) => inboxItem(doc, approval),
    update: () => {},
  });
}

export function inboxItem(doc, approval) {
  const titleId = `inbox-title-${approval.approval_id}`;
  const asker = approval.requested_by ? `asked by ${approval.requested_by}, ` : 'asked ';
  return h(
    doc,
    'li',
    {
      class: 'inbox-item',
      'data-role': 'inbox-item',
      'data-run-id': approval.run_id,
      'data-approval-id': approval.approval_id,
      ...(isGraphApproval(approval) ? { 'data-graph-id': approval.graph_id } : {}),
      'aria-labelledby': titleId,
    },
    [
      h(doc, 'p', { class: 'approval-summary', id: titleId }, [approval.summary || approval.action]),
      h(doc, 'p', { class: 'approval-action' }, [
        'Action: ',
        h(doc, 'code', {}, [approval.action]),
        ...(isGraphApproval(approval) ? [' · graph ', h(doc, 'code', {}, [approval.graph_id])] : []),
        ` · ${asker}`,
        h(doc, 'time', { datetime: approval.requested_at }, [formatMoment(approval.requested_at)]),
      ]),
      h(doc, 'div', { class: 'approval-buttons' }, [
        h(doc, 'button', { type: 'button', 'data-decision': 'approve', class: 'primary' }, ['Approve']),
        h(doc, 'button', { type: 'button', 'data-decision': 'reject', class: 'danger' }, ['Reject']),
      ]),
      h(doc, 'p', { class: 'approval-error', role: 'alert', 'data-region': 'inbox-error' }),
    ],
  );
}

function isObject(value) {
  return typeof value === 'object' && value !== null;
}

function isNonEmpty(value) {
  return typeof value === 'string' && value !== '';
}
