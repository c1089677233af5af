import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Tinypool } from 'tinypool';
import { FairQueue, QueueClosed } from '../../shared/fair-queue.ts';
import type { CheckTask, PreviewTask } from './image-tasks.ts';
import { asBuffer, type ImageType } from './images.ts';

/** The longest any one image's check or preview may take before its process is ended. */
export const IMAGE_TIME_LIMIT_MS = 10_000;
/** Checks a tenant may have waiting; past that its uploads are refused until some are done. */
const CHECKS_WAITING_PER_TENANT = 8;
/** Previews a tenant may have waiting (each waits as a file id, without its bytes). */
const PREVIEWS_WAITING_PER_TENANT = 100;
/** A process with nothing to do this long exits; the next task starts a new one. */
const IDLE_PROCESS_MS = 60_000;

/** The work ran past the time limit, and its process was ended. */
class ImageTimeLimit extends Error {}

/** A preview to make in the background: what the pool needs from the file's owner. */
export interface PreviewJob {
  /** The image's bytes, read when its turn comes, so that a waiting preview holds no bytes. */
  load(): Promise<Buffer | undefined>;
  /** Keeps the preview made. */
  keep(preview: Buffer): Promise<void>;
  /** Told why no preview was made, except when the image just cannot be decoded. */
  failed(error: unknown): void;
}

export interface ImagePoolOptions {
  /** IMAGE_TIME_LIMIT_MS unless given (tests shorten it). */
  timeLimitMs?: number;
}

// Each process loads the TypeScript task module through the loader the server itself runs on.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const TASKS = new URL('./image-tasks.ts', import.meta.url).href;

/**
 * One child process (started when first needed) and the fair queue in front of it. A task that
 * overruns the time limit is stopped by ending its process: a native decoder cannot be interrupted
 * any other way, and a worker thread's native work would go on after the thread was terminated.
 */
class Lane {
  readonly queue: FairQueue;
  private readonly processes: Tinypool;
  private readonly stopping = new AbortController();

  constructor(
    private readonly timeLimitMs: number,
    waitingPerTenant: number,
  ) {
    this.queue = new FairQueue(1, waitingPerTenant);
    this.processes = new Tinypool({
      runtime: 'child_process',
      filename: TASKS,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: IDLE_PROCESS_MS,
      serialization: 'advanced',
      execArgv: ['--import', TSX_LOADER],
      // The process that reads hostile files is handed no secret.
      env: {},
    });
  }

  /** Runs the task module's export `name` in the lane's process, within the time limit. */
  async run<T>(name: 'check' | 'preview', task: CheckTask | PreviewTask): Promise<T> {
    let timeLimit: AbortSignal | undefined;
    try {
      // A process started now (the first task, or the next after one was ended) starts untimed.
      await this.processes.run(undefined, { name: 'ready', signal: this.stopping.signal });
      timeLimit = AbortSignal.timeout(this.timeLimitMs);
      return await this.processes.run(task, {
        name,
        signal: AbortSignal.any([timeLimit, this.stopping.signal]),
      });
    } catch (error) {
      if (this.stopping.signal.aborted) throw new QueueClosed('The image pool was closed');
      if (timeLimit?.aborted) {
        throw new ImageTimeLimit(
          `The image took longer than ${this.timeLimitMs / 1000} s; its work was stopped`,
        );
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    const waiting = this.queue.close();
    this.stopping.abort();
    await waiting;
    await this.processes.destroy();
  }
}

/**
 * Where the server's image work runs, off its event loop and out of its process: the check of
 * every upload (magic bytes and header, or an SVG's well-formedness) and the making of previews,
 * each in a lane of its own, so that previews never hold up a check. A lane runs one task at a
 * time, each in its tenant's turn, and stops it at the time limit.
 */
export class ImagePool {
  private readonly checks: Lane;
  private readonly previews: Lane;

  constructor(options: ImagePoolOptions = {}) {
    const timeLimitMs = options.timeLimitMs ?? IMAGE_TIME_LIMIT_MS;
    this.checks = new Lane(timeLimitMs, CHECKS_WAITING_PER_TENANT);
    this.previews = new Lane(timeLimitMs, PREVIEWS_WAITING_PER_TENANT);
  }

  /**
   * Whether the bytes are an image of `type`. Throws ImageTimeLimit past the time limit, and
   * QueueFull when the tenant already has as many checks waiting as it may.
   */
  check(tenantId: string, type: ImageType, bytes: Buffer): Promise<boolean> {
    return this.checks.queue.run(tenantId, () => this.checks.run<boolean>('check', { type, bytes }));
  }

  /** Queues a preview in the tenant's turn and returns at once; what becomes of it goes to `job`. */
  makePreview(tenantId: string, job: PreviewJob): void {
    this.previews.queue
      .run(tenantId, async () => {
        const bytes = await job.load();
        if (!bytes) return;
        const preview = await this.previews.run<Uint8Array | undefined>('preview', { bytes });
        if (preview) await job.keep(asBuffer(preview));
      })
      .catch((error: unknown) => {
        // A server that stops drops the previews still waiting: nothing is wrong with them.
        if (!(error instanceof QueueClosed)) job.failed(error);
      });
  }

  /** Resolves once no check or preview is running or waiting. */
  async idle(): Promise<void> {
    await Promise.all([this.checks.queue.idle(), this.previews.queue.idle()]);
  }

  /** Drops what waits, stops what runs, and ends the processes. */
  async close(): Promise<void> {
    await Promise.all([this.checks.close(), this.previews.close()]);
  }
}
