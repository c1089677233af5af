import { afterEach, describe, expect, it } from 'vitest';
import {
  type Environment,
  freshEnvironment,
  type RunningServer,
  startServe,
  tailor,
} from '../helpers/process.ts';

// What speed may never weaken: a write acknowledged under load survives kill -9; a revoked key is
// refused on the next request to every node; a publish and an archive show on every node's public
// page at once. Every node here is its own `tailor serve` process on one database.

const BOOTSTRAP_KEY = 'consistency-bootstrap-key-long-enough-01';
const JSON_HEADERS = { 'x-api-key': BOOTSTRAP_KEY, 'content-type': 'application/json' };

let environment: Environment | undefined;
const running: RunningServer[] = [];

afterEach(async () => {
  for (const server of running.splice(0)) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
    await server.exited;
  }
  await environment?.drop();
  environment = undefined;
});

async function nodes(count: number): Promise<{ env: Record<string, string>; servers: RunningServer[] }> {
  environment = await freshEnvironment();
  const env = { ...environment.env, TAILOR_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY };
  const servers: RunningServer[] = [];
  for (let i = 0; i < count; i++) {
    const server = await startServe(env);
    running.push(server);
    servers.push(server);
  }
  return { env, servers };
}

async function call(server: RunningServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: JSON_HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
  };
}

describe('consistency across nodes and crashes', () => {
  it('keeps every write acknowledged while many were in flight together, through a kill -9', async () => {
    const { env, servers } = await nodes(1);
    const [server] = servers as [RunningServer];
    const acknowledged: string[] = [];
    let killed = false;
    // 300 creates at once share commits; the process dies the moment the 150th is acknowledged,
    // with the rest in flight (some of them written into a commit that never finished).
    const creates = Array.from({ length: 300 }, async (_, i) => {
      try {
        const response = await fetch(`${server.url}/v0/persons`, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: JSON.stringify({ name: `In flight ${i}`, email: `flight-${i}@durable.example` }),
        });
        if (response.status !== 201 || killed) return;
        acknowledged.push(((await response.json()) as { personId: string }).personId);
        if (acknowledged.length === 150) {
          killed = true;
          server.child.kill('SIGKILL');
        }
      } catch {
        // cut off by the kill: not acknowledged, so not promised
      }
    });
    await Promise.all(creates);
    await server.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const restarted = await startServe(env);
    running.push(restarted);
    for (const id of acknowledged)
      expect((await call(restarted, 'GET', `/v0/persons/${id}`)).status).toBe(200);
  });

  it('refuses a revoked key on the very next request to every node', async () => {
    const { env, servers } = await nodes(2);
    const issued = JSON.parse((await tailor(['keys', 'create', '--tenant', 'default'], env)).stdout);
    const get = (server: RunningServer) =>
      fetch(`${server.url}/v0/persons`, { headers: { 'x-api-key': issued.apiKey } }).then((r) => r.status);
    for (const server of servers) expect(await get(server)).toBe(200);

    const revoked = await tailor(['keys', 'revoke', issued.keyId], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const server of servers) expect(await get(server)).toBe(401);
  });

  it("shows a publish and an archive on every node's public page at once", async () => {
    const { servers } = await nodes(2);
    const [first, second] = servers as [RunningServer, RunningServer];
    const page = await call(first, 'POST', '/v0/pages', {
      name: 'Visible everywhere',
      pageContext: 'Tailor helps retailers grow. It personalizes every page.',
      brandId: 'acme',
      actions: [],
      actionCardWidgets: [],
      scripts: [],
    });
    const pageId = page.body.pageId;
    expect((await call(first, 'POST', `/v0/pages/${pageId}/publish`, {})).status).toBe(200);
    const person = await call(first, 'POST', '/v0/persons', {
      name: 'Dana Reyes',
      email: 'dana@northwind.example',
    });
    const audience = await call(first, 'POST', `/v0/pages/${pageId}/audiences`, {
      personId: person.body.personId,
    });
    const audienceId = audience.body.audienceId;
    const link = await call(first, 'POST', '/v0/page_links', {
      path: '/everywhere',
      target: { targetType: 'audience', audienceId },
    });
    expect(link.status).toBe(201);
    const headline = async (server: RunningServer) => {
      const response = await fetch(`${server.pagesUrl}/p/default/everywhere`);
      return response.status === 200
        ? (await response.text()).match(/<h1[^>]*>([^<]*)<\/h1>/)?.[1]
        : response.status;
    };
    const baseline = await headline(second);
    expect(baseline).toEqual(expect.any(String));

    // Version 1 is written by either node's worker; publishing waits for it to be a draft.
    let published = await call(first, 'POST', `/v0/pages/${pageId}/audiences/${audienceId}/publish`, {});
    for (let tries = 0; published.status === 409 && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      published = await call(first, 'POST', `/v0/pages/${pageId}/audiences/${audienceId}/publish`, {});
    }
    expect(published.status).toBe(200);
    const personalized = await headline(first);
    expect(personalized).not.toBe(baseline);
    expect(await headline(second)).toBe(personalized);

    expect((await call(second, 'POST', `/v0/pages/${pageId}/archive`, {})).status).toBe(200);
    for (const server of servers) expect(await headline(server)).toBe(404);
  });
});
