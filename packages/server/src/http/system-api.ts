import type { JsonSchema } from '../compile/json-schemas.ts';
import { API, type FeatureApi, type Operation, ref } from '../compile/openapi.ts';

/** The calls of the app itself, whatever its features: health, the spec, and its API's description. */
export const SYSTEM_CALLS = [
  {
    method: 'GET',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Whether the server and its database answer',
  },
  {
    method: 'GET',
    path: '/api/spec',
    operationId: 'getSpec',
    summary: 'The checked model of the spec, as JSON',
  },
  {
    method: 'GET',
    path: '/api/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI document',
  },
  {
    method: 'GET',
    path: '/api/docs',
    operationId: 'getApiDocs',
    summary: 'The API reference page: this document rendered by Swagger UI, as HTML',
  },
] as const;

const HEALTH = 'ninepoint.Health';

/** The schema of `GET /api/health`. */
export const HEALTH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok'] },
    spec: { type: 'string', description: 'The product name of the spec being served.' },
    database: { type: 'string', enum: ['sqlite', 'postgres'] },
  },
  required: ['status', 'spec', 'database'],
  additionalProperties: false,
};

/** The system calls in the OpenAPI document: they need no credentials. */
export const SYSTEM_API: FeatureApi = {
  schemas: () => ({ [HEALTH]: HEALTH_SCHEMA }),
  calls: ({ responses }) =>
    SYSTEM_CALLS.map((route) => {
      const schema: JsonSchema =
        route.path === '/api/health'
          ? ref(HEALTH)
          : route.path === '/api/docs'
            ? API.string
            : {
                type: 'object',
                description: route.path === '/api/spec' ? 'The checked model.' : 'An OpenAPI document.',
              };
      const mediaType = route.path === '/api/docs' ? 'text/html' : API.json;
      const operation: Operation = {
        operationId: route.operationId,
        summary: route.summary,
        tags: [API.systemTag],
        // A system call that says nothing else of credentials needs none: `security: []` says so to tools.
        security: [],
        responses: {
          '200': { description: route.summary, content: { [mediaType]: { schema } } },
          // The page is sent with an ETag (http/api-docs.ts): a browser's If-None-Match may match it.
          ...(route.path === '/api/docs'
            ? { '304': { description: 'Not modified: the page the browser has is current.' } }
            : {}),
          ...responses.for(API.anyCall),
        },
      };
      return { path: route.path, method: route.method, operation };
    }),
};
