import { FILE_FORMATS } from '@ninepoint/spec';
import type { FileRow } from './files-tables.ts';

/**
 * What a served file may do in a browser: nothing. The sandbox gives it an opaque origin, so an
 * HTML or SVG file opened from the app's address runs no script with the app's cookies or pages;
 * images and media may still be shown.
 */
export const FILE_CSP = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox";

/** Whether a file is shown in the browser rather than downloaded: raster images only. */
export function servedInline(file: Pick<FileRow, 'kind'>): boolean {
  return file.kind !== null && FILE_FORMATS[file.kind]?.raster === true;
}

/**
 * `Content-Disposition` for a file (RFC 6266): `inline` for raster images, `attachment` for the
 * rest, with the name as sent (RFC 8187's `filename*`) and an ASCII fallback for old clients.
 */
export function contentDisposition(file: Pick<FileRow, 'kind' | 'name'>, inline = servedInline(file)): string {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(file.name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
