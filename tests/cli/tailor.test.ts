import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { type Environment, freshEnvironment, startServe, tailor } from '../helpers/process.ts';

let environment: Environment | undefined;
afterEach(async () => {
  await environment?.drop();
  environment = undefined;
});

async function fresh(): Promise<Record<string, string>> {
  environment = await freshEnvironment();
  return environment.env;
}

function json(stdout: string) {
  return JSON.parse(stdout);
}

describe('tailor tenants and keys', () => {
  it('creates a tenant with a key, issues, lists and revokes keys', async () => {
    const env = await fresh();
    const created = await tailor(['tenants', 'create', '--name', 'Acme Corp'], env);
    expect(created.code, created.stderr).toBe(0);
    const tenant = json(created.stdout);
    expect(tenant).toMatchObject({ slug: 'acme-corp', name: 'Acme Corp' });
    expect(tenant.apiKey).toMatch(/^tlr_[0-9A-Za-z]{40}$/);
    expect(tenant.tenantId).toMatch(/^tenant_[a-z0-9]{26}$/);

    const readOnly = json(
      (await tailor(['keys', 'create', '--tenant', 'acme-corp', '--read-only'], env)).stdout,
    );
    expect(readOnly).toMatchObject({ tenantId: tenant.tenantId, readOnly: true });
    expect(readOnly.apiKey).toMatch(/^tlr_/);

    const listed = json((await tailor(['keys', 'list', '--tenant', tenant.tenantId], env)).stdout);
    expect(listed).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain(readOnly.apiKey);
    expect(listed.map((k: { keyId: string }) => k.keyId)).toContain(readOnly.keyId);

    const revoked = json((await tailor(['keys', 'revoke', readOnly.keyId], env)).stdout);
    expect(revoked.revokedAt).toMatch(/^\+\d+$/);

    const server = await startServe(env);
    try {
      const get = (key: string) => fetch(`${server.url}/v0/persons`, { headers: { 'x-api-key': key } });
      expect((await get(tenant.apiKey)).status).toBe(200);
      expect((await get(readOnly.apiKey)).status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('refuses a taken slug and an unknown tenant with one clear line', async () => {
    const env = await fresh();
    await tailor(['tenants', 'create', '--name', 'One', '--slug', 'one'], env);
    const taken = await tailor(['tenants', 'create', '--name', 'Other', '--slug', 'one'], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/slug "one" is taken/);
    const unknown = await tailor(['keys', 'create', '--tenant', 'nobody'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Tenant "nobody" not found/);
  });

  it('migrate applies the migrations once, also when several run at once', async () => {
    const env = await fresh();
    const runs = await Promise.all([1, 2, 3].map(() => tailor(['migrate'], env)));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const applied = runs.flatMap((run) => json(run.stdout).applied);
    expect(applied).toEqual(Object.keys(await migrationsFor('sqlite')));
    expect(json((await tailor(['migrate'], env)).stdout)).toEqual({ applied: [] });
  });
});

describe('tailor serve', () => {
  it('stops on a bad variable with one line naming it', async () => {
    const result = await tailor(['serve'], { PORT: 'eighty' });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      'tailor: Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")',
    ]);
  });

  it('prints the first key once in a banner, and it works', async () => {
    const env = await fresh();
    const first = await startServe(env);
    let apiKey: string;
    try {
      const match = first.output().match(/API key: (tlr_[0-9A-Za-z]{40})/);
      expect(match, first.output()).not.toBeNull();
      apiKey = match?.[1] as string;
      const response = await fetch(`${first.url}/v0/accounts/search`, { headers: { 'x-api-key': apiKey } });
      expect(response.status).toBe(200);
      const [, consoleUrl] = first.output().match(/Console: (\S+)/) ?? [];
      expect(consoleUrl).toBe(`${first.url}/console`);
      expect((await fetch(consoleUrl as string)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }
    const second = await startServe(env);
    second.child.kill('SIGTERM');
    await second.exited;
    expect(second.output()).not.toContain('API key:');
  });

  it('uses TAILOR_BOOTSTRAP_API_KEY as the first key', async () => {
    const apiKey = 'my-bootstrap-key-that-is-long-enough-0001';
    const server = await startServe({ ...(await fresh()), TAILOR_BOOTSTRAP_API_KEY: apiKey });
    try {
      expect(server.output()).not.toContain(apiKey);
      const response = await fetch(`${server.url}/v0/persons`, { headers: { 'x-api-key': apiKey } });
      expect(response.status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('keeps every acknowledged write through a kill -9', async () => {
    const apiKey = 'durability-bootstrap-key-long-enough-0002';
    const env = { ...(await fresh()), TAILOR_BOOTSTRAP_API_KEY: apiKey };
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const server = await startServe(env);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${server.url}/v0/persons`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Durable ${i}` }),
      });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { personId: string }).personId);
    }
    server.child.kill('SIGKILL');
    await server.exited;
    const restarted = await startServe(env);
    try {
      for (const id of ids) {
        expect((await fetch(`${restarted.url}/v0/persons/${id}`, { headers })).status).toBe(200);
      }
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
  });

  it('drains on SIGTERM: an in-flight request completes, then the process exits 0', async () => {
    const apiKey = 'draining-bootstrap-key-long-enough-00003';
    const server = await startServe({ ...(await fresh()), TAILOR_BOOTSTRAP_API_KEY: apiKey });
    // In flight for certain: the server has read the request's head (its "100 Continue" says so)
    // and waits for the body when SIGTERM comes; a timer instead lost the race on a busy machine.
    const body = JSON.stringify({ name: 'In flight' });
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const continued = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write(
      `POST /v0/persons HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${apiKey}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        'expect: 100-continue\r\nconnection: close\r\n\r\n',
    );
    await continued;
    server.child.kill('SIGTERM');
    socket.write(body);
    expect(await answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    expect(await server.exited).toBe(0);
  });
});
