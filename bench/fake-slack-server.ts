/**
 * The fake Slack Web API in a process of its own, so its load is not timed with the acks. It keeps
 * Slack's published rate limits, as every test's fake does: a benchmark's figures are what a
 * real workspace would show. `FAKE_SLACK_LIMITS=none` turns them off, only for a benchmark whose
 * own setup sends more than Slack would take (and that says why where it asks for it).
 */
import { FakeSlack, NO_LIMITS, PUBLISHED_LIMITS } from '../test/helpers/fake-slack.js';

const slack = new FakeSlack(process.env.FAKE_SLACK_LIMITS === 'none' ? NO_LIMITS : PUBLISHED_LIMITS);
await slack.start();
process.stdout.write(`ready ${slack.url}\n`);
setInterval(() => undefined, 60_000);
