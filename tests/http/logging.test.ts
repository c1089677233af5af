import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServers } from '../../src/app.ts';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { batchedLines, WRITE_WITHIN_MS } from '../../src/http/logging.ts';
import { ImagePool } from '../../src/resources/files/image-pool.ts';
import { LocalDiskStorage } from '../../src/resources/files/storage.ts';
import { PagesOrigin } from '../../src/shared/pages-origin.ts';
import { Signer } from '../../src/shared/signing.ts';
import { createTenantWithKey, type TenantWithKey } from '../../src/workflows/tenant-setup/service.ts';
import { TEST_SECRET, testDatabase } from '../helpers/server.ts';

// One line per request (http/logging.ts): what a reader of the log finds on it.

const lines: Record<string, unknown>[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});

let database: Database;
let api: FastifyInstance;
let pages: FastifyInstance;
let url: string;
let tenant: TenantWithKey;

beforeAll(async () => {
  database = await testDatabase();
  await migrateToLatest(database);
  ({ api, pages } = await buildServers({
    database,
    signer: new Signer(TEST_SECRET),
    storage: new LocalDiskStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-files-'))),
    images: new ImagePool(),
    publicUrl: 'http://127.0.0.1',
    pages: new PagesOrigin('http://127.0.0.1:1'),
    rateLimitRps: 0,
    logger: { level: 'info', stream: capture },
  }));
  url = await api.listen({ host: '127.0.0.1', port: 0 });
  tenant = await createTenantWithKey(database, { name: 'Logged' });
});
afterAll(async () => {
  await Promise.all([api.close(), pages.close()]);
  await database.close();
});

/** The lines logged for the request whose x-request-id is `requestId`. */
async function linesOf(requestId: string, headers: Record<string, string>, target: string) {
  const response = await fetch(`${url}${target}`, { headers: { ...headers, 'x-request-id': requestId } });
  await response.arrayBuffer();
  await expect.poll(() => lines.filter((line) => line.reqId === requestId).length).toBeGreaterThan(0);
  return { status: response.status, logged: lines.filter((line) => line.reqId === requestId) };
}

describe('the request log line', () => {
  it('is one line per request, with the request, its outcome, its time and its tenant and key', async () => {
    const { status, logged } = await linesOf('line-1', { 'x-api-key': tenant.apiKey }, '/v0/persons?limit=1');
    expect(status).toBe(200);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      reqId: 'line-1',
      req: { method: 'GET', url: '/v0/persons?limit=1', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      tenantId: tenant.tenantId,
      keyId: tenant.keyId,
    });
    expect(logged[0]?.responseTime).toBeTypeOf('number');
  });

  it('has the fields pino wrote, in its order', async () => {
    const { logged } = await linesOf('line-3', { 'x-api-key': tenant.apiKey }, '/v0/persons?limit=1');
    const line = logged[0] as Record<string, unknown>;
    expect(Object.keys(line)).toEqual([
      'level',
      'time',
      'pid',
      'hostname',
      'reqId',
      'req',
      'res',
      'responseTime',
      'tenantId',
      'keyId',
      'msg',
    ]);
    expect(line).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(line.time).toBeTypeOf('number');
    expect(Math.abs((line.time as number) - Date.now())).toBeLessThan(60_000);
    expect(Object.keys(line.req as object)).toEqual(['method', 'url', 'host', 'remoteAddress', 'remotePort']);
    expect(line.req).toMatchObject({ host: new URL(url).host, remotePort: expect.any(Number) });
  });

  it('is JSON whatever the client sent in its URL and headers', async () => {
    const target = '/v0/persons?q="\\"';
    const { port } = new URL(url);
    await new Promise<void>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: target,
          headers: { 'accept-version': '"1\t\\', 'x-request-id': 'line-4' },
        },
        (response) => response.resume().on('end', resolve),
      );
      request.on('error', reject).end();
    });
    await expect.poll(() => lines.filter((line) => line.reqId === 'line-4').length).toBe(1);
    const line = lines.find((each) => each.reqId === 'line-4');
    expect(line?.req).toMatchObject({ url: target, version: '"1\t\\' });
    expect(Object.keys(line?.req as object)).toEqual([
      'method',
      'url',
      'version',
      'host',
      'remoteAddress',
      'remotePort',
    ]);
  });

  it('names no tenant or key where none was given', async () => {
    const { status, logged } = await linesOf('line-2', {}, '/v0/persons');
    expect(status).toBe(401);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ reqId: 'line-2', res: { statusCode: 401 } });
    expect(logged[0]).not.toHaveProperty('tenantId');
    expect(logged[0]).not.toHaveProperty('keyId');
  });
});

describe('batchedLines', () => {
  it('writes lines together WRITE_WITHIN_MS after the first, and at once past 8 KB', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-log-')), 'out.log');
    const fd = fs.openSync(file, 'w');
    const waitFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      const out = batchedLines(fd);
      out.write('{"n":1}\n');
      await new Promise((resolve) => setImmediate(resolve));
      out.write('{"n":2}\n');
      expect(fs.readFileSync(file, 'utf8')).toBe('');
      await waitFor(WRITE_WITHIN_MS + 20);
      expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
      const long = `${'x'.repeat(9000)}\n`;
      out.write(long);
      expect(fs.readFileSync(file, 'utf8')).toBe(`{"n":1}\n{"n":2}\n${long}`);
      await waitFor(WRITE_WITHIN_MS + 20);
    } finally {
      fs.closeSync(fd);
    }
  });
});
