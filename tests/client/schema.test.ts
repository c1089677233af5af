import fs from 'node:fs';
import { expect, it } from 'vitest';
import { currentSchema, SCHEMA_FILE } from '../../clients/typescript/scripts/generate.ts';

// CI runs this: a change to the API that is not regenerated into the client fails the build.
it('the committed client schema is the one the current OpenAPI document generates', async () => {
  const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
  const generated = await currentSchema();
  expect(generated === committed, `${SCHEMA_FILE} is stale: run npm run generate:client`).toBe(true);
});
