import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { type Environment, freePort, freshEnvironment } from '../helpers/process.ts';

/**
 * Runs docs/getting-started.md as a reader would: the `npm start` of its first block in one
 * terminal, every other command, block by block, in a second one (one shell, so that variables and
 * the background receiver carry over). Only the addresses change, to free ports, and the key, to
 * the one the banner printed.
 */
const GUIDE = fs.readFileSync('docs/getting-started.md', 'utf8');
const BLOCKS = [...GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const WAIT_MS = 60_000;

/** Output of a process, and a way to wait until it shows something. */
class Output {
  text = '';
  private exited = false;

  constructor(child: ChildProcess) {
    child.on('exit', () => {
      this.exited = true;
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      this.text += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.text += chunk.toString();
    });
  }

  async waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    for (const started = Date.now(); Date.now() - started < WAIT_MS; await sleep(50)) {
      const match = this.text.match(pattern);
      if (match) return match;
      if (this.exited) break;
    }
    throw new Error(`gave up waiting for ${pattern}; output so far:\n${this.text}`);
  }
}

/** Waits until the server that printed its banner has started listening. */
async function listening(url: string): Promise<void> {
  for (const started = Date.now(); Date.now() - started < WAIT_MS; await sleep(50)) {
    if (
      await fetch(url).then(
        (response) => response.ok,
        () => false,
      )
    )
      return;
  }
  throw new Error(`${url} never answered`);
}

/** A shell in its own process group, so that it and whatever it starts can be stopped together. */
function shell(env: Record<string, string>, script?: string): ChildProcess {
  return spawn('bash', script ? ['-c', script] : ['--noprofile', '--norc', '-s'], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

function stop(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

describe('docs/getting-started.md', () => {
  const started: ChildProcess[] = [];
  let environment: Environment | undefined;
  afterAll(async () => {
    for (const child of started) stop(child);
    await environment?.drop();
  });

  it('every command works as written, and ends with a served page and verified webhooks', async () => {
    environment = await freshEnvironment();
    const [apiPort, pagesPort, receiverPort] = [await freePort(), await freePort(), await freePort()];
    const localize = (text: string) =>
      text
        .replaceAll('127.0.0.1:8080', `127.0.0.1:${apiPort}`)
        .replaceAll('127.0.0.1:8081', `127.0.0.1:${pagesPort}`)
        .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`);
    const env = {
      ...environment.env,
      PORT: String(apiPort),
      TAILOR_PAGES_PORT: String(pagesPort),
      RECEIVER_PORT: String(receiverPort),
    };

    const [first = '', ...rest] = BLOCKS;
    expect(first).toContain('npm install');
    // The suite runs after `npm install`; the start command runs exactly as the guide gives it.
    const start = first.split('\n').find((line) => line.includes('npm start')) ?? '';
    const server = shell(env, start);
    started.push(server);
    const serverOutput = new Output(server);
    const [, key] = await serverOutput.waitFor(/API key: (tlr_\S+)/);
    await listening(`http://127.0.0.1:${apiPort}/healthz`);

    const terminal = shell(env);
    started.push(terminal);
    const output = new Output(terminal);
    terminal.stdin?.write('set -eo pipefail\n');
    for (const [index, block] of rest.entries()) {
      const commands = localize(block).replace(/^export KEY=.*$/m, `export KEY=${key}`);
      terminal.stdin?.write(`${commands}\necho "__block_${index}_done__"\n`);
      await output.waitFor(new RegExp(`__block_${index}_done__`));
      // A reader starts typing the next command once the receiver says it is listening.
      if (block.includes('webhook-receiver')) await output.waitFor(/receiving webhooks at/);
    }

    expect(output.text).toContain('"slug": "default"');
    await output.waitFor(/verified webhook\.test evt_/);
    await output.waitFor(/verified page\.version\.published evt_/);
    expect(output.text).toMatch(/<h1[^>]*>[^<]*Spring launch/);
    expect(output.text).toContain(`"url": "http://127.0.0.1:${pagesPort}/p/default/spring/ada"`);
    expect(output.text).toMatch(/"state": "succeeded"/);
    expect(output.text).not.toContain('rejected a delivery');
    expect(terminal.exitCode).toBeNull();
  }, 120_000);
});
