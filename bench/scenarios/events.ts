import { compareWithBare, printMemory, printSetting, sequentialLatency } from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { linkedBenchPage, openBench, serveProcess } from '../support.ts';

export default {
  name: 'events',
  summary: 'POST /v0/public/events, a new session of 4 events per request',
  usage: '',
  async run() {
    const bench = await openBench('Events');
    const server = await serveProcess(bench);
    try {
      const page = await linkedBenchPage(server.url, bench);
      const html = await (await fetch(`${server.pagesUrl}${page.path}`)).text();
      const token = html.match(/data-tailor-token="([^"]+)"/)?.[1];
      if (!token) throw new Error('the page carries no token');
      const at = Date.now();
      const events = [
        { type: 'session_start', at },
        { type: 'scroll', at: at + 900, depth: 60 },
        { type: 'interaction', at: at + 2_000 },
        { type: 'time', at: at + 5_000, ms: 5_000 },
      ];
      const target = {
        method: 'POST',
        path: '/v0/public/events',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, sessionId: 'bench-session-[<n>]', events }),
      };
      printSetting('tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; 50 connections');
      await compareWithBare('events', server.pagesUrl, target);
      await sequentialLatency('events', server.pagesUrl, target);
      printMemory(server.pid);
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
