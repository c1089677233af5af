import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { issueToken } from '../../src/public/token.ts';
import { newId } from '../../src/shared/ids.ts';
import { Signer } from '../../src/shared/signing.ts';
import { LAYERS, type Layer } from '../ceiling-server.ts';
import {
  compareWithBare,
  onCore,
  parseOptions,
  printSetting,
  SERVER_CORE,
  stopChild,
  type Target,
} from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { freePort, newPersons, newSessionEvents } from '../support.ts';

/** What each layer is asked: the account read, or a person's create or a batch of events as their scenarios send them. */
function layerTarget(layer: Layer): Target {
  if (layer === 'fastify+log+person-sql') return newPersons('key');
  if (layer === 'fastify+log+events-sql') return newSessionEvents(TOKEN);
  return { path: '/v0/accounts/acc_1', headers: { 'x-api-key': 'key' } };
}

/** A page link's token of the size Tailor signs (its claims' ids made up): the layer reads none. */
const TOKEN = issueToken(new Signer('ceiling'.repeat(8)), {
  tenantId: newId('tenant'),
  pageId: newId('page'),
  audienceId: newId('audience'),
  pageLinkId: newId('pagelink'),
  expiresAt: Date.now() + 3_600_000,
  arm: 'personalized',
});

const SERVER = path.join(import.meta.dirname, '..', 'ceiling-server.ts');

/** One layer's server in a process of its own on the server core, its log into a file as tailor serve's. */
async function startLayer(layer: string, dir: string) {
  const port = await freePort();
  const log = fs.openSync(path.join(dir, `${layer}.log`), 'a');
  const [command, ...args] = onCore(SERVER_CORE, [
    process.execPath,
    '--import',
    'tsx',
    SERVER,
    layer,
    String(port),
    dir,
  ]);
  const child = spawn(command as string, args, { stdio: ['ignore', log, log, 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${layer} server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await stopChild(child);
      fs.closeSync(log);
    },
  };
}

export default {
  name: 'ceiling',
  summary:
    "the stack under Tailor layer by layer (Fastify; + the request log line; + two SQLite reads; or + a person create's or an events batch's SQLite statements), each against bare node:http",
  usage: '[--layer <one layer>]',
  async run(args) {
    const { layer: only } = parseOptions(args, { layer: 'all' });
    const layers = LAYERS.filter((layer) => only === 'all' || layer === only);
    if (layers.length === 0) throw new Error(`--layer: one of ${LAYERS.join(', ')}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-ceiling-'));
    printSetting('each layer pinned to CPU 0 with the bare server, autocannon on CPU 1; 50 connections');
    try {
      for (const layer of layers) {
        const server = await startLayer(layer, dir);
        try {
          await compareWithBare(layer, server.url, layerTarget(layer));
        } finally {
          await server.close();
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
} satisfies Scenario;
