/**
 * The seeds' CLI loop: wait until the task settles; at each pending review print it and read one
 * line; decide; repeat until the task ends or the input does. At end of input the task keeps
 * waiting, durably, and the session says how to continue.
 */
import type { Engine } from '../engine/api.js';
import { contentHash } from '../engine/content-hash.js';
import type { Task } from '../engine/types.js';
import { type Decided, parseAnswer } from './answer.js';
import { fillForm } from './form.js';
import { CLI } from './help.js';
import { answerTo, type LineSource } from './lines.js';
import { approvalProgress, type Feed, type Output, printable, statusWords } from './printer.js';

export interface SessionDeps {
  engine: Engine;
  lines: LineSource;
  out: Output;
  actor: string;
  feed: Feed;
}

/** Drives one task in the terminal; returns its status when the session ends. */
export async function runSession(deps: SessionDeps, taskId: string): Promise<Task> {
  const { engine, out } = deps;
  for (;;) {
    const task = await settled(deps, taskId);
    if (task.status !== 'waiting') return finish(out, task);
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
        `Your approval is recorded (${approvalProgress(review)}); the review waits for other reviewers. Continue later with: ${CLI} resume ${taskId}\n`,
      );
      return finish(out, task);
    }
    out.write(`${deps.feed.review(taskId, review)}\n`);
    // Only a line typed once this review is on screen answers it.
    const line = await answerTo(deps.lines, out, '> ');
    if (line === undefined) {
      out.write(`\nTask ${taskId} is waiting for review. Continue later with: ${CLI} resume ${taskId}\n`);
      return finish(out, task);
    }
    const parsed = parseAnswer(line, review);
    if ('error' in parsed) {
      out.write(`${parsed.error}\n`);
      continue;
    }
    let answer: Decided;
    if ('form' in parsed) {
      const form = await fillForm(review.request.fields, deps.lines, out, review.settings.feedback.maxLength);
      if (!form) {
        out.write(`\nTask ${taskId} is waiting for review. Continue later with: ${CLI} resume ${taskId}\n`);
        return finish(out, task);
      }
      answer = { action: 'edit', ...form };
    } else answer = parsed;
    const result = await engine.decide({
      reviewId: review.id,
      taskId,
      actor: { id: deps.actor },
      // What was printed is what is decided: a review whose content changed since is refused.
      contentHash: contentHash(review.request),
      ...answer,
    });
    if (!result.ok) out.write(`${result.message}\n`);
  }
}

/** Waits while the task is working (its run goes on in this process's workers). */
async function settled(deps: SessionDeps, taskId: string): Promise<Task> {
  for (;;) {
    const task = await deps.engine.getTask(taskId);
    if (!task) throw new Error(`task ${taskId} vanished`);
    await deps.feed.pump(taskId);
    if (task.status !== 'working') return task;
    await deps.feed.wait(250);
  }
}

function finish(out: Output, task: Task): Task {
  const reason = task.statusReason ? ` (${printable(task.statusReason)})` : '';
  const hint = task.status === 'failed' ? `; try again with: ${CLI} retry ${task.id}` : '';
  out.write(`task ${task.id}: ${statusWords(task.status)}${reason}${hint}\n`);
  return task;
}
