/**
 * Where a CPU profile's time went: `npx tsx bench/profile.ts <file.cpuprofile> [top]` prints the
 * self time by package (or by file for the project's own code) and the top functions, as shares of
 * the busy time (idle and GC shown apart).
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

const selfTime = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});

/** A package name for code under node_modules, the path under src/ for the project's, else the kind. */
function area(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const module = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (module) return module[1] as string;
  const own = url.match(/\/(src|bench)\/(.*)$/);
  if (own) return `${own[1]}/${own[2]}`;
  return url.startsWith('node:') ? url : '(other)';
}

const areas = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, time] of selfTime) {
  const { callFrame } = byId.get(id) as ProfileNode;
  total += time;
  const where = area(callFrame.url, callFrame.functionName);
  areas.set(where, (areas.get(where) ?? 0) + time);
  const name = `${callFrame.functionName || '(anonymous)'} ${where}:${callFrame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + time);
}
const idle = (areas.get('(idle)') ?? 0) + (areas.get('(program)') ?? 0);
const busy = total - idle;
const share = (time: number) => `${((100 * time) / busy).toFixed(1).padStart(5)} %`;
const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, time] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    if (name.startsWith('(idle)') || name.startsWith('(program)')) continue;
    console.log(`${share(time)}  ${(time / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
};
console.log(
  `profile ${file}: ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (idle and program ${(idle / 1e6).toFixed(1)} s); shares of busy time`,
);
print('by area (self time)', areas);
print('by function (self time)', functions);
