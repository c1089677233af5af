import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

function read(document: string): string {
  return fs.readFileSync(path.join(ROOT, document), 'utf8');
}

/** The text outside fenced code blocks, where links and headings are. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** Heading anchors as GitHub makes them: lowercased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading = ''] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    result.add(repeats === 0 ? base : `${base}-${repeats}`);
  }
  return result;
}

/** Targets of the inline links of a document, outside code. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?: +"[^"]*")?\)/g)].map((match) => match[1] as string);
}

function isInsideRepository(file: string): boolean {
  const relative = path.relative(ROOT, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** What is wrong with a relative link of `document`, if anything. */
function brokenLink(document: string, target: string): string | undefined {
  const [file = '', anchor] = target.split('#');
  const resolved = file === '' ? path.join(ROOT, document) : path.resolve(ROOT, path.dirname(document), file);
  if (!isInsideRepository(resolved)) return 'points outside the repository';
  if (!fs.existsSync(resolved)) return 'names no file of the repository';
  if (anchor !== undefined && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
    return `names no heading of ${path.relative(ROOT, resolved)}`;
  }
  return undefined;
}

describe('links in README.md and docs/', () => {
  it.each(DOCUMENTS)(
    'every relative link of %s resolves to a file and heading in the repository',
    (document) => {
      const problems = linkTargets(read(document))
        .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))
        .map((target) => [target, brokenLink(document, target)])
        .filter(([, problem]) => problem !== undefined)
        .map(([target, problem]) => `${target}: ${problem}`);
      expect(problems).toEqual([]);
    },
  );

  it.each(DOCUMENTS)('%s names no path outside the repository, in links or in code', (document) => {
    const outside = [...read(document).matchAll(/(?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*/g)]
      .map((match) => match[0])
      .filter((reference) => !isInsideRepository(path.resolve(ROOT, path.dirname(document), reference)));
    expect(outside).toEqual([]);
  });
});
