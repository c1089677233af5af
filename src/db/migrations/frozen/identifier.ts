const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * `name` as it may stand unquoted in SQL that a migration writes out: lowercase letters, digits and
 * underscores, not starting with a digit. Anything else throws, so no name reaches `sql.raw` that
 * could be read as more than a name.
 */
export function identifier(name: string): string {
  if (!IDENTIFIER.test(name))
    throw new Error(`Not an identifier a migration may write out: ${JSON.stringify(name)}`);
  return name;
}
