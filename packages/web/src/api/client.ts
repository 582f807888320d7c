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
      ...(problem.empty ? { empty: problem.empty } : {}),
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

/**
 * Sends a write with files (multipart/form-data) with the session cookie, telling `onProgress`
 * how much of the body has gone (0..1): fetch cannot report an upload's progress, XMLHttpRequest can.
 * Answers and refusals as `api` gives them.
 */
export function sendForm<T>(
  method: string,
  path: string,
  form: FormData,
  options: { ifMatch?: string | null; onProgress?: (sent: number) => void } = {},
): Promise<Answer<T>> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(method, path);
    request.withCredentials = true;
    request.setRequestHeader('accept', 'application/json');
    if (options.ifMatch) request.setRequestHeader('if-match', options.ifMatch);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) options.onProgress?.(event.loaded / event.total);
    });
    request.addEventListener('error', () =>
      reject(
        new ApiError({
          status: 0,
          code: 'NETWORK',
          title: 'No connection',
          detail: 'The upload did not reach the server. Check your connection and try again.',
        }),
      ),
    );
    request.addEventListener('load', () => {
      const parsed: unknown = request.responseText === '' ? null : safeJson(request.responseText);
      if (request.status < 200 || request.status >= 300) {
        const problem = (parsed ?? {}) as Partial<Problem>;
        reject(
          new ApiError({
            status: request.status,
            code: problem.code ?? 'UNKNOWN',
            title: problem.title ?? request.statusText,
            detail: problem.detail ?? problem.title ?? `The server answered ${request.status}.`,
            ...(problem.errors ? { errors: problem.errors } : {}),
          }),
        );
        return;
      }
      resolve({ body: parsed as T, etag: request.getResponseHeader('etag') });
    });
    request.send(form);
  });
}
