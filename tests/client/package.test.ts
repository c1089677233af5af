import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.ts';

// Decisions §9, "The typed client is a package": packed as npm would publish it, installed into an
// empty project, it runs under plain Node (no TypeScript at run time) and type-checks with a default
// `tsc --module nodenext`, and with `exactOptionalPropertyTypes`. Nothing is fetched from a
// registry: the client's dependencies are packed from this repository's node_modules and installed
// from those tarballs with `--offline`.

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** A program that uses the client as a caller would: every entry point, then one line of JSON. */
const CONSUMER = `import {
  createTailorClient,
  type Person,
  paginate,
  TailorConnectionError,
  TailorProblem,
  TailorTimeoutError,
  unwrap,
  VERSION,
} from '@tailor/client';

const [baseUrl = '', apiKey = ''] = process.argv.slice(2);
const tailor = createTailorClient({ baseUrl, apiKey, maxRetries: 1, timeout: 10_000 });
const tenant = await unwrap(tailor.GET('/v0/tenant'));
const person: Person = await unwrap(
  tailor.withOptions({ timeout: 5_000 }).POST('/v0/persons', { body: { name: 'Packed' } }),
);
const names: string[] = [];
for await (const each of paginate(tailor, '/v0/persons', { params: { query: { limit: 10 } } })) {
  names.push(each.name);
}
const missing = await unwrap(
  tailor.GET('/v0/persons/{person_id}', { params: { path: { person_id: 'person_00000000000000000000000000' } } }),
).catch((error: unknown) => error);
const code = missing instanceof TailorProblem ? missing.code : 'none';
const kinds = [TailorConnectionError, TailorTimeoutError].map((kind) => kind.name);
console.log(JSON.stringify({ version: VERSION, slug: tenant.slug, person: person.name, names, code, kinds }));
`;

/** npm as a caller runs it: none of the npm_* settings of the npm that may be running these tests. */
const npmEnvironment = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
);

function npm(args: string[], cwd: string) {
  return run('npm', [...args, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd, env: npmEnvironment });
}

/** The directory of `name` as Node would find it from `from`: the nearest node_modules that has it. */
function installed(name: string, from: string): string {
  for (let directory = from; ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (directory === path.dirname(directory)) throw new Error(`${name} is not installed`);
  }
}

/** `names` and everything they depend on, as installed here. */
function closure(names: string[], from: string, found = new Map<string, string>()): Map<string, string> {
  for (const name of names) {
    if (found.has(name)) continue;
    const directory = installed(name, from);
    found.set(name, directory);
    const manifest = JSON.parse(fs.readFileSync(path.join(directory, 'package.json'), 'utf8'));
    closure(Object.keys(manifest.dependencies ?? {}), directory, found);
  }
  return found;
}

let server: TestServer;
let directory: string;
let project: string;

beforeAll(async () => {
  server = await startServer();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-client-package-'));
  project = path.join(directory, 'consumer');
  fs.mkdirSync(project);
  // `npm pack` runs the package's prepack, which builds dist/ from the sources as they are now.
  await run('npm', ['pack', '--pack-destination', directory], { cwd: PACKAGE, env: npmEnvironment });
  const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  // @types/node: the consumer is a Node program (and standardwebhooks' types name Buffer).
  const dependencies = closure([...Object.keys(manifest.dependencies), '@types/node'], PACKAGE);
  await Promise.all(
    [...dependencies.values()].map((from) => npm(['pack', '--pack-destination', directory], from)),
  );

  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const tarballs = fs.readdirSync(directory).filter((name) => name.endsWith('.tgz'));
  await npm(['install', '--offline', ...tarballs.map((name) => path.join(directory, name))], project);
  fs.writeFileSync(path.join(project, 'consumer.ts'), CONSUMER);
}, 180_000);
afterAll(async () => {
  await server.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('@tailor/client packed and installed elsewhere', () => {
  it('holds the build, its types, the licence and the changelog, and no TypeScript source', () => {
    const files = fs.readdirSync(path.join(project, 'node_modules/@tailor/client')).sort();
    expect(files).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'dist', 'package.json']);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(project, 'node_modules/@tailor/client/package.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({ license: 'MIT', exports: { '.': { types: './dist/index.d.ts' } } });
    expect(manifest.private).toBeUndefined();
    const built = fs.readdirSync(path.join(project, 'node_modules/@tailor/client/dist'));
    expect(built.filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))).toEqual([]);
  });

  it('type-checks with a default tsc --module nodenext and with exactOptionalPropertyTypes, and runs under plain node', async () => {
    await run(
      'node',
      [TSC, '--module', 'nodenext', '--noEmit', '--strict', '--exactOptionalPropertyTypes', 'consumer.ts'],
      { cwd: project },
    );
    await run('node', [TSC, '--module', 'nodenext', 'consumer.ts'], { cwd: project });

    const tenant = await server.newTenant();
    const { stdout } = await run('node', ['consumer.js', server.url, tenant.apiKey as string], {
      cwd: project,
    });
    const { version } = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
    expect(JSON.parse(stdout)).toEqual({
      version,
      slug: expect.any(String),
      person: 'Packed',
      names: ['Packed'],
      code: 'not_found',
      kinds: ['TailorConnectionError', 'TailorTimeoutError'],
    });
  }, 120_000);
});
