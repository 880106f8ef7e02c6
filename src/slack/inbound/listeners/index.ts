/** Registers every listener, keyed by command, action_id and callback_id. */
import type { App } from '@slack/bolt';
import { ALWAYS_VIEW } from '../../blocks/always-modal.js';
import { BATCH_ACTION_IDS } from '../../blocks/batch.js';
import { ALWAYS_ACTION_ID, CLAIM_ACTION_IDS } from '../../blocks/card-policy.js';
import { AWAY_VIEW, HAND_OVER_VIEW } from '../../blocks/claim-modals.js';
import { TASK_ACTION_IDS } from '../../blocks/messages.js';
import { REVISE_VIEW, START_VIEW } from '../../blocks/modals.js';
import { HOME_ACTION_IDS } from '../../blocks/overview.js';
import { QUESTION_ACTION_IDS } from '../../blocks/reply-question.js';
import { ACTION_IDS } from '../../blocks/review-card.js';
import { RULE_ACTION_IDS } from '../../blocks/rule-message.js';
import type { ListenerDeps } from '../deps.js';
import { createHomeRefresh } from '../home-refresh.js';
import { publishHome } from '../overview.js';
import { createAlwaysAction } from './actions/always.js';
import { createBatchDecision, createBatchPick } from './actions/batch.js';
import { createClaimButton } from './actions/claims.js';
import { createDecisionAction } from './actions/decision.js';
import { createHistoryAction } from './actions/history.js';
import { createHomePage } from './actions/home-pages.js';
import { createQuestionAction } from './actions/reply-question.js';
import { createReviseAction } from './actions/revise.js';
import { createRuleButton } from './actions/rule-buttons.js';
import { createTaskControl } from './actions/task-controls.js';
import { createSignoffCommand } from './commands/signoff.js';
import { createAgentStopped } from './events/agent-stopped.js';
import { createAppHome } from './events/app-home.js';
import { createDirectMessage } from './events/direct-message.js';
import { createThreadReply } from './events/thread-reply.js';
import { createAlwaysSubmission } from './views/always.js';
import { createAwaySubmission } from './views/away.js';
import { createHandOverSubmission } from './views/hand-over.js';
import { createReviseSubmission } from './views/revise.js';
import { createStartSubmission } from './views/start.js';

export function registerListeners(app: App, deps: ListenerDeps): void {
  // One per app: the Home tab's opening and its More and Back draw one person's tab in turn.
  const home = createHomeRefresh({
    publish: ({ client, user, after }) => publishHome(deps, client, user, after),
    logger: deps.logger,
    run: (work) => deps.afterAck.run(work),
    stopping: deps.stopping,
  });
  app.command('/signoff', createSignoffCommand(deps));
  app.action(ACTION_IDS.approve, createDecisionAction(deps, 'approve'));
  app.action(ACTION_IDS.reject, createDecisionAction(deps, 'reject'));
  app.action(ACTION_IDS.revise, createReviseAction(deps, 'revise'));
  app.action(ACTION_IDS.edit, createReviseAction(deps, 'edit'));
  app.action(ALWAYS_ACTION_ID, createAlwaysAction(deps));
  for (const action of ['claim', 'release', 'handOver'] as const)
    app.action(CLAIM_ACTION_IDS[action], createClaimButton(deps, action));
  for (const action of ['approve', 'reject', 'revoke'] as const)
    app.action(RULE_ACTION_IDS[action], createRuleButton(deps, action, home));
  for (const choice of ['revise', 'approve', 'reject', 'ignore'] as const)
    app.action(QUESTION_ACTION_IDS[choice], createQuestionAction(deps, choice));
  app.action(TASK_ACTION_IDS.cancel, createTaskControl(deps, 'cancel'));
  app.action(TASK_ACTION_IDS.retry, createTaskControl(deps, 'retry'));
  app.action(TASK_ACTION_IDS.history, createHistoryAction(deps));
  app.action(BATCH_ACTION_IDS.pick, createBatchPick());
  app.action(BATCH_ACTION_IDS.approve, createBatchDecision(deps, 'approve', home));
  app.action(BATCH_ACTION_IDS.reject, createBatchDecision(deps, 'reject', home));
  app.action(HOME_ACTION_IDS.more, createHomePage(deps, home, 'more'));
  app.action(HOME_ACTION_IDS.first, createHomePage(deps, home, 'first'));
  app.view(REVISE_VIEW, createReviseSubmission(deps));
  app.view(START_VIEW, createStartSubmission(deps));
  app.view(ALWAYS_VIEW, createAlwaysSubmission(deps));
  app.view(HAND_OVER_VIEW, createHandOverSubmission(deps));
  app.view(AWAY_VIEW, createAwaySubmission(deps));
  app.event('message', createThreadReply(deps));
  app.event('message', createDirectMessage(deps));
  app.event('app_home_opened', createAppHome(deps, home));
  app.event('agent_session_stopped', createAgentStopped(deps));
}
