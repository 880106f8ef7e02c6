/**
 * A tap on a reply's private question (blocks/reply-question.ts): ack, check that the question
 * holds together (decide.ts's `questionReview`), decide with the reply's words as they were
 * recorded, and replace the question with what happened. The engine refuses a review that is
 * closed or changed since the question was asked, in its own words.
 */
import {
  carriesWords,
  fitsAsWords,
  NOTHING_DONE,
  type QuestionChoice,
  questionAnswered,
  questionChoices,
} from '../../../blocks/reply-question.js';
import { decideFromSlack, NOT_THIS_CARD, questionReview } from '../../decide.js';
import { type ButtonArgs, COULD_NOT_RECORD, type ListenerDeps } from '../../deps.js';
import { tellClicker } from '../../tell-clicker.js';

const TOO_LONG =
  'Nothing was done: your reply is too long to send as is. Shorten it and reply again, or use the card.';

export function createQuestionAction(deps: ListenerDeps, choice: QuestionChoice) {
  return async ({ ack, body, action: button, client, respond }: ButtonArgs) => {
    await ack();
    const channel = body.channel?.id ?? body.container?.channel_id;
    const user = body.user.id;
    // The question is the author's alone: it is replaced by what happened. Should its response
    // URL fail (used up or expired), the sentence still reaches them.
    const tell = async (text: string) => {
      try {
        await respond({ replace_original: true, text });
      } catch (err) {
        deps.logger.warn({ err }, 'could not replace the question');
        await tellClicker({ client, logger: deps.logger }, { channel, user })(text);
      }
    };
    await deps.afterAck.run(async () => {
      try {
        const found = await questionReview(deps, button.value, { channel, user });
        if (!found || !channel) return void (await tell(NOT_THIS_CARD));
        if (choice === 'ignore') return void (await tell(NOTHING_DONE));
        const { click, reply } = found;
        // Only what a question about this review offers: never an approval or an edit of a tool call.
        const review = (await deps.engine.review(click.review))?.review;
        if (!review || !questionChoices(review, review.request.actions).includes(choice))
          return void (await tell(NOT_THIS_CARD));
        // The reply is the feedback of a revise, and the message of a tool call's reject; the
        // card's Reject carries no words, nor does the question's for other reviews.
        const words = carriesWords(review, choice);
        // Never offered for a reply over the review's limit (replies.ts keeps only its start).
        if (words && !fitsAsWords(review, reply.text)) return void (await tell(TOO_LONG));
        const result = await decideFromSlack(
          deps,
          client,
          {
            click,
            user,
            channel,
            action: choice,
            feedback: words ? reply.text : undefined,
            // Whose workspace the tap came from, as for a click on the card: it is this tap that
            // decides, whatever the reply's event said of its author.
            team: body.user.team_id,
          },
          tell,
        );
        if (result && result.review.status !== 'pending') await tell(questionAnswered(result.review, choice));
      } catch (error) {
        deps.logger.error({ err: error }, 'question click failed');
        await tell(COULD_NOT_RECORD);
      }
    });
  };
}
