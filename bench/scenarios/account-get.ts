import { compareWithBare, printMemory, printSetting, sequentialLatency } from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { apiAs, openBench, serveProcess } from '../support.ts';

export default {
  name: 'account-get',
  summary: 'GET /v0/accounts/{id} of an account with one linked person',
  usage: '',
  async run() {
    const bench = await openBench('Account get');
    const server = await serveProcess(bench);
    try {
      const api = apiAs(server.url, bench.tenant.apiKey);
      await api('POST', '/v0/persons', { name: 'Dana Reyes', email: 'dana@northwind.example' });
      const { items } = await api<{ items: { accountId: string }[] }>('GET', '/v0/accounts/search');
      const target = {
        path: `/v0/accounts/${items[0]?.accountId}`,
        headers: { 'x-api-key': bench.tenant.apiKey },
      };
      printSetting('tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; 50 connections');
      await compareWithBare('account get', server.url, target);
      await sequentialLatency('account get', server.url, target);
      printMemory(server.pid);
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
