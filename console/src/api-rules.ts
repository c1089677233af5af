import { useEffect, useState } from 'preact/hooks';

/**
 * The rules the API advertises for what it takes: the schemas of its OpenAPI document
 * (GET /v0/openapi.json, which needs no key), read once, so that a form states the server's own
 * limits before input and no limit is written twice.
 */

export interface FieldRule {
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, FieldRule>;
}

/** The schemas of the API's document, by name. */
export type ApiSchemas = Record<string, FieldRule>;

let schemasLoad: Promise<ApiSchemas> | undefined;

function loadSchemas(): Promise<ApiSchemas> {
  schemasLoad ??= fetch('/v0/openapi.json')
    .then((response) => {
      if (!response.ok) throw new Error(`The API's document answered ${response.status}`);
      return response.json() as Promise<{ components: { schemas: ApiSchemas } }>;
    })
    .then((document) => document.components.schemas)
    .catch((error: unknown) => {
      // Asked again by the next form: the limits are shown once the document can be read.
      schemasLoad = undefined;
      throw error;
    });
  return schemasLoad;
}

/**
 * The API's schemas, once its document is read: until then (or if it cannot be read) a form says
 * nothing of the limits, and the API still holds them.
 */
export function useApiSchemas(): ApiSchemas | undefined {
  const [schemas, setSchemas] = useState<ApiSchemas>();
  useEffect(() => {
    let gone = false;
    loadSchemas().then(
      (loaded) => {
        if (!gone) setSchemas(loaded);
      },
      () => undefined,
    );
    return () => {
      gone = true;
    };
  }, []);
  return schemas;
}

/** The rule of `field` (`content/content`) in the schema named `schema` (`TopicEntryCreate`). */
export function fieldRule(
  schemas: ApiSchemas | undefined,
  schema: string,
  field: string,
): FieldRule | undefined {
  let rule = schemas?.[schema];
  for (const name of field.split('/')) rule = rule?.properties?.[name];
  return rule;
}
