import { compareWithBare, printMemory, printSetting, sequentialLatency } from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { linkedBenchPage, newSessionEvents, openBench, serveProcess, tokenOf } from '../support.ts';

export default {
  name: 'events',
  summary: 'POST /v0/public/events, a new session of 4 events per request',
  usage: '',
  async run() {
    const bench = await openBench('Events');
    const server = await serveProcess(bench);
    try {
      const page = await linkedBenchPage(server.url, bench);
      const target = newSessionEvents(await tokenOf(server.pagesUrl, page.path));
      printSetting('tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; 50 connections');
      await compareWithBare('events', server.pagesUrl, target);
      await sequentialLatency('events', server.pagesUrl, target);
      printMemory(server.pid);
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
