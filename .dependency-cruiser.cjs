/**
 * The layers of src/ and the one direction imports may go (docs/architecture.md draws them):
 *
 *   assembly   app.ts, server.ts, wiring.ts, background.ts, storage.ts, config.ts, secret.ts, cli/
 *   public/    the visitor side over HTTP
 *   workflows/ what spans resources
 *   resources/ one resource each, a leaf: never another resource
 *   db/ http/ jobs/   infrastructure, free of features
 *   shared/    utilities that know nothing of the service
 *   mcp/       the MCP server of `tailor mcp`, beside them all: a client of the API over HTTP (shared/ only)
 *
 * Type-only imports count: a type from another resource couples as surely as a value does.
 * `npm run lint` runs this; there is no exception list.
 */
const ASSEMBLY = '^src/(app|server|wiring|background|storage|config|secret)[.]ts$|^src/cli/';

/** Only files under `owner` import the store.ts and tables.ts found under `folder`. */
function tablesStayIn(name, owner, folder, comment) {
  return {
    name,
    severity: 'error',
    comment,
    from: { path: '^src/', pathNot: owner },
    to: { path: `${folder}(store|tables)[.]ts$` },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other cannot be understood, tested or changed one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resources-are-leaves',
      severity: 'error',
      comment:
        'A resource never imports another resource: a workflow composes them, or the server answers what one needs (src/wiring.ts).',
      from: { path: '^src/resources/([^/]+)/' },
      to: { path: '^src/resources/', pathNot: '^src/resources/$1/' },
    },
    {
      name: 'resources-import-only-infrastructure',
      severity: 'error',
      comment: 'A resource builds on db/, http/, jobs/ and shared/ alone.',
      from: { path: '^src/resources/' },
      to: { path: `^src/(workflows|public)/|${ASSEMBLY}` },
    },
    {
      name: 'infrastructure-is-free-of-features',
      severity: 'error',
      comment: 'db/, http/ and jobs/ know no resource or workflow: the server hands them what they need.',
      from: { path: '^src/(db|http|jobs)/' },
      to: { path: `^src/(resources|workflows|public)/|${ASSEMBLY}` },
    },
    {
      name: 'shared-knows-nothing-of-the-service',
      severity: 'error',
      comment: 'shared/ holds utilities that any layer may use, so it may use no other layer.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'workflows-stay-below-the-assembly',
      severity: 'error',
      comment:
        'Workflows compose resources; the visitor side and the assembly use workflows, not the reverse.',
      from: { path: '^src/workflows/' },
      to: { path: `^src/public/|${ASSEMBLY}` },
    },
    {
      name: 'public-stays-below-the-assembly',
      severity: 'error',
      comment: 'The visitor side is registered by the server; it does not reach back into it.',
      from: { path: '^src/public/' },
      to: { path: ASSEMBLY },
    },
    {
      name: 'mcp-is-a-client-of-the-api',
      severity: 'error',
      comment:
        "The MCP server (tailor mcp) reaches Tailor over HTTP through @tailor/client, like any client: it imports no module of the server, only shared/'s utilities, which know nothing of it (the words its refusals share with the API's; docs/agents.md).",
      from: { path: '^src/mcp/' },
      to: { path: '^src/', pathNot: '^src/(mcp|shared)/' },
    },
    tablesStayIn(
      'tables-stay-in-their-resource',
      '^src/resources/',
      '^src/resources/[^/]+/',
      "A resource's tables and its SQL are its own: only files inside src/resources/<name>/ import its store.ts and tables.ts (between resources, resources-are-leaves forbids every import). Others call its service.",
    ),
    tablesStayIn(
      'job-tables-stay-in-jobs',
      '^src/jobs/',
      '^src/jobs/',
      "The queue's tables and SQL are its own: only src/jobs/ imports jobs/store.ts and jobs/tables.ts.",
    ),
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment:
        'A migration is history: it imports kysely, the runtime and its own folder (frozen/ helpers that never change), never live code whose change would change what it did (docs/architecture.md).',
      from: { path: '^src/db/migrations/' },
      to: { pathNot: '^(src/db/migrations/|node_modules/kysely/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead code, or a module that was forgotten.',
      from: { orphan: true, path: '^src/', pathNot: '^src/db/migrations/\\d{4}_[a-z0-9_]+[.]ts$' },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-undeclared-dependencies',
      severity: 'error',
      comment: 'Every package src/ uses is a dependency in package.json.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
