import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishLinkedPage } from '../helpers/pages.ts';
import { type Client, freePort, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Runs the Caddyfile of docs/tenant-domains.md in front of a pages origin, as written, but for its
 * ports and Caddy's own local certificate authority in place of Let's Encrypt (this machine reaches
 * no ACME server): a held hostname gets a certificate on its first connection and is served the
 * tenant's page; a name no tenant holds gets no certificate.
 */
const CADDY = '/usr/bin/caddy';
const hasCaddy = fs.existsSync(CADDY);
const GUIDE = fs.readFileSync('docs/tenant-domains.md', 'utf8');
const CADDYFILE = GUIDE.match(/```caddyfile\n([\s\S]*?)```/)?.[1] ?? '';
const HOSTNAME = 'go.northwind.example';

interface Answer {
  status: number;
  body: string;
  certificateFor: string;
}

/** GET over TLS from the proxy at `port` as a browser that resolved `hostname` there, trusting `ca`. */
function getOverTls(port: number, hostname: string, pathname: string, ca: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      { host: '127.0.0.1', port, path: pathname, servername: hostname, headers: { host: hostname }, ca },
      (response) => {
        const certificate = (response.socket as import('node:tls').TLSSocket).getPeerCertificate();
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body,
            certificateFor: certificate.subjectaltname ?? '',
          }),
        );
      },
    );
    request.on('error', reject);
  });
}

/** Whether something accepts connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe.skipIf(!hasCaddy)(
  'Caddy on-demand TLS in front of the pages origin (docs/tenant-domains.md)',
  () => {
    let server: TestServer;
    let api: Client;
    let caddy: ChildProcess;
    let home: string;
    let httpsPort: number;
    let output = '';

    beforeAll(async () => {
      server = await startServer();
      api = await server.newTenant();
      const domain = (await api.post('/v0/tenant_domains', { hostname: HOSTNAME })).body;
      const page = await publishLinkedPage(server, api, { personalize: false, path: '/shared' });
      await api.post('/v0/page_links', {
        path: '/spring',
        target: { targetType: 'audience', audienceId: page.audienceId },
        tenantDomainId: domain.tenantDomainId,
      });

      home = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-caddy-'));
      httpsPort = await freePort();
      const pagesPort = new URL(server.pagesUrl).port;
      const testOptions = [
        'admin off',
        `http_port ${await freePort()}`,
        `https_port ${httpsPort}`,
        'local_certs',
        'skip_install_trust',
        `storage file_system ${home}/data`,
      ].map((option) => `\t${option}`);
      const caddyfile = CADDYFILE.replaceAll('127.0.0.1:8081', `127.0.0.1:${pagesPort}`).replace(
        /^\{\n/,
        `{\n${testOptions.join('\n')}\n`,
      );
      fs.writeFileSync(path.join(home, 'Caddyfile'), caddyfile);
      execFileSync(CADDY, ['validate', '--config', path.join(home, 'Caddyfile'), '--adapter', 'caddyfile'], {
        env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
        stdio: 'pipe',
      });
      caddy = spawn(CADDY, ['run', '--config', path.join(home, 'Caddyfile'), '--adapter', 'caddyfile'], {
        env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
      });
      caddy.stdout?.on('data', (chunk) => {
        output += chunk;
      });
      caddy.stderr?.on('data', (chunk) => {
        output += chunk;
      });
      const root = path.join(home, 'data', 'pki', 'authorities', 'local', 'root.crt');
      for (let waited = 0; !(fs.existsSync(root) && (await accepts(httpsPort))); waited += 100) {
        if (waited > 20_000 || caddy.exitCode !== null) throw new Error(`Caddy did not start:\n${output}`);
        await sleep(100);
      }
    }, 60_000);

    afterAll(async () => {
      caddy?.kill('SIGTERM');
      await server?.close();
      if (home) fs.rmSync(home, { recursive: true, force: true });
    });

    const rootCertificate = () =>
      fs.readFileSync(path.join(home, 'data', 'pki', 'authorities', 'local', 'root.crt'));

    it('gets a certificate for a held hostname on first connection, and serves its page', async () => {
      const answer = await getOverTls(httpsPort, HOSTNAME, '/spring', rootCertificate());
      expect(answer.status, output).toBe(200);
      expect(answer.certificateFor).toBe(`DNS:${HOSTNAME}`);
      expect(answer.body).toContain('data-tailor-token=');
      const tracker = await getOverTls(httpsPort, HOSTNAME, '/v0/public/tracker.js', rootCertificate());
      expect(tracker.status).toBe(200);
    });

    it('gets no certificate for a name that no tenant holds', async () => {
      await expect(
        getOverTls(httpsPort, 'free.northwind.example', '/spring', rootCertificate()),
      ).rejects.toThrow();
      expect(
        fs.readdirSync(path.join(home, 'data', 'certificates'), { recursive: true }).join(' '),
      ).not.toContain('free.northwind.example');
    });
  },
);
