import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';

/**
 * Counts the statements run through the database it is plugged into: by their results, so that
 * compiled statements (src/db/compiled.ts), which skip building and so transformQuery, count too.
 */
export class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.count += 1;
    return args.result;
  }
}
