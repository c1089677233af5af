/**
 * One benchmark scenario, as `npm run bench` runs it: `bench/run.ts` lists the scenarios, runs them
 * all (each with its default options) or the one named (`npm run bench -- <name> [options]`), each
 * on SQLite, or on PostgreSQL when DATABASE_URL is set.
 */
export interface Scenario {
  /** What to type after `npm run bench --`. */
  name: string;
  /** One line for the list of scenarios. */
  summary: string;
  /** Its options as `--name value` pairs with their defaults, for the usage text; '' when none. */
  usage: string;
  /** Runs it with the arguments after its name (none in a full run), printing its results. */
  run(args: string[]): Promise<void>;
}
