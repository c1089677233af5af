import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConcurrencyLimit } from '../../src/http/concurrency-limit.ts';

/**
 * A request counted by a concurrency limit holds its slot until its answer closes. One whose
 * client left while it waited to be counted (the rate limit before it asks Redis) must hold none,
 * or two such clients would fill a limit of two for good.
 */
const app = Fastify();
const limit = createConcurrencyLimit({ perKey: 2, counts: 'downloads' });
let url = '';

beforeAll(async () => {
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers['x-wait']) await sleep(Number(request.headers['x-wait']));
    limit.enter('client', reply);
  });
  app.get('/', async () => 'ok');
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app.close());

/** A request whose client hangs up while it waits to be counted. */
function abandoned(): Promise<void> {
  return new Promise((resolve) => {
    const request = http.get(`${url}/`, { headers: { 'x-wait': '200' } });
    request.on('error', () => resolve());
    setTimeout(() => request.destroy(), 50);
  });
}

it('holds no slot for a client that left before it was counted', async () => {
  await Promise.all([abandoned(), abandoned()]);
  await sleep(300);
  const answers = await Promise.all([fetch(`${url}/`), fetch(`${url}/`)]);
  expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
});
