import type { JsonSchema } from '../compile/json-schemas.ts';
import { API, type FeatureApi, type Operation, type ProblemResponses, ref } from '../compile/openapi.ts';

/**
 * What saved list views look like on the wire (`/api/views`), shared by the server
 * (`saved-views.ts`), which validates with it, and the OpenAPI document, which describes it.
 */

/** Bounds of a saved view: a name fits a menu, a query an address, a screen a handful of them. */
export const SAVED_VIEW_LIMITS = { name: 80, query: 2000, screen: 200, perScreen: 50 } as const;

/** A saved view as the API answers it. */
export const SAVED_VIEW_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    screen: { type: 'string', description: 'The route of the list screen the view is of, e.g. `/books`.' },
    name: { type: 'string' },
    query: {
      type: 'string',
      description:
        'The list’s address query: `filter[…]`, `sort`, `q`, `size` and `columns` (names separated by commas), as the app writes it.',
    },
    savedAt: { type: 'string', format: 'date-time' },
    role: {
      type: ['string', 'null'],
      description: 'The role the view is shared with (everyone holding it sees it); null for the caller’s own.',
    },
    mayChange: { type: 'boolean', description: 'Whether the caller may replace or delete the view.' },
  },
  required: ['id', 'screen', 'name', 'query', 'savedAt', 'role', 'mayChange'],
  additionalProperties: false,
};

/** The body of `POST /api/views`. */
export const SAVE_VIEW_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    screen: { type: 'string', minLength: 1, maxLength: SAVED_VIEW_LIMITS.screen },
    name: { type: 'string', minLength: 1, maxLength: SAVED_VIEW_LIMITS.name },
    query: { type: 'string', maxLength: SAVED_VIEW_LIMITS.query },
    role: {
      type: ['string', 'null'],
      maxLength: SAVED_VIEW_LIMITS.name,
      description: 'Share the view with everyone holding this role (its members, or those who manage people, may).',
    },
  },
  required: ['screen', 'name', 'query'],
  additionalProperties: false,
};

export const SAVED_VIEW = 'ninepoint.SavedView';
export const SAVE_VIEW = 'ninepoint.SaveView';

const VIEW = { [API.json]: { schema: ref(SAVED_VIEW) } };

/**
 * The calls of saved views (`saved-views.ts` serves them), one row each: the route, its words, and
 * what it takes and answers in the OpenAPI document. Signed-in callers only, each their own views.
 */
export const SAVED_VIEW_CALLS: readonly {
  method: string;
  /** As OpenAPI writes it. */
  path: string;
  operationId: string;
  summary: string;
  describe(responses: ProblemResponses): Pick<Operation, 'parameters' | 'requestBody' | 'responses'>;
}[] = [
  {
    method: 'GET',
    path: '/api/views',
    operationId: 'listViews',
    summary: 'The caller’s saved views of a list screen, by name',
    describe: (responses) => ({
      parameters: [
        {
          name: 'screen',
          in: 'query',
          required: true,
          description: 'The route of a list screen, e.g. `/books`.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'The caller’s views of the screen, by name.',
          content: {
            [API.json]: {
              schema: {
                type: 'object',
                properties: { items: { type: 'array', items: ref(SAVED_VIEW) } },
                required: ['items'],
                additionalProperties: false,
              },
            },
          },
        },
        ...responses.for(['INVALID_PAYLOAD', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/views',
    operationId: 'saveView',
    summary:
      'Saves a view of a list screen under a name, for the caller only; a view of the same name on ' +
      `that screen is replaced. At most ${SAVED_VIEW_LIMITS.perScreen} per screen.`,
    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(SAVE_VIEW) } } },
      responses: {
        '200': { description: 'A view of that name was replaced.', content: VIEW },
        '201': { description: 'The view is saved.', content: VIEW },
        ...responses.for(['INVALID_PAYLOAD', 'PAYLOAD_TOO_LARGE', 'FORBIDDEN', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/views/{id}',
    operationId: 'deleteView',
    summary: 'Deletes one of the caller’s saved views',
    describe: (responses) => ({
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      responses: {
        '204': { description: 'The view is deleted.' },
        ...responses.for(['NOT_FOUND', 'FORBIDDEN', ...API.anyCall]),
      },
    }),
  },
];

/** Saved views in the OpenAPI document. */
export const SAVED_VIEWS_API: FeatureApi = {
  schemas: () => ({ [SAVED_VIEW]: SAVED_VIEW_SCHEMA, [SAVE_VIEW]: SAVE_VIEW_SCHEMA }),
  calls: ({ responses }) =>
    SAVED_VIEW_CALLS.map((call) => ({
      path: call.path,
      method: call.method,
      operation: {
        operationId: call.operationId,
        summary: call.summary,
        tags: [API.systemTag],
        security: API.signedIn,
        ...call.describe(responses),
      },
    })),
};
