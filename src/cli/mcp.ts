import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TailorError, TailorProblem } from '@tailor/client';
import { type ClientConfig, ConfigError } from '../config.ts';
import { mcpServer, openToolbox, type Toolbox } from '../mcp/server.ts';

/** The toolbox of the key, or the configuration error that keeps the host from starting us. */
async function toolbox({ url, apiKey }: ClientConfig): Promise<Toolbox> {
  try {
    return await openToolbox({ baseUrl: url, apiKey });
  } catch (error) {
    if (error instanceof TailorProblem)
      throw new ConfigError('TAILOR_API_KEY', `was refused by ${url}: ${error.problem.detail}`);
    if (error instanceof TailorError)
      throw new ConfigError('TAILOR_URL', `${url} could not be used: ${error.message}`);
    const cause = error instanceof Error ? (error.cause ?? error) : error;
    throw new ConfigError('TAILOR_URL', `${url} could not be used: ${String(cause)}`);
  }
}

/**
 * `tailor mcp`: a Model Context Protocol server on stdin and stdout, a client of a running Tailor
 * server over HTTP like any other (docs/agents.md). Stdout is the protocol's: nothing else is written there.
 */
export async function mcp(config: ClientConfig): Promise<void> {
  const server = mcpServer(await toolbox(config));
  await server.connect(new StdioServerTransport());
}
