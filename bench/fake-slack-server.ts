/**
 * The fake Slack Web API in a process of its own, so its load is not timed with the acks.
 * `FAKE_SLACK_LIMITS=published` makes it enforce Slack's published rate limits.
 */
import { FakeSlack, PUBLISHED_LIMITS } from '../test/helpers/fake-slack.js';

const slack = new FakeSlack(process.env.FAKE_SLACK_LIMITS === 'published' ? PUBLISHED_LIMITS : {});
await slack.start();
process.stdout.write(`ready ${slack.url}\n`);
setInterval(() => undefined, 60_000);
