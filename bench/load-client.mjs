// The load generator, in a process of its own so that it never shares an event loop with the servers
// it measures. Reads one JSON argument, prints its result as JSON: autocannon's (mode "load"), or the
// latencies in milliseconds of `count` requests sent one at a time on one keep-alive connection after
// 20 not counted (mode "sequential"; hrtime, since autocannon reports whole milliseconds).
//
// In the body, "[<n>]" becomes a number unique to each request of this run (a random prefix for the
// run, then a counter) and "[<n%K>]" that counter modulo K: a new email per request, say, spread
// over K account domains.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';

const { mode, url, method, headers, body, connections, duration, count, rate } = JSON.parse(process.argv[2]);
const run = randomBytes(4).toString('hex');
let counter = 0;

function fill(template) {
  const n = counter++;
  return template.replace(/\[<n(?:%(\d+))?>\]/g, (_, modulo) =>
    modulo ? String(n % Number(modulo)) : `${run}${n}`,
  );
}

async function load() {
  const setupRequest = (request) => ({ ...request, body: fill(body) });
  return autocannon({
    url,
    connections,
    // Requests a second across all connections, when given: a steady arrival rather than a flood.
    ...(rate === undefined ? {} : { overallRate: rate }),
    duration,
    requests: [{ method, headers, ...(body === undefined ? {} : { setupRequest }) }],
  });
}

async function sequential() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const request = http.request(url, { method, agent, headers }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode >= 400) reject(new Error(`status ${response.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      });
      request.on('error', reject);
      request.end(body === undefined ? undefined : fill(body));
    });
  for (let i = 0; i < 20; i++) await once();
  const latencies = [];
  for (let i = 0; i < count; i++) latencies.push(await once());
  agent.destroy();
  return latencies;
}

process.stdout.write(JSON.stringify(mode === 'sequential' ? await sequential() : await load()));
