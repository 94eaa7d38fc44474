// What one input job does: a slash command, a message to the agent, or Retry of the failed turn (docs/behaviour.md#errors).
import type { ChatFacade } from '../../node/chatFacade.js';
import { ephemeralId } from '../base/itemIds.js';
import type { Attachment } from '../../protocol/messages.js';
import type { ImagePart } from '../../engine/transcript/schema.js';
import type { JobRun } from './chatPorts.js';
import type { InputJob } from './jobQueue.js';

export interface TurnInputHost {
  /** The running agent's facade when a model is set up. */
  readonly facade: ChatFacade | undefined;
  /** Why no model is available, in words. */
  readonly problem: string | undefined;
  /** What the user typed, shown when it is not a model turn. */
  echo(text: string, clientId: string | undefined): void;
  fail(text: string): void;
  /** The next turn belongs to this `send` (the projection matches its pending bubble). */
  turnStarts(clientId: string | undefined): void;
  /** A turn ended: the checkpoints tree lists its message. */
  turnEnded(): void;
}

/** A message or command (`run`); `untyped` (palette, toolbar) is listed as `text` while queued but never echoed as the user's message. */
export function inputJob(
  text: string,
  run: JobRun | undefined,
  clientId?: string,
  untyped = false,
  attachments: readonly Attachment[] = [],
  images: readonly ImagePart[] = [],
): InputJob {
  return {
    kind: 'input',
    id: clientId ?? ephemeralId(),
    text,
    ...(clientId === undefined ? {} : { clientId }),
    ...(run === undefined ? {} : { run }),
    ...(untyped ? { untyped: true as const } : {}),
    ...(attachments.length === 0 ? {} : { attachments }),
    ...(images.length === 0 ? {} : { images }),
  };
}

/** Queued like a message (Stop cancels it, later input waits for it), shown in the queue as "Retry". */
export function retryJob(turnId: string): InputJob {
  return { kind: 'input', id: ephemeralId(), text: 'Retry', retryTurnId: turnId };
}

export async function runInput(h: TurnInputHost, job: InputJob, signal: AbortSignal): Promise<void> {
  if (job.run !== undefined) {
    if (job.untyped !== true) h.echo(job.text, job.clientId);
    await job.run(signal);
    return;
  }
  const agent = h.facade;
  if (job.retryTurnId !== undefined) {
    // No echo: the failed turn's message is already in the chat, and it is the one sent again.
    if (!agent) h.fail(`Not retried: ${h.problem ?? 'no model is set up yet'}`);
    else await agent.retryTurn({ signal, turnId: job.retryTurnId });
    h.turnEnded();
    return;
  }
  if (!agent) {
    h.echo(job.text, job.clientId);
    h.fail(`Not sent: ${h.problem ?? 'no model is set up yet'}`);
    return;
  }
  h.turnStarts(job.clientId);
  await agent.turn({
    userText: job.text,
    signal,
    ...(job.attachments === undefined ? {} : { attachments: job.attachments }),
    ...(job.images === undefined ? {} : { images: job.images }),
  });
  h.turnEnded();
}
