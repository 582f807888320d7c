/**
 * The calls every app serves besides the spec's own: they exist even for the blank spec, and a
 * spec call with the same method and path is shadowed by them.
 */
export const SYSTEM_ROUTES = [
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

export type SystemRoute = (typeof SYSTEM_ROUTES)[number];
