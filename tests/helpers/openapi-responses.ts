import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Checks a live answer against the OpenAPI document the server serves, as a third-party validator
 * would: its status is one the operation declares, its media type one that status declares (none
 * when it declares no content), its headers those declared (required ones present, every value of
 * its schema, and no header the document defines sent where it is not declared), and its body valid
 * by the declared schema under a strict JSON Schema 2020-12 validator.
 */

type Json = Record<string, unknown>;

interface HeaderObject {
  required?: boolean;
  schema?: Json;
  $ref?: string;
}

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: Json }>;
}

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: {
    schemas: Record<string, Json>;
    responses?: Record<string, ResponseObject>;
    headers?: Record<string, HeaderObject>;
  };
}

export interface LiveAnswer {
  status: number;
  headers: Headers;
  text: string;
}

const SCHEMA_BASE = 'https://tailor.test/schemas/';

/** `#/components/schemas/X` → an absolute id the validator knows each named schema by. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) =>
      key === '$ref' && typeof child === 'string'
        ? [key, child.replace('#/components/schemas/', SCHEMA_BASE)]
        : [key, absoluteRefs(child)],
    ),
  );
}

export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(private readonly document: Document) {
    addFormats.default(this.ajv);
    // OpenAPI's own format for bytes: any string.
    this.ajv.addFormat('binary', true);
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      this.ajv.addSchema({ ...(absoluteRefs(schema) as Json), $id: `${SCHEMA_BASE}${name}` });
    }
  }

  private resolve<T extends { $ref?: string }>(value: T, section: 'responses' | 'headers'): T {
    if (!value.$ref) return value;
    const name = value.$ref.slice(`#/components/${section}/`.length);
    const found = this.document.components[section]?.[name];
    if (!found) throw new Error(`${value.$ref} is not in the document`);
    return found as T;
  }

  private validator(schema: Json): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(absoluteRefs(schema) as Json);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** What is wrong with `answer` to `method` on the operation at `template`; empty when nothing is. */
  violations(method: string, template: string, answer: LiveAnswer): string[] {
    const operation = this.document.paths[template]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${template} is not an operation of the document`];
    const status = String(answer.status);
    const declared = operation.responses[status] ?? operation.responses[`${status[0]}XX`];
    if (!declared) return [`status ${status} is not declared`];
    const response = this.resolve(declared, 'responses');
    return [...this.headerViolations(response, answer.headers), ...this.bodyViolations(response, answer)];
  }

  private headerViolations(response: ResponseObject, headers: Headers): string[] {
    const violations: string[] = [];
    const declared = Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, header]) => [
        name.toLowerCase(),
        this.resolve(header, 'headers'),
      ]),
    );
    for (const [name, header] of Object.entries(declared)) {
      const value = headers.get(name);
      if (value === null) {
        if (header.required) violations.push(`required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!this.validator(schema)(typed))
        violations.push(`header ${name}: ${JSON.stringify(value)} breaks its schema`);
    }
    for (const name of Object.keys(this.document.components.headers ?? {})) {
      if (headers.has(name) && !(name.toLowerCase() in declared)) {
        violations.push(`header ${name} is sent but not declared`);
      }
    }
    return violations;
  }

  private bodyViolations(response: ResponseObject, answer: LiveAnswer): string[] {
    const contentType = answer.headers.get('content-type');
    if (!response.content) {
      return contentType !== null || answer.text !== ''
        ? [`no content is declared, yet it sent ${contentType} "${answer.text.slice(0, 80)}"`]
        : [];
    }
    if (contentType === null) return ['no content-type, though content is declared'];
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const match = Object.entries(response.content).find(
      ([declared]) =>
        declared === mediaType || (declared.endsWith('/*') && mediaType.startsWith(declared.slice(0, -1))),
    );
    if (!match) return [`media type ${mediaType} is not one of ${Object.keys(response.content)}`];
    const schema = match[1].schema;
    if (!schema || !mediaType.endsWith('json')) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return ['the body is not JSON'];
    }
    const validate = this.validator(schema);
    return validate(body)
      ? []
      : [`the body breaks its schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`];
  }
}
