// One thing at a time for the chat: user inputs (shown as queued while busy) and host tasks (switches, rewinds, reopening).
import { LIMITS } from '../../protocol/limits.js';
import type { QueuedInput } from '../../protocol/messages.js';
import type { JobRun } from './chatPorts.js';
import type { Attachment } from '../../engine/agent/attachments.js';
import type { ImagePart } from '../../engine/transcript/schema.js';

export interface InputJob {
  readonly kind: 'input';
  /** The queue id: the `send`'s clientId when it had one. */
  readonly id: string;
  readonly text: string;
  readonly clientId?: string;
  /** A command's work (its handler, bound to its arguments by the router or the palette); without it the text goes to the agent. */
  readonly run?: JobRun;
  /** A palette or toolbar command: nobody typed it, so it is not echoed as the user's message. */
  readonly untyped?: true;
  /** Files (or lines of one) the user attached; read with the read tool when the turn starts. */
  readonly attachments?: readonly Attachment[];
  /** Images the user pasted, dropped or mentioned, checked by their bytes; they go with the message as image parts. */
  readonly images?: readonly ImagePart[];
  /** Retry of this failed turn instead of a new message. */
  readonly retryTurnId?: string;
}

interface TaskJob {
  readonly kind: 'task';
  readonly name: string;
  readonly run: JobRun;
  readonly settle: (err?: unknown) => void;
}

export type Job = InputJob | TaskJob;

export interface JobRunner {
  runInput(job: InputJob, signal: AbortSignal): Promise<void>;
  /** The visible queue changed. */
  queueChanged(items: readonly QueuedInput[]): void;
  /** An input started, or the last queued input finished. */
  busyChanged(busy: boolean): void;
  /** An input job threw (the agent itself never does; commands may). */
  inputFailed(job: InputJob, err: unknown): void;
}

export class JobQueue {
  #jobs: Job[] = [];
  #running: Job | undefined;
  #abort: AbortController | undefined;
  #disposed = false;
  /** Inputs the webview was told are queued: taking one off the queue must be announced too. */
  readonly #shown = new Set<string>();

  constructor(private readonly runner: JobRunner) {}

  /** An input is running (the Stop button shows). */
  get busy(): boolean {
    return this.#running?.kind === 'input';
  }

  /** Anything runs or waits: a new input must queue. */
  get occupied(): boolean {
    return this.#running !== undefined || this.#jobs.length > 0;
  }

  get inputs(): QueuedInput[] {
    return this.#jobs.flatMap((j) => (j.kind === 'input' ? [{ id: j.id, text: j.text.slice(0, LIMITS.input) }] : []));
  }

  hasTask(name: string): boolean {
    return this.#jobs.some((j) => j.kind === 'task' && j.name === name);
  }

  /** Queued (and shown as queued) only when something runs or waits; otherwise it starts at once. */
  addInput(job: InputJob): void {
    const wait = this.occupied;
    this.#jobs.push(job);
    if (wait) {
      this.#shown.add(job.id);
      this.runner.queueChanged(this.inputs);
    }
    void this.#pump();
  }

  /** Host work runs before queued inputs (a model switch should apply to them), after whatever runs now. */
  addTask(name: string, run: JobRun): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settle = (err?: unknown): void => (err === undefined ? resolve() : reject(err));
      const firstInput = this.#jobs.findIndex((j) => j.kind === 'input');
      this.#jobs.splice(firstInput < 0 ? this.#jobs.length : firstInput, 0, { kind: 'task', name, run, settle });
      void this.#pump();
    });
  }

  /** Stops what runs now (a turn, a compaction, a switch's handoff). */
  cancel(): void {
    this.#abort?.abort();
  }

  /** Stops what runs and drops every queued input: the chat is about to change under them. */
  preempt(): void {
    this.cancel();
    const before = this.#jobs.length;
    this.#jobs = this.#jobs.filter((j) => j.kind === 'task');
    this.#shown.clear();
    if (before !== this.#jobs.length) this.runner.queueChanged(this.inputs);
  }

  async #pump(): Promise<void> {
    if (this.#running !== undefined || this.#disposed) return;
    const job = this.#jobs.shift();
    if (job === undefined) return;
    this.#running = job;
    const ctrl = new AbortController();
    this.#abort = ctrl;
    if (job.kind === 'input') {
      if (this.#shown.delete(job.id)) this.runner.queueChanged(this.inputs);
      this.runner.busyChanged(true);
    }
    try {
      if (job.kind === 'input') await this.runner.runInput(job, ctrl.signal);
      else await job.run(ctrl.signal);
      if (job.kind === 'task') job.settle();
    } catch (err) {
      if (job.kind === 'task') job.settle(err ?? new Error('task failed'));
      else this.runner.inputFailed(job, err);
    } finally {
      this.#running = undefined;
      this.#abort = undefined;
      if (job.kind === 'input' && !this.#jobs.some((j) => j.kind === 'input')) this.runner.busyChanged(false);
    }
    await this.#pump();
  }

  dispose(): void {
    this.#disposed = true;
    this.cancel();
    for (const j of this.#jobs.splice(0)) if (j.kind === 'task') j.settle(new Error('Capsule is shutting down'));
  }
}
