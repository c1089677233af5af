/**
 * The OpenAPI document with every `#/components/schemas/…` reference replaced by the schema it
 * names, for tests that read schemas where an operation uses them. The document's named schemas
 * do not refer to themselves, so the result is finite.
 */
export function inlineSchemaReferences<T>(document: T): T {
  const schemas =
    (document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== 'object' || value === null) return value;
    const { $ref } = value as { $ref?: unknown };
    if (typeof $ref === 'string' && $ref.startsWith('#/components/schemas/')) {
      return inline(schemas[$ref.slice('#/components/schemas/'.length)]);
    }
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, inline(child)]));
  };
  return inline(document) as T;
}
