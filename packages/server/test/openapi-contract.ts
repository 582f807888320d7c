import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { AJV_OPTIONS, withNinepointKeywords } from '../src/compile/ajv.ts';
import type { OpenApiDocument, Operation, Response } from '../src/compile/openapi.ts';

/** An answer as the contract sees it: the request's method and path, and what was sent back. */
export interface ContractAnswer {
  method: string;
  /** The path, without its query. */
  path: string;
  status: number;
  /** The `Content-Type` header as sent, parameters included; undefined when there is none. */
  contentType: string | undefined;
  /** The body as sent; undefined when it is a stream (a page's file, server-sent events). */
  body: string | undefined;
}

/** Why an answer breaks the document: the operation, the status and what is wrong. */
export interface ContractViolation {
  operation: string;
  status: number;
  message: string;
}

const PROBLEM_COMPONENT = 'ninepoint.Problem';
const DOCUMENT_ID = 'openapi.json';

interface PathTemplate {
  path: string;
  pattern: RegExp;
  /** Literal paths before templated ones: `/api/loans/summary` is not `/api/loans/{id}`. */
  templated: number;
}

/**
 * The served OpenAPI document as a checker of answers: each answer must have a status the
 * operation documents (or `default`), a documented content type, and a JSON body valid against
 * that response's schema (Ajv 2020-12, as OpenAPI 3.1 says, with the server's formats and decimal
 * `multipleOf`). Problem answers on paths the document does not describe (UNKNOWN_CALL) must
 * still be a `ninepoint.Problem`. A validator is compiled once per operation, status and content
 * type, on first use.
 */
export class OpenApiContract {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #templates: readonly PathTemplate[];
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.#document = document;
    // The document holds OpenAPI's own words (`example`, `x-column`) among the schemas.
    this.#ajv = withNinepointKeywords(new Ajv2020({ ...AJV_OPTIONS, strict: false, validateFormats: true }));
    this.#ajv.addSchema(document as object, DOCUMENT_ID);
    this.#templates = Object.keys(document.paths)
      .map((path) => ({
        path,
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        templated: (path.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.templated - b.templated);
  }

  /** What is wrong with an answer, or null when the document describes it. */
  check(answer: ContractAnswer): ContractViolation | null {
    const method = answer.method.toLowerCase() === 'head' ? 'get' : answer.method.toLowerCase();
    const template = this.#templates.find((t) => t.pattern.test(answer.path));
    const operation = template ? this.#document.paths[template.path]?.[method] : undefined;
    const mediaType = answer.contentType?.split(';', 1)[0]?.trim().toLowerCase();
    if (!template || !operation) return this.#undocumented(answer, mediaType);
    const name = `${method.toUpperCase()} ${template.path}`;
    const fail = (message: string): ContractViolation => ({ operation: name, status: answer.status, message });

    const found = this.#response(`/paths/${escapePointer(template.path)}/${method}`, operation, answer.status);
    if (!found)
      return fail(`status ${answer.status} is not documented (${Object.keys(operation.responses).join(', ')})`);
    const { response, pointer } = found;
    const hasBody = answer.body !== undefined && answer.body !== '' && answer.method.toLowerCase() !== 'head';
    if (!response.content)
      return hasBody ? fail(`a body is answered where none is documented: ${clip(answer.body)}`) : null;
    if (mediaType === undefined) return hasBody ? fail('a body without a Content-Type') : null;
    if (!(mediaType in response.content)) {
      return fail(`Content-Type ${mediaType} is not documented (${Object.keys(response.content).join(', ')})`);
    }
    if (!hasBody || answer.body === undefined || !isJson(mediaType)) return null;
    const schemaPointer = `${pointer}/content/${escapePointer(mediaType)}/schema`;
    return this.#validate(schemaPointer, answer.body, fail);
  }

  /** An answer on a path or method the document does not describe: only a problem is checked. */
  #undocumented(answer: ContractAnswer, mediaType: string | undefined): ContractViolation | null {
    if (mediaType !== 'application/problem+json' || answer.body === undefined) return null;
    const operation = `${answer.method.toUpperCase()} ${answer.path} (not in the document)`;
    return this.#validate(`/components/schemas/${escapePointer(PROBLEM_COMPONENT)}`, answer.body, (message) => ({
      operation,
      status: answer.status,
      message,
    }));
  }

  #validate(pointer: string, body: string, fail: (message: string) => ContractViolation): ContractViolation | null {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return fail(`the body is not JSON: ${clip(body)}`);
    }
    let validate = this.#validators.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.#validators.set(pointer, validate);
    }
    if (validate(value)) return null;
    const errors = (validate.errors ?? [])
      .map(
        (e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} [${e.schemaPath}]`,
      )
      .join('; ');
    return fail(`the body does not match ${pointer}: ${errors}; body: ${clip(body)}`);
  }

  /** The response an operation documents for a status, as a JSON pointer into the document. */
  #response(at: string, operation: Operation, status: number): { response: Response; pointer: string } | null {
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in operation.responses);
    if (key === undefined) return null;
    const entry = operation.responses[key];
    if (entry && '$ref' in entry) {
      const name = entry.$ref.replace('#/components/responses/', '');
      const response = this.#document.components.responses[name];
      return response ? { response, pointer: `/components/responses/${escapePointer(name)}` } : null;
    }
    return entry ? { response: entry, pointer: `${at}/responses/${escapePointer(key)}` } : null;
  }
}

const contracts = new Map<string, OpenApiContract>();

/** The contract of a document, made once per distinct document (suites serve the same spec many times). */
export function contractOf(document: OpenApiDocument): OpenApiContract {
  const key = JSON.stringify(document);
  let contract = contracts.get(key);
  if (!contract) {
    contract = new OpenApiContract(document);
    contracts.set(key, contract);
  }
  return contract;
}

/** A violation as one line for a failing test. */
export function describeViolation(v: ContractViolation): string {
  return `${v.operation} answered ${v.status}, which the served OpenAPI document does not describe: ${v.message}`;
}

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');
const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const clip = (text: string | undefined) => (text && text.length > 300 ? `${text.slice(0, 300)}…` : (text ?? ''));
