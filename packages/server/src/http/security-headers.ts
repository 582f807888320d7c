/**
 * Sent on every answer. Other sites learn at most this app's origin, never a page's path or query
 * (record ids, searches). Not `no-referrer`: under it browsers send `Origin: null` on the app's own
 * writes, which the same-origin check for cookie-authenticated writes would refuse (auth.ts).
 */
export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

/**
 * Sent on answers to requests that came over HTTPS (through a trusted proxy): browsers then use
 * only HTTPS for this host for a year. No `includeSubDomains`: other hosts are not the app's to bind.
 */
export const HSTS = 'max-age=31536000';
