import { compareWithBare, printMemory, printSetting, sequentialLatency } from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { newPersons, openBench, serveProcess } from '../support.ts';

export default {
  name: 'person-create',
  summary: 'POST /v0/persons, a new email each, over 100 account domains',
  usage: '',
  async run() {
    const bench = await openBench('Person create');
    const server = await serveProcess(bench);
    try {
      const target = newPersons(bench.tenant.apiKey);
      printSetting('tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; 50 connections');
      await compareWithBare('person create', server.url, target);
      await sequentialLatency('person create', server.url, target);
      printMemory(server.pid);
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
