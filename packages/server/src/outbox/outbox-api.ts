import type { JsonSchema } from '../compile/json-schemas.ts';
import { API, type FeatureApi, type Operation, type ProblemResponses, ref } from '../compile/openapi.ts';

/**
 * What the outbox's calls look like on the wire, for the OpenAPI document (`compile/openapi.ts`);
 * the answers are built by `outbox-routes.ts` from `deliveries-store.ts`.
 */
const nullable = (type: 'string' | 'integer', extra: Record<string, unknown> = {}): JsonSchema => ({
  type: [type, 'null'],
  ...extra,
});

export const DELIVERY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    kind: { enum: ['call', 'mail'], description: 'A call to another system, or a notification (mail and in-app).' },
    target: {
      type: 'string',
      description: 'Where it goes, as point 7 says: `POST env FINANCE_WEBHOOK_URL`, `notify assignee`.',
    },
    event: { enum: ['create', 'update', 'transition', 'delete'] },
    entity: { type: 'string' },
    recordId: { type: 'string' },
    transition: nullable('string'),
    at: { type: 'string', format: 'date-time', description: 'When the change was made.' },
    status: { enum: ['pending', 'delivered', 'dead'] },
    attempts: { type: 'integer', minimum: 0 },
    lastCode: nullable('integer', {
      description: 'The receiver’s last HTTP status; null when none came (or for a mail).',
    }),
    lastError: nullable('string'),
    lastAt: nullable('string', { format: 'date-time' }),
    nextAt: nullable('string', {
      format: 'date-time',
      description: 'When it is tried next; null once delivered or dead.',
    }),
  },
  required: [
    'id',
    'kind',
    'target',
    'event',
    'entity',
    'recordId',
    'transition',
    'at',
    'status',
    'attempts',
    'lastCode',
    'lastError',
    'lastAt',
    'nextAt',
  ],
  additionalProperties: false,
};

export const NOTIFICATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    entity: { type: 'string' },
    recordId: { type: 'string' },
    subject: { type: 'string' },
    text: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    read: { type: 'boolean' },
  },
  required: ['id', 'entity', 'recordId', 'subject', 'text', 'at', 'read'],
  additionalProperties: false,
};

export const DELIVERY = 'ninepoint.Delivery';
export const NOTIFICATION = 'ninepoint.Notification';

interface OutboxRoute {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  summary: string;
  problems: readonly string[];
  parameters?: { name: string; in: 'query' | 'path'; required: boolean; description?: string; schema: JsonSchema }[];
  /** The 200 answer's schema, or null for 204. */
  answer: JsonSchema | null;
}

const ID = {
  name: 'id',
  in: 'path' as const,
  required: true,
  schema: { type: 'string', format: 'uuid' } as JsonSchema,
};

/** The outbox's calls: those who manage people see deliveries; every user their own notifications. */
export const OUTBOX_ROUTES: readonly OutboxRoute[] = [
  {
    method: 'GET',
    path: '/api/deliveries',
    operationId: 'listDeliveries',
    summary:
      'Every notification and call to another system the app made or is making, newest first: for those who manage people. Never the records’ values.',
    problems: ['INVALID_PAYLOAD', 'FORBIDDEN'],
    parameters: [
      { name: 'status', in: 'query', required: false, schema: { enum: ['pending', 'delivered', 'dead'] } },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200 } },
      {
        name: 'before',
        in: 'query',
        required: false,
        description: 'The `next` of the previous page.',
        schema: { type: 'string', format: 'uuid' },
      },
    ],
    answer: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref(DELIVERY) },
        next: { type: ['string', 'null'] },
        counts: {
          type: 'object',
          properties: { pending: { type: 'integer' }, delivered: { type: 'integer' }, dead: { type: 'integer' } },
          required: ['pending', 'delivered', 'dead'],
        },
        unconfigured: {
          type: 'array',
          items: { type: 'string' },
          description: 'Calls and recipients the server’s environment leaves unset.',
        },
      },
      required: ['items', 'next', 'counts', 'unconfigured'],
      additionalProperties: false,
    },
  },
  {
    method: 'POST',
    path: '/api/deliveries/{id}/retry',
    operationId: 'retryDelivery',
    summary: 'Retry now: a pending or dead delivery is tried at once (with the same webhook-id)',
    problems: ['NOT_FOUND', 'CONFLICT', 'FORBIDDEN'],
    parameters: [ID],
    answer: ref(DELIVERY),
  },
  {
    method: 'GET',
    path: '/api/notifications',
    operationId: 'listNotifications',
    summary: 'The caller’s in-app notifications, newest first, and how many are unread',
    problems: [],
    answer: {
      type: 'object',
      properties: { items: { type: 'array', items: ref(NOTIFICATION) }, unread: { type: 'integer', minimum: 0 } },
      required: ['items', 'unread'],
      additionalProperties: false,
    },
  },
  {
    method: 'POST',
    path: '/api/notifications/read',
    operationId: 'markAllNotificationsRead',
    summary: 'Marks every notification of the caller read',
    problems: ['FORBIDDEN'],
    answer: null,
  },
  {
    method: 'POST',
    path: '/api/notifications/{id}/read',
    operationId: 'markNotificationRead',
    summary: 'Marks one of the caller’s notifications read',
    problems: ['NOT_FOUND', 'FORBIDDEN'],
    parameters: [ID],
    answer: null,
  },
];

/** The outbox in the OpenAPI document. */
export const OUTBOX_API: FeatureApi = {
  schemas: () => ({ [DELIVERY]: DELIVERY_SCHEMA, [NOTIFICATION]: NOTIFICATION_SCHEMA }),
  calls: ({ responses }) =>
    OUTBOX_ROUTES.map((route) => ({
      path: route.path,
      method: route.method,
      operation: outboxOperation(route, responses),
    })),
};

function outboxOperation(route: OutboxRoute, responses: ProblemResponses): Operation {
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [API.systemTag],
    security: API.signedIn,
    ...(route.parameters ? { parameters: route.parameters.map((p) => ({ ...p })) } : {}),
    responses: {
      ...(route.answer === null
        ? { '204': { description: route.summary } }
        : { '200': { description: route.summary, content: { [API.json]: { schema: route.answer } } } }),
      ...responses.for([...route.problems, ...API.anyCall]),
    },
  };
}
