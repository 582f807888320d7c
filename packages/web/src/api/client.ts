import type { Problem } from './wire.ts';

export type { FieldProblem, Problem } from './wire.ts';

/** A call the server refused; `problem` is its catalogued answer. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(problem.detail || problem.title);
    this.problem = problem;
  }

  get status(): number {
    return this.problem.status;
  }
}

export interface Answer<T> {
  body: T;
  etag: string | null;
}

/**
 * Calls the app's API with the session cookie. A refusal throws `ApiError` with the server's
 * problem; a network failure throws `ApiError` too (status 0), so every screen handles one kind.
 */
export async function api<T>(
  method: string,
  path: string,
  options: { body?: unknown; ifMatch?: string | null } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch {
    throw new ApiError({
      status: 0,
      code: 'NETWORK',
      title: 'No connection',
      detail: 'The server did not answer. Check your connection and try again.',
    });
  }
  const text = await response.text();
  const parsed: unknown = text === '' ? null : safeJson(text);
  if (!response.ok) {
    const problem = (parsed ?? {}) as Partial<Problem>;
    throw new ApiError({
      status: response.status,
      code: problem.code ?? 'UNKNOWN',
      title: problem.title ?? response.statusText,
      detail: problem.detail ?? problem.title ?? `The server answered ${response.status}.`,
      ...(problem.errors ? { errors: problem.errors } : {}),
      ...(problem.spec ? { spec: problem.spec } : {}),
    });
  }
  return { body: parsed as T, etag: response.headers.get('etag') };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
