import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { personCreates } from '../ceiling-writes.ts';
import { parseOptions, printSetting } from '../harness.ts';
import type { Scenario } from '../scenario.ts';

/** Creates `count` persons in groups of `group`, each group answered once it has committed. */
async function createInGroups(
  create: Awaited<ReturnType<typeof personCreates>>,
  next: () => number,
  count: number,
  group: number,
): Promise<void> {
  const run = randomBytes(4).toString('hex');
  for (let made = 0; made < count; made += group) {
    await new Promise<void>((resolve) => {
      let waiting = group;
      for (let i = 0; i < group; i++) {
        const n = next();
        const body = { name: `Dana Reyes ${run}${n}`, email: `dana.${run}${n}@northwind-${n % 100}.example` };
        create(body, () => {
          if (--waiting === 0) resolve();
        });
      }
    });
  }
}

export default {
  name: 'person-sql',
  summary:
    "a person's create's SQLite statements alone (the ceiling's create layer without HTTP): µs of CPU and wall a person, in groups, as the persons grow",
  usage: '--group 20 --persons 60000 --steps 3',
  async run(args) {
    const { group, persons, steps } = parseOptions(args, { group: 20, persons: 60_000, steps: 3 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-person-sql-'));
    try {
      const create = await personCreates(dir);
      printSetting(
        `one process, no HTTP; groups of ${group} creates, one commit each (synchronous = FULL); ${persons} persons in ${steps} steps`,
      );
      let made = 0;
      const perStep = Math.ceil(persons / steps / group) * group;
      for (let step = 0; step < steps; step++) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        await createInGroups(create, () => ++made, perStep, group);
        const { user, system } = process.cpuUsage(cpu);
        const wallUs = (performance.now() - started) * 1000;
        console.log(
          `persons ${made}: ${((user + system) / perStep).toFixed(1)} µs CPU, ${(wallUs / perStep).toFixed(1)} µs wall a person`,
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
} satisfies Scenario;
