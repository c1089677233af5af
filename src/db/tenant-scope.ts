import {
  AliasNode,
  BinaryOperationNode,
  ColumnNode,
  type DeleteQueryNode,
  IdentifierNode,
  type JoinNode,
  type KyselyPlugin,
  OnNode,
  type OperationNode,
  OperationNodeTransformer,
  OperatorNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  ReferenceNode,
  type RootOperationNode,
  type SelectQueryNode,
  TableNode,
  type UnknownRow,
  type UpdateQueryNode,
  ValueNode,
  WhereNode,
} from 'kysely';

/** Tables whose rows belong to no tenant, and Kysely's own; every other table has a tenant_id. */
const SHARED_TABLES = new Set(['tenants', 'schedules', 'kysely_migration', 'kysely_migration_lock']);

/**
 * Adds `tenant_id = <tenant>` for every tenant table a query reads, changes or joins, and in every
 * subquery: to the WHERE clause for the tables it selects from, updates or deletes from, and to the
 * ON clause of each join, so that an outer join stays one. A query of one tenant cannot reach another
 * tenant's row through any table it names, whatever ids collide.
 */
class TenantScope extends OperationNodeTransformer {
  /** Names the statement gives its common table expressions: they are not tables of the database. */
  private readonly expressions = new Set<string>();

  constructor(private readonly tenantId: string) {
    super();
  }

  /** How a table is named in the statement (its alias when it has one), when it is a tenant's table. */
  private scopedName(node: OperationNode): string | undefined {
    const aliased = AliasNode.is(node) ? node : undefined;
    const table = aliased ? aliased.node : node;
    if (!TableNode.is(table)) return undefined;
    const name = table.table.identifier.name;
    if (SHARED_TABLES.has(name) || this.expressions.has(name)) return undefined;
    return aliased && IdentifierNode.is(aliased.alias) ? aliased.alias.name : name;
  }

  private noteExpressions(node: SelectQueryNode | UpdateQueryNode | DeleteQueryNode): void {
    for (const expression of node.with?.expressions ?? []) {
      this.expressions.add(expression.name.table.table.identifier.name);
    }
  }

  private ownedBy(name: string): OperationNode {
    return BinaryOperationNode.create(
      ReferenceNode.create(ColumnNode.create('tenant_id'), TableNode.create(name)),
      OperatorNode.create('='),
      ValueNode.create(this.tenantId),
    );
  }

  private scopeWhere(where: WhereNode | undefined, tables: readonly OperationNode[]): WhereNode | undefined {
    let scoped = where;
    for (const table of tables) {
      const name = this.scopedName(table);
      if (!name) continue;
      const condition = this.ownedBy(name);
      scoped = scoped ? WhereNode.cloneWithOperation(scoped, 'And', condition) : WhereNode.create(condition);
    }
    return scoped;
  }

  private scopeJoins(joins: readonly JoinNode[] | undefined): readonly JoinNode[] | undefined {
    return joins?.map((join) => {
      const name = this.scopedName(join.table);
      if (!name) return join;
      const condition = this.ownedBy(name);
      return {
        ...join,
        on: join.on ? OnNode.cloneWithOperation(join.on, 'And', condition) : OnNode.create(condition),
      };
    });
  }

  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    this.noteExpressions(node);
    const query = super.transformSelectQuery(node);
    return {
      ...query,
      where: this.scopeWhere(query.where, query.from?.froms ?? []),
      joins: this.scopeJoins(query.joins),
    };
  }

  protected override transformUpdateQuery(node: UpdateQueryNode): UpdateQueryNode {
    this.noteExpressions(node);
    const query = super.transformUpdateQuery(node);
    const tables = [...(query.table ? [query.table] : []), ...(query.from?.froms ?? [])];
    return { ...query, where: this.scopeWhere(query.where, tables), joins: this.scopeJoins(query.joins) };
  }

  protected override transformDeleteQuery(node: DeleteQueryNode): DeleteQueryNode {
    this.noteExpressions(node);
    const query = super.transformDeleteQuery(node);
    const tables = [...query.from.froms, ...(query.using?.tables ?? [])];
    return { ...query, where: this.scopeWhere(query.where, tables), joins: this.scopeJoins(query.joins) };
  }
}

/** A Kysely plugin that limits every statement to one tenant's rows (see TenantScope). */
export class TenantScopePlugin implements KyselyPlugin {
  constructor(private readonly tenantId: string) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return new TenantScope(this.tenantId).transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
