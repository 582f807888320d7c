import { Readable } from 'node:stream';
import type { FileStorage } from './file-storage.ts';
import type { FileRow } from './files-tables.ts';

/** The thumbnail sizes served, in pixels on the longer side: lists and cards, the detail page, a phone's full width. */
export const THUMBNAIL_SIZES = [96, 320, 640] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** Where a file's thumbnail of one size is kept: beside it, in the same storage. */
export function thumbnailKey(storageKey: string, size: number): string {
  return `${storageKey}-t${size}`;
}

/** The largest image decoded (thumbnails, stripping metadata), in pixels: a decompression bomb is refused, not rendered. */
export const MAX_PIXELS = 100_000_000;

/**
 * A raster image's thumbnail as WebP, made once with sharp (libvips, prebuilt in the npm package)
 * and kept in the storage beside the file: later asks read it back. The image is turned as its
 * EXIF orientation says, then written without any of its metadata, so a thumbnail never carries
 * the place a photo was taken (or the camera, or the time).
 */
export async function thumbnail(storage: FileStorage, file: FileRow, size: ThumbnailSize): Promise<Readable | null> {
  const key = thumbnailKey(file.storageKey, size);
  const cached = await storage.read(key);
  if (cached) return cached;
  const original = await storage.read(file.storageKey);
  if (!original) return null;
  const { default: sharp } = await import('sharp');
  const made = await original
    .pipe(
      sharp({ limitInputPixels: MAX_PIXELS, failOn: 'error' })
        .rotate()
        .resize(size, size, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 75 }),
    )
    .toBuffer();
  await storage.write(key, Readable.from([made]));
  return Readable.from([made]);
}
