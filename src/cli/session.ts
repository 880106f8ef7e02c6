/**
 * The seeds' CLI loop: wait until the task settles; at each pending review print it and read one
 * line; decide; repeat until the task ends or the input does. At end of input the task keeps
 * waiting, durably, and the session says how to continue.
 */
import type { Engine, Review, Task } from '../engine/index.js';
import { contentHash, DecisionRefused, invalidEdit, operator } from '../engine/index.js';
import { isSignoffError } from '../errors.js';
import { alwaysAllow } from './always-allow.js';
import { answerHelp, type Decided, parseAnswer, parseFeedback } from './answer.js';
import { lowerFirst } from './choices.js';
import { fillForm } from './form.js';
import { CLI } from './help.js';
import { answerTo, type LineSource } from './lines.js';
import { approvalProgress, type Feed, type Output, printable, statusWithReason } from './printer.js';

export interface SessionDeps {
  engine: Engine;
  lines: LineSource;
  out: Output;
  actor: string;
  feed: Feed;
  /** Aborted when the process stops (Ctrl-C): a session waiting on a working task ends then. */
  stopping?: AbortSignal;
  /**
   * False when the task ends with the process (a scenario's database is dropped after its run):
   * no hint then names a command to continue a task that will not exist.
   */
  kept?: boolean;
  /** The command as hints name it (help.ts's commandWith); `npx signoff` when not given. */
  cli?: string;
}

/** Drives one task in the terminal; returns its status when the session ends. */
export async function runSession(deps: SessionDeps, taskId: string): Promise<Task> {
  const { engine, out } = deps;
  let quiet: { id: string; hash: string } | undefined;
  for (;;) {
    const task = await settled(deps, taskId);
    // Stopping while it works (Ctrl-C): its step is cut short here and goes on later. The last
    // line on stdout still says where the task stands, as every session's does, for a script.
    if (task.status === 'working')
      return finish(
        deps,
        task,
        deps.kept === false
          ? 'stopped here'
          : `stopped here; it goes on from its last step with: ${command(deps)} resume ${taskId}`,
      );
    if (task.status !== 'waiting') return finish(deps, task);
    const pending = await engine.reviews(taskId, 'pending');
    // A review may be decided elsewhere (another terminal) between the list and the answer.
    const review = pending[0];
    if (!review) {
      await deps.feed.wait(200);
      continue;
    }
    // N of M: this person's approval is in; the rest is other reviewers' to give, not this prompt's.
    if (review.approvals.some((a) => a.by === deps.actor)) {
      out.write(
        `Your approval is recorded (${approvalProgress(review)}); the review waits for other reviewers.${deps.kept === false ? '' : ` Continue later with: ${command(deps)} resume ${taskId}`}\n`,
      );
      return finish(deps, task);
    }
    // After `help`, the same review is not printed again: the list would scroll away.
    const hash = contentHash(review.request);
    if (quiet?.id !== review.id || quiet.hash !== hash) out.write(`${deps.feed.review(taskId, review)}\n`);
    quiet = undefined;
    // Only a line typed once this review is on screen answers it. While the prompt waits, what
    // happens to the review is shown (a reminder, a timer's decision, another terminal's), and a
    // review that no longer waits on this prompt gives it up: the card on screen is out of date.
    const watch = new AbortController();
    const watching = watchReview(deps, taskId, review, watch);
    let line: string | undefined;
    try {
      line = await answerTo(deps.lines, out, '> ', watch.signal);
    } catch (error) {
      if (!watch.signal.aborted || error !== watch.signal.reason) throw error;
      // Lines printed above an unchanged review: the prompt again, without the card again.
      if (error === NEW_LINES) quiet = { id: review.id, hash };
      else out.write('\n');
      continue;
    } finally {
      watch.abort(STOPPED_WATCHING);
      await watching;
    }
    if (line === undefined) return await inputEnded(deps, taskId);
    // A workflow's name typed alone, or after `run`, reads like a command, not feedback.
    const parsed = parseAnswer(
      line,
      review,
      engine.available().map((w) => w.name),
    );
    if ('error' in parsed) {
      out.write(`${parsed.error}\n`);
      continue;
    }
    if ('help' in parsed) {
      const task = await engine.getTask(taskId);
      const always = Boolean(task && engine.rules.scopes(review, task).length);
      out.write(answerHelp(review, `${command(deps)} resume ${taskId}`, always));
      quiet = { id: review.id, hash };
      continue;
    }
    if ('quit' in parsed) return await inputEnded(deps, taskId);
    if ('always' in parsed) {
      if ((await alwaysAllow(deps, taskId, review)) === 'ended') return await inputEnded(deps, taskId);
      continue;
    }
    let answer: Decided;
    if ('cancel' in parsed) {
      const ended = await cancelAsked(deps, taskId);
      if (ended) return ended;
      continue;
    }
    if ('feedback' in parsed && parsed.feedback === true) {
      const given = await feedbackFor(deps, review);
      if (given === 'ended') return await inputEnded(deps, taskId);
      if (!given) continue;
      answer = given;
    } else if ('form' in parsed) {
      const form = await fillForm(
        review.request.fields,
        deps.lines,
        out,
        review.settings.feedback.maxLength,
        (values) => invalidEdit(review.request, values),
      );
      if (!form) return await inputEnded(deps, taskId);
      if ('unchanged' in form) {
        out.write(
          `Nothing changed in the arguments, so nothing was decided. Back to the review${review.request.actions.includes('approve') ? ': type "approve" to approve them as shown' : ''}.\n`,
        );
        continue;
      }
      if ('left' in form) {
        out.write('Nothing was decided. Back to the review.\n');
        continue;
      }
      answer = { action: 'edit', ...form };
    } else answer = parsed;
    try {
      await engine.decide({
        reviewId: review.id,
        taskId,
        actor: { id: deps.actor },
        // What was printed is what is decided: a review whose content changed since is refused.
        contentHash: contentHash(review.request),
        ...answer,
      });
    } catch (error) {
      // Refused (closed meanwhile, changed since it was printed, …): said, and asked again.
      if (!(error instanceof DecisionRefused)) throw error;
      out.write(`${error.message}\n`);
    }
  }
}

/**
 * `revise` alone: the next line is the feedback. An empty line (or `quit`) goes back to the review
 * and decides nothing; a line that is a choice or a command rather than feedback is said to be,
 * and the feedback asked again: the Enter typed after it goes back, never approves. 'ended' at
 * end of input.
 */
async function feedbackFor(deps: SessionDeps, review: Review): Promise<Decided | 'ended' | undefined> {
  // In the review's own words where its Revise asks for something else (a proposal's query).
  const asked = review.request.feedbackLabel ?? 'your feedback (what should change)';
  deps.out.write(`Type ${lowerFirst(asked)} and press Enter; an empty line goes back to the review.\n`);
  for (;;) {
    const line = await answerTo(deps.lines, deps.out, 'feedback> ');
    if (line === undefined) return 'ended';
    const read = parseFeedback(
      line,
      review,
      deps.engine.available().map((w) => w.name),
    );
    if ('action' in read) return read;
    if ('back' in read) {
      deps.out.write(`${read.back}\n`);
      return undefined;
    }
    deps.out.write(`${read.again}\n`);
  }
}

/**
 * What confirms a cancel: the answer to the question asked ("yes"), or the word again. Both are
 * said in the question; anything else ("y", Enter) goes back to the review, since a cancel ends the task.
 */
const CONFIRM_CANCEL = ['yes', 'cancel'];

/** `cancel` at a review: asked once more, since it ends the task; the task when it ended. */
async function cancelAsked(deps: SessionDeps, taskId: string): Promise<Task | undefined> {
  const line = await answerTo(
    deps.lines,
    deps.out,
    `Cancel task ${taskId}? It ends now and its review closes without a decision. Type "yes" (or "cancel" again) to confirm; anything else goes back to the review: `,
  );
  if (line === undefined) return await inputEnded(deps, taskId);
  if (!CONFIRM_CANCEL.includes(line.trim().toLowerCase())) {
    deps.out.write('Not cancelled. Back to the review.\n');
    return undefined;
  }
  try {
    await deps.engine.cancel(taskId, operator(deps.actor));
  } catch (error) {
    if (!isSignoffError(error)) throw error;
    deps.out.write(`${error.message}\n`);
  }
  return undefined;
}

/**
 * The input ended (end of file, Ctrl-C) at a review: where the task stands now, read afresh, since
 * another terminal may have decided it meanwhile (then it is working, or done).
 */
async function inputEnded(deps: SessionDeps, taskId: string): Promise<Task> {
  const task = await deps.engine.getTask(taskId);
  if (!task) throw new Error(`task ${taskId} vanished`);
  await deps.feed.pump(taskId);
  const resume = `${command(deps)} resume ${taskId}`;
  if (deps.kept === false) return finish(deps, task);
  if (task.status === 'waiting')
    deps.out.write(`\nTask ${taskId} is waiting for review. Continue later with: ${resume}\n`);
  else if (task.status === 'working')
    deps.out.write(`\nTask ${taskId} was decided elsewhere and is working. Follow it with: ${resume}\n`);
  return finish(deps, task);
}

/** Waits while the task is working (its run goes on in this process's workers), or until the process stops. */
const STOPPED_WATCHING = new Error('the prompt was answered');
const WATCH_MS = 1000;

/**
 * While the prompt waits on `review`: shows the task's new events as they come and aborts
 * `watch` once the review changed (decided by a timer or elsewhere, escalated, an approval or an
 * edit counted): what is on screen is then not what an answer would be about.
 */
async function watchReview(deps: SessionDeps, taskId: string, review: Review, watch: AbortController) {
  const shown = contentHash(review.request);
  while (!watch.signal.aborted) {
    const delivered = await deps.feed.wait(WATCH_MS);
    if (watch.signal.aborted) return;
    const now = (await deps.engine.reviews(taskId, 'pending')).find((r) => r.id === review.id);
    const same =
      now &&
      contentHash(now.request) === shown &&
      now.approvals.length === review.approvals.length &&
      now.dueAt === review.dueAt;
    if (watch.signal.aborted) return;
    // The same review, but something said about it (a reminder): shown now, then the prompt again.
    // Only read when something was delivered: a quiet prompt reads no events every second.
    if (same && !(delivered && (await deps.feed.unseen(taskId)))) continue;
    if (watch.signal.aborted) return;
    deps.out.write('\n');
    await deps.feed.pump(taskId);
    watch.abort(same ? NEW_LINES : new Error('the review changed'));
  }
}

/** Why a prompt was given up when its review did not change: lines about it were printed above it. */
const NEW_LINES = new Error('the task has new lines');

async function settled(deps: SessionDeps, taskId: string): Promise<Task> {
  for (;;) {
    const task = await deps.engine.getTask(taskId);
    if (!task) throw new Error(`task ${taskId} vanished`);
    await deps.feed.pump(taskId);
    if (task.status !== 'working' || deps.stopping?.aborted) return task;
    await deps.feed.wait(250);
  }
}

/**
 * The session's last line: `task <id>: <status> (<why>)`; `why` when the task says nothing itself.
 * A reason the line just above said (`[failed: …]`) is not said twice.
 */
function finish(deps: Pick<SessionDeps, 'out' | 'feed' | 'kept' | 'cli'>, task: Task, why?: string): Task {
  const shown = task.statusReason && deps.feed.saidStatus(task.id, task.status, task.statusReason);
  const said = task.statusReason
    ? shown
      ? undefined
      : deps.feed.inWords(task.id, printable(task.statusReason))
    : why;
  const hint =
    task.status === 'failed' && deps.kept !== false
      ? `; try again with: ${command(deps)} retry ${task.id}`
      : '';
  deps.out.write(`task ${task.id}: ${statusWithReason(task.status, said, [' (', ')'])}${hint}\n`);
  return task;
}

const command = (deps: Pick<SessionDeps, 'cli'>) => deps.cli ?? CLI;
