import { describe, expect, it } from 'vitest';
import { FairQueue, QueueClosed, QueueFull } from '../../src/shared/fair-queue.ts';

/** Work that ends when its `finish` is called, recording when it started. */
function gate(started: string[], name: string) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FairQueue', () => {
  it('gives a free slot to the line served longest ago, not to the longest line', async () => {
    const queue = new FairQueue(1, 10);
    const started: string[] = [];
    const gates = ['a1', 'a2', 'a3', 'b1', 'c1', 'b2'].map((name) => ({ name, ...gate(started, name) }));
    const results = gates.map(({ name, work }) => queue.run(name.slice(0, 1), work));
    for (const { finish } of gates) {
      await settle();
      finish();
    }
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'b2']);
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2']);
  });

  it('refuses work past the waiting bound of its key only, with QueueFull', async () => {
    const queue = new FairQueue(1, 2);
    const started: string[] = [];
    const running = gate(started, 'a1');
    const first = queue.run('a', running.work);
    const waiting = [queue.run('a', async () => 'a2'), queue.run('a', async () => 'a3')];
    await expect(queue.run('a', async () => 'a4')).rejects.toBeInstanceOf(QueueFull);
    const other = queue.run('b', async () => 'b1');
    running.finish();
    expect(await Promise.all([first, ...waiting, other])).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('on close, rejects what waits with QueueClosed and resolves once what runs has ended', async () => {
    const queue = new FairQueue(1, 10);
    const started: string[] = [];
    const running = gate(started, 'a1');
    const first = queue.run('a', running.work);
    const waiting = queue.run('b', async () => 'b1');
    await settle();
    let closed = false;
    const closing = queue.close().then(() => {
      closed = true;
    });
    await expect(waiting).rejects.toBeInstanceOf(QueueClosed);
    await settle();
    expect(closed).toBe(false);
    running.finish();
    await closing;
    expect(await first).toBe('a1');
    await expect(queue.run('c', async () => 'c1')).rejects.toBeInstanceOf(QueueClosed);
  });
});
