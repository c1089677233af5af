// The version the client names in its User-Agent, read from package.json when it is built, so that
// the number is written in one place. src/version.ts is generated (and ignored by git).
import fs from 'node:fs';

const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
fs.writeFileSync(
  new URL('../src/version.ts', import.meta.url),
  `/** This package's version, from package.json (written by scripts/write-version.mjs at build time). */\nexport const VERSION = '${version}';\n`,
);
