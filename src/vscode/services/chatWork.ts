// The chat's one line of work: messages and commands in order (queued while busy), host tasks (switches, rewinds, reopening) before queued input, Stop; each input runs with the agent in force when its turn comes.
import type { Attachment } from '../../engine/agent/attachments.js';
import type { ImagePart } from '../../engine/transcript/schema.js';
import type { QueuedInput } from '../../protocol/messages.js';
import { errorMessage } from '../base/log.js';
import type { ChatAgent } from './chatAgent.js';
import type { ChatEvents } from './chatEvents.js';
import type { JobRun } from './chatPorts.js';
import type { ChatSetup } from './chatSetup.js';
import { JobQueue, type InputJob, type JobRunner } from './jobQueue.js';
import { inputJob, retryJob, runInput } from './turnInput.js';

/** How a command's job runs: echoed or not, and whether it waits its turn. */
export interface EnqueueOptions {
  readonly clientId?: string;
  /** From the palette or the toolbar: nobody typed it, so it is only listed while queued, never echoed. */
  readonly untyped?: boolean;
  /** A quick command that only answers: runs at once, without waiting for the turn. */
  readonly immediate?: boolean;
}

export class ChatWork implements JobRunner {
  readonly #queue = new JobQueue(this);

  constructor(
    private readonly lifecycle: ChatAgent,
    private readonly setup: ChatSetup,
    private readonly events: ChatEvents,
  ) {}

  /** An input is running (the Stop button shows). */
  get busy(): boolean {
    return this.#queue.busy;
  }

  /** Anything runs or waits. */
  get occupied(): boolean {
    return this.#queue.occupied;
  }

  /** The inputs waiting their turn, as the composer lists them. */
  get queued(): QueuedInput[] {
    return this.#queue.inputs;
  }

  hasTask(name: string): boolean {
    return this.#queue.hasTask(name);
  }

  /** A message for the agent, in order. */
  send(text: string, clientId?: string, attachments: readonly Attachment[] = [], images: readonly ImagePart[] = []): void {
    this.#queue.addInput(inputJob(text, undefined, clientId, false, attachments, images));
  }

  /** A command's work as an input job: it waits its turn, shows as queued, and Stop aborts its signal (or, `immediate`, runs at once). */
  enqueue(text: string, run: JobRun, opts: EnqueueOptions = {}): void {
    const job = inputJob(text, run, opts.clientId, opts.untyped === true);
    if (opts.immediate === true) {
      void this.runInput(job, new AbortController().signal).catch((err: unknown) => this.events.fail(errorMessage(err)));
      return;
    }
    this.#queue.addInput(job);
  }

  /** An error card's Retry: the failed turn is sent again, in its turn. */
  retry(turnId: string): void {
    this.#queue.addInput(retryJob(turnId));
  }

  /** Host work, after what runs now and before queued inputs; settles when it ran (rejects with its error). */
  task(name: string, run: JobRun): Promise<void> {
    return this.#queue.addTask(name, run);
  }

  /** Stops what runs now (a turn, a compaction, a switch's handoff). */
  cancel(): void {
    this.#queue.cancel();
  }

  /** Stops what runs and drops every queued input: the chat is about to change under them. */
  preempt(): void {
    this.#queue.preempt();
  }

  /** The idle trigger (off by default): only looked at while nothing runs or waits. */
  idle(onError: (err: unknown) => void): void {
    const a = this.lifecycle.facade;
    if (!a || this.#queue.occupied || !a.compactsOnIdle) return;
    void this.#queue.addTask('idle', (signal) => a.noteIdle(signal)).catch(onError);
  }

  dispose(): void {
    this.#queue.dispose();
  }

  // ---- JobRunner: what the queue calls back ---------------------------------------------------------------

  runInput(job: InputJob, signal: AbortSignal): Promise<void> {
    const events = this.events;
    return runInput(
      {
        facade: this.lifecycle.facade,
        problem: this.setup.problem,
        echo: (text, clientId) => events.fire({ kind: 'echo', text, clientId }),
        fail: (text) => events.fail(text),
        turnStarts: (clientId) => events.fire({ kind: 'turn', clientId }),
        turnEnded: () => events.fire({ kind: 'tree' }),
      },
      job,
      signal,
    );
  }

  queueChanged(items: readonly QueuedInput[]): void {
    this.events.fire({ kind: 'queue', items });
  }

  busyChanged(busy: boolean): void {
    this.events.fire({ kind: 'busy', busy });
  }

  inputFailed(_job: InputJob, err: unknown): void {
    this.events.fail(errorMessage(err));
  }
}
