/** The fake Slack Web API in a process of its own, so its load is not timed with the acks. */
import { FakeSlack } from '../test/helpers/fake-slack.js';

const slack = new FakeSlack();
await slack.start();
process.stdout.write(`ready ${slack.url}\n`);
setInterval(() => undefined, 60_000);
