import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadClientConfig, loadConfig } from '../../src/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The variables named in the first column of docs/configuration.md's tables headed "Variable". */
function documentedVariables(): string[] {
  const variables: string[] = [];
  let inVariableTable = false;
  for (const line of fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8').split('\n')) {
    const firstCell = line.startsWith('|') ? line.split('|')[1]?.trim() : undefined;
    if (firstCell === undefined) inVariableTable = false;
    else if (firstCell === 'Variable') inVariableTable = true;
    else if (inVariableTable && !/^-+$/.test(firstCell)) variables.push(firstCell.replace(/^`|`$/g, ''));
  }
  return variables;
}

/** The names the server's and the MCP client's configurations look up in `env`, recorded as they read them. */
function variablesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
  loadConfig(recording);
  loadClientConfig(recording);
  return read;
}

function sourceFiles(directory: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, directory), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|js)$/.test(file))
    .map((file) => path.join(directory, file));
}

describe('docs/configuration.md', () => {
  it('documents every variable the configuration reads, once, and no other', () => {
    const documented = documentedVariables();
    expect(documented.length).toBeGreaterThan(0);
    expect(new Set(documented).size, 'a variable is documented twice').toBe(documented.length);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('CONFIG_VARIABLES is what loadConfig and loadClientConfig read (with S3 configured, so that its variables are read too)', () => {
    const read = variablesRead({ TAILOR_S3_BUCKET: 'tailor-files', TAILOR_API_KEY: 'tlr_key' });
    expect([...read].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('nothing else in src/ or bin/ reads the environment', () => {
    const readers = [...sourceFiles('src'), ...sourceFiles('bin')].filter((file) =>
      fs.readFileSync(path.join(ROOT, file), 'utf8').includes('process.env'),
    );
    expect(readers).toEqual([path.join('src', 'config.ts')]);
  });
});
