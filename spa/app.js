// The page: mounts its parts on one store and redraws them whenever the store's state changes. Each part is what a
// person sees: the run view (the live graph, outcome, connection), the transcript, the composer, the approval card,
// the replay of a recorded run, the assistant picker, the recent threads, the sign-in and the approvals inbox, and
// the eval report viewer (report-view.js, in its own section). The turn on screen and how its run is followed is
// turns.js. The support agent is talked to through `/chat`; any other registered graph through a thread of the
// Agent Protocol (`POST /threads/{id}/runs`), its run followed on `GET /runs/{id}/events` like any other.

import { mountApproval } from './approval.js';
import { mountComposer } from './composer.js';
import { mountIdentity } from './identity.js';
import { mountInboxPanel } from './inbox-panel.js';
import { createPage } from './page.js';
import { mountPicker } from './picker.js';
import { mountRecentThreads } from './recent-threads.js';
import { mountReplayView } from './replay-view.js';
import { mountReportViewer } from './report-view.js';
import { mountRunView } from './run-view.js';
import { mountTranscript } from './transcript.js';
import { mountTurns } from './turns.js';

const doc = document;
const page = createPage(doc, { onUnauthorized: (...args) => page.identity.askToSignIn(...args) });
page.identity = mountIdentity(page);
page.inbox = mountInboxPanel(page);
page.picker = mountPicker(page);
page.recentThreads = mountRecentThreads(page);
page.runView = mountRunView(page);
page.transcript = mountTranscript(page);
page.turns = mountTurns(page);
page.approval = mountApproval(page);
mountComposer(page);
mountReplayView(page);

/** Every part drawn from the state, in the page's order. */
page.render = () => {
  const { state } = page.store;
  for (const part of [page.identity, page.inbox, page.picker, page.recentThreads, page.runView, page.transcript]) {
    part.render(state);
  }
};
page.store.subscribe(page.render);

mountReportViewer(doc, page.els.reports);
page.render();
doc.documentElement.setAttribute('data-ready', 'true');
page.turns.resumeActiveRun();
page.inbox.refresh();
page.recentThreads.refresh();
