import { compareWithBare, printMemory, printSetting, sequentialLatency } from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { linkedBenchPage, openBench, serveProcess } from '../support.ts';

export default {
  name: 'public-page',
  summary: 'GET /p/{tenant}/{path}, a personalized page as a browser asks for it (gzip)',
  usage: '',
  async run() {
    const bench = await openBench('Public page');
    const server = await serveProcess(bench);
    try {
      const page = await linkedBenchPage(server.url, bench);
      const target = { path: page.path, headers: { 'accept-encoding': 'gzip, deflate, br' } };
      printSetting('tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; 50 connections');
      await compareWithBare('public page', server.pagesUrl, target);
      await sequentialLatency('public page', server.pagesUrl, target);
      printMemory(server.pid);
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
