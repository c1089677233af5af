import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TailorProblem } from '@tailor/client';
import { ConfigError } from '../config.ts';
import { mcpServer, openToolbox, type Toolbox } from '../mcp/server.ts';

/** Where `npm start` listens: an agent on the same machine needs no TAILOR_URL. */
const DEFAULT_URL = 'http://127.0.0.1:8080';

/** The toolbox of the key, or the configuration error that keeps the host from starting us. */
async function toolbox(env: NodeJS.ProcessEnv, url: string | undefined): Promise<Toolbox> {
  const apiKey = env.TAILOR_API_KEY;
  if (!apiKey) throw new ConfigError('TAILOR_API_KEY', 'is required: an API key of `tailor keys create`');
  const baseUrl = url ?? env.TAILOR_URL ?? DEFAULT_URL;
  if (!URL.canParse(baseUrl)) throw new ConfigError('TAILOR_URL', `is not a URL: ${baseUrl}`);
  try {
    return await openToolbox({ baseUrl, apiKey });
  } catch (error) {
    if (error instanceof TailorProblem)
      throw new ConfigError('TAILOR_API_KEY', `was refused by ${baseUrl}: ${error.problem.detail}`);
    const cause = error instanceof Error ? (error.cause ?? error) : error;
    throw new ConfigError('TAILOR_URL', `${baseUrl} could not be used: ${String(cause)}`);
  }
}

/**
 * `tailor mcp`: a Model Context Protocol server on stdin and stdout, a client of a running Tailor
 * server over HTTP like any other (docs/agents.md). Stdout is the protocol's: nothing else is written there.
 */
export async function mcp(url: string | undefined): Promise<void> {
  const server = mcpServer(await toolbox(process.env, url));
  await server.connect(new StdioServerTransport());
}
