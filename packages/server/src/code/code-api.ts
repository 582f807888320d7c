import { type Call, specLine } from '@ninepoint/spec';
import { type EntitySchemas, type JsonSchema, pickFields } from '../compile/json-schemas.ts';
import { API, type ApiCall, type FeatureApi, openApiPath, ref, specLineExtension } from '../compile/openapi.ts';
import { schemaComponent } from '../compile/route-table.ts';

/** A call that takes no body: nothing but `{}`. */
const NO_BODY: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/**
 * What a custom call takes and answers, from its payload and answer cells: the payload's fields
 * as an update takes them (none required), the answer as a record of the entity, some of its
 * fields, or any JSON value when the cell is empty (null: nothing to check).
 */
export function codeCallSchemas(
  call: Call,
  schemas: EntitySchemas | undefined,
): { payload: JsonSchema; answer: JsonSchema | null; answerComponent: string | null } {
  const payload =
    call.payload && schemas
      ? call.payload.fields
        ? pickFields(schemas.update, call.payload.fields)
        : schemas.update
      : NO_BODY;
  const shape = call.answer ?? null;
  if (!shape || !schemas) return { payload, answer: null, answerComponent: null };
  const record = shape.entity === call.action.entity ? schemas.record : null;
  if (!record) return { payload, answer: null, answerComponent: null };
  return shape.fields
    ? { payload, answer: { ...pickFields(record, shape.fields), required: shape.fields }, answerComponent: null }
    : { payload, answer: record, answerComponent: schemaComponent(shape.entity, 'record') };
}

/**
 * Point 7's custom calls in the OpenAPI document (`code-plugin.ts` serves them): the payload and
 * answer the spec declares, and every code of the catalogue, since a module may refuse with any.
 */
export const CODE_API: FeatureApi = {
  calls: ({ model, schemas, responses }) => {
    const calls: ApiCall[] = [];
    // A module may refuse with any code of point 8.
    const catalogue = model.errors.map((e) => e.code);
    for (const call of model.calls) {
      if (call.action.kind !== 'code') continue;
      const entity = call.action.entity;
      const { payload, answer, answerComponent } = codeCallSchemas(call, schemas.get(entity));
      const tail = call.path.split('/').at(-1) ?? 'run';
      const verb = tail.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      calls.push({
        path: openApiPath(call.path),
        method: call.method,
        operation: {
          operationId: `${verb}${entity}`,
          summary: call.doc || `${entity}: ${tail} (${call.action.code.file})`,
          description: `Answered by the app's own TypeScript module \`${call.action.code.file}\`${call.action.code.export === 'default' ? '' : ` (its export \`${call.action.code.export}\`)`}, on a ${entity} the caller may read.`,
          tags: [entity],
          parameters: call.params.map((name) => ({
            name,
            in: 'path' as const,
            required: true,
            schema: API.string,
          })),
          ...(call.method === 'GET' || call.method === 'DELETE'
            ? {}
            : {
                requestBody: {
                  required: true,
                  content: { [API.json]: { schema: payload } },
                },
              }),
          responses: {
            '200': {
              description: answer
                ? `What ${call.action.code.file} answers.`
                : `Any JSON value ${call.action.code.file} answers.`,
              content: { [API.json]: { schema: answerComponent ? ref(answerComponent) : (answer ?? {}) } },
            },
            ...responses.for([
              ...new Set([
                'NOT_SIGNED_IN',
                'FORBIDDEN',
                'NOT_FOUND',
                ...(call.method === 'GET' ? [] : API.posted),
                'VALIDATION_FAILED',
                'CONFLICT',
                'TRANSITION_NOT_ALLOWED',
                ...catalogue,
                'RATE_LIMITED',
                'INTERNAL_ERROR',
              ]),
            ]),
          },
          security: API.anybody,
          ...specLineExtension(specLine(model, call.span)),
        },
      });
    }
    return calls;
  },
};
